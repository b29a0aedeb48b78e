"""The escalation-policy editor (web/ui/escalation_forms.py) through the test client: create with levels of
schedules and contacts, refusals that say which field and keep what was typed, edit (remove a level, add one,
change delays and repeat), delete. Access and CSRF: tests/web/test_oncall_editors_access.py; in Chromium:
tests/ui/test_browser_escalation.py."""

from __future__ import annotations

import pytest

from flapjack_py.model.escalation import Policy, policy_from_json
from flapjack_py.oncall.schedule_data import schedule_from_json
from flapjack_py.store import entities as entity_store
from flapjack_py.store import escalation as escalation_store
from flapjack_py.store import schedules as schedule_store

from .conftest import World

E = "db-01.example.com"


@pytest.fixture
def team(world: World, clock) -> World:
    """ann (on call in schedule `primary`), bob and cat, contacts of entity E."""
    for first in ("Ann", "Bob", "Cat"):
        world.contact(first.lower(), first, "Oncall", E)
    schedule = {"timezone": "UTC", "layers": [{"start": "2023-11-01T00:00Z", "rotation": "P1W", "contacts": ["ann"]}]}
    schedule_store.save_schedule(world.s, schedule_from_json(schedule, clock.now, "primary"))
    return world


def stored(world: World, policy_id: str) -> Policy | None:
    found = escalation_store.load_policies(world.s, [policy_id])
    return found[0] if found else None


def form(*levels: tuple[str, str, str], **fields: str) -> dict[str, str]:
    """Editor fields: `levels` are (delay, schedules, contacts) rows."""
    data = {"rows": str(len(levels)), **fields}
    for i, (delay, schedules, contacts) in enumerate(levels):
        data |= {f"level-{i}-delay": delay, f"level-{i}-schedules": schedules, f"level-{i}-contacts": contacts}
    return data


def test_create_a_policy_and_see_who_it_pages(team: World, client) -> None:
    response = client.post("/escalation_policies", data=form(
        ("0", "primary", ""), ("15m", "", "bob, cat"), ("", "", ""), id="db", name="Databases", repeat="1"))
    assert response.status_code == 303 and response.headers["Location"].endswith("/escalation_policies/db?notice=policy-created")
    assert stored(team, "db") == policy_from_json({"name": "Databases", "repeat": 1, "levels": [
        {"delay": 0, "targets": [{"schedule": "primary"}]},
        {"delay": 900, "targets": [{"contact": "bob"}, {"contact": "cat"}]}]}, "db")
    page = client.get(response.headers["Location"]).get_data(as_text=True)
    assert "Escalation policy created." in page and "primary (ann)" in page
    assert '<time datetime="PT900S">15 minutes</time> after level 1' in page
    assert 'value="15m"' in page and 'value="bob, cat"' in page  # the editor shows the levels back
    listing = client.get("/escalation_policies").get_data(as_text=True)
    assert '<a href="/escalation_policies/db">Databases</a>' in listing


@pytest.mark.parametrize(("levels", "field", "message"), [
    ((("0", "", "ann, zed"),), "level-0-contacts", "No contact with the id &#39;zed&#39;"),
    ((("0", "nightly", ""),), "level-0-schedules", "No schedule with the id &#39;nightly&#39;"),
    ((("0", "", "ann"), ("soon-ish", "", "bob")), "level-1-delay", "could not read the duration"),
    ((("", "", ""),), "levels", "At least one level with a schedule or a contact"),
    ((("0", "", "ann"), ("8d", "", "bob")), "form", "delay must be 0 to 604800 seconds"),
])
def test_a_refused_form_says_why_keeps_what_was_typed_and_stores_nothing(
        team: World, client, levels: tuple[tuple[str, str, str], ...], field: str, message: str) -> None:
    response = client.post("/escalation_policies", data=form(*levels, id="db", name="Typed name"))
    page = response.get_data(as_text=True)
    assert response.status_code == 422 and message in page and 'value="Typed name"' in page
    if field != "form":
        assert f'id="policy-{field}-error"' in page or f'id="{field}-error"' in page
    assert stored(team, "db") is None


def test_an_id_already_taken_is_refused(team: World, client) -> None:
    client.post("/escalation_policies", data=form(("0", "", "ann"), id="db", name="First"))
    response = client.post("/escalation_policies", data=form(("0", "", "bob"), id="db", name="Second"))
    assert response.status_code == 422 and "already exists" in response.get_data(as_text=True)
    assert stored(team, "db").name == "First"


def test_edit_levels_delays_and_repeat(team: World, client) -> None:
    client.post("/escalation_policies", data=form(("0", "primary", ""), ("15m", "", "bob"), id="db", name="DB"))
    page = client.get("/escalation_policies/db").get_data(as_text=True)
    assert page.count("Remove this level") == 2 and "Add a level" in page
    edited = form(("5m", "primary", ""), ("15m", "", "bob"), ("1h30m", "", "cat"), name="DB team", repeat="2")
    edited |= {"level-0-stored": "1", "level-1-stored": "1", "level-1-remove": "on"}
    response = client.post("/escalation_policies/db", data=edited)
    assert response.headers["Location"].endswith("/escalation_policies/db?notice=policy-saved")
    assert stored(team, "db") == policy_from_json({"name": "DB team", "repeat": 2, "levels": [
        {"delay": 300, "targets": [{"schedule": "primary"}]},
        {"delay": 5400, "targets": [{"contact": "cat"}]}]}, "db")


def test_delete_a_policy_and_its_links(team: World, client) -> None:
    client.post("/escalation_policies", data=form(("0", "", "ann"), id="db"))
    entity_id = entity_store.entity_id(team.s, E)
    escalation_store.link(team.s, entity_id, ["db"])
    assert 'href="/escalation_policies/db"' in client.get(f"/entities/{E}").get_data(as_text=True)
    assert "db-01.example.com" in client.get("/escalation_policies/db").get_data(as_text=True)
    response = client.post("/escalation_policies/db/delete")
    assert response.headers["Location"].endswith("/escalation_policies?notice=policy-deleted")
    assert stored(team, "db") is None and escalation_store.linked_policy_ids(team.s, entity_id) == []
    assert client.get("/escalation_policies/db").status_code == 404
    assert client.post("/escalation_policies/db/delete").status_code == 404


def test_a_policy_naming_a_schedule_that_is_gone_still_has_its_page(team: World, client) -> None:
    policy = {"levels": [{"delay": 0, "targets": [{"schedule": "deleted"}, {"contact": "ann"}]}]}
    escalation_store.save_policy(team.s, policy_from_json(policy, "old"))
    page = client.get("/escalation_policies/old")
    assert page.status_code == 200 and "deleted (no such schedule: pages nobody)" in page.get_data(as_text=True)
