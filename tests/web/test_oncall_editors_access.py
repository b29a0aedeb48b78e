"""The escalation-policy and maintenance-series editors go through the one gate (web/policy.py) and CSRF like
every UI form: viewers read; only admins create, change and delete policies (as through the API), responders
edit series; a post without the CSRF token changes nothing."""

from __future__ import annotations

from typing import Any

import pytest

from flapjack_py import actions
from flapjack_py.access import Role
from flapjack_py.model.actors import Actor
from flapjack_py.model.escalation import policy_from_json
from flapjack_py.store import contacts as contact_store
from flapjack_py.store import escalation as escalation_store
from flapjack_py.store import maintenance_series as series_store

from .conftest import People, known_check, world_keys

pytestmark = pytest.mark.real
LEVELS = {"rows": "1", "level-0-delay": "0", "level-0-contacts": "ann"}


@pytest.fixture
def ops(people: People) -> People:
    contact_store.create_contact(people.s, {"id": "ann", "first_name": "Ann", "last_name": "Oncall"})
    policy = {"name": "Ops", "levels": [{"delay": 0, "targets": [{"contact": "ann"}]}]}
    escalation_store.save_policy(people.s, policy_from_json(policy, "ops"))
    return people


@pytest.mark.parametrize("role", [Role.VIEWER, Role.RESPONDER])
def test_below_admin_reads_but_may_not_write(make_app: Any, ops: People, role: Role) -> None:
    client = make_app().test_client()
    ops.login(client, role)
    page = client.get("/escalation_policies/ops").get_data(as_text=True)
    assert "Ops" in page and 'id="policy-form"' not in page and "Delete this policy" not in page
    assert "New escalation policy" not in client.get("/escalation_policies").get_data(as_text=True)
    before = world_keys(ops.r)
    assert client.get("/escalation_policies/new").status_code == 403
    assert client.post("/escalation_policies", data={"id": "mine", **LEVELS}).status_code == 403
    assert client.post("/escalation_policies/ops", data={"name": "Mine", **LEVELS}).status_code == 403
    assert client.post("/escalation_policies/ops/delete").status_code == 403
    assert world_keys(ops.r) == before and escalation_store.load_policies(ops.s)[0].name == "Ops"


def test_an_admin_post_without_the_csrf_token_changes_nothing(make_app: Any, ops: People) -> None:
    client = make_app().test_client()
    ops.login(client, Role.ADMIN)
    assert 'id="policy-form"' in client.get("/escalation_policies/ops").get_data(as_text=True)
    before = world_keys(ops.r)
    for url, data in (("/escalation_policies", {"id": "mine", **LEVELS}),
                      ("/escalation_policies/ops", {"name": "Mine", **LEVELS}), ("/escalation_policies/ops/delete", {})):
        response = client.post(url, data={**data, "csrf_token": ""})
        assert response.status_code == 400 and "CSRF" in response.get_data(as_text=True), url
    assert world_keys(ops.r) == before
    assert client.post("/escalation_policies/ops", data={"name": "Mine", **LEVELS}).status_code == 303
    assert escalation_store.load_policies(ops.s)[0].name == "Mine"


def test_anonymous_is_sent_to_the_login_page(make_app: Any, ops: People) -> None:
    response = make_app().test_client().get("/escalation_policies")
    assert response.status_code in (302, 303) and "/login" in response.headers["Location"]


@pytest.fixture
def series_id(people: People) -> str:
    known_check(people.r)
    made = actions.create_series(people.s, {"rrule": "FREQ=WEEKLY;BYDAY=SU;BYHOUR=2;BYMINUTE=0", "timezone": "UTC",
                                             "duration": "1h", "checks": ["web-01:HTTP"]}, actor=Actor("ada", "ui"),
                                             now=1_700_000_000)
    return made.id


EDIT = {"rrule": "FREQ=WEEKLY;BYDAY=SA;BYHOUR=3;BYMINUTE=0", "timezone": "UTC", "start": "", "duration": "2h",
        "summary": "moved"}


def test_a_viewer_reads_a_series_but_may_not_edit_it(make_app: Any, people: People, series_id: str) -> None:
    client = make_app().test_client()
    people.login(client, Role.VIEWER)
    page = client.get(f"/maintenance_series/{series_id}").get_data(as_text=True)
    assert "BYDAY=SU" in page and 'id="series-form"' not in page
    before = world_keys(people.r)
    assert client.post(f"/maintenance_series/{series_id}", data=EDIT).status_code == 403
    assert world_keys(people.r) == before and series_store.load_series(people.s, series_id).duration == 3600


def test_a_responder_edits_a_series_only_with_the_csrf_token(make_app: Any, people: People, series_id: str) -> None:
    client = make_app().test_client()
    people.login(client, Role.RESPONDER)
    assert 'id="series-form"' in client.get(f"/maintenance_series/{series_id}").get_data(as_text=True)
    before = world_keys(people.r)
    response = client.post(f"/maintenance_series/{series_id}", data={**EDIT, "csrf_token": ""})
    assert response.status_code == 400 and "CSRF" in response.get_data(as_text=True)
    assert world_keys(people.r) == before
    assert client.post(f"/maintenance_series/{series_id}", data=EDIT).status_code == 303
    assert series_store.load_series(people.s, series_id).duration == 7200
