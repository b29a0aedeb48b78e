"""Teams own checks (by entity or tag); a responder acts only on the checks their teams own, in every channel:
the UI's forms, the JSON API, bulk actions (each check reported done or refused) and the Jabber bot. Admins act
on all; a check no team owns is open to every responder unless web.unowned_checks is `admins`."""

from __future__ import annotations

import time
from typing import Any

import pytest

from flapjack_py import credentials
from flapjack_py.access import Role
from flapjack_py.config.settings import load_config
from flapjack_py.executive import Executive
from flapjack_py.model.actors import Actor
from flapjack_py.replies import acknowledge_check
from flapjack_py.store import audit
from flapjack_py.store import maintenance as maint
from flapjack_py.store import media as media_store
from flapjack_py.store import tags as tag_store
from flapjack_py.store import users as user_store
from flapjack_py.store.events import push_event
from gateways.jabber_bot import Bot, BotSettings
from gateways.matrix_bot import MatrixBot

from .conftest import CONFIG, PASSWORD, People

pytestmark = pytest.mark.real
A_CHECK, B_CHECK, LOOSE = ("web-01", "HTTP"), ("db-01", "MySQL"), ("misc-01", "PING")
PATCH = {"Content-Type": "application/json-patch+json"}


@pytest.fixture
def teams(people: People, make_app: Any) -> People:
    """Team A (responder, owns entity web-01), team B (bob, owns tag `db`, lists contact carol); three failing
    checks, misc-01 owned by no team."""
    user_store.save_user(people.s, user_store.User("bob", Role.RESPONDER, credentials.hash_password(PASSWORD), 0))
    for entity, check in (A_CHECK, B_CHECK, LOOSE):
        push_event(people.r, {"type": "service", "entity": entity, "check": check, "state": "critical",
                              "summary": "down"})
    Executive(people.r, CONFIG).drain()
    tag_store.add_check_tags(people.s, *B_CHECK, ["db"])
    media_store.set_medium(people.s, "carol", "jabber", "carol@example.org")
    client = make_app().test_client()
    answer = client.post("/api/teams", headers=people.bearer(Role.ADMIN), json={"teams": [
        {"id": "a", "name": "Team A", "members": ["responder"], "entities": ["web-01"]},
        {"id": "b", "name": "Team B", "members": ["bob"], "tags": ["db"], "contacts": ["carol"]}]})
    assert answer.status_code == 201, answer.get_json()
    return people


def _acked(people: People, entity: str, check: str) -> bool:
    Executive(people.r, CONFIG).drain()
    return maint.in_force(people.s, entity, check, maint.UNSCHEDULED) is not None


def _ack_api(client: Any, people: People, check: tuple[str, str]) -> Any:
    return client.post(f"/api/unscheduled_maintenances/checks/{check[0]}:{check[1]}",
                       headers=people.bearer(Role.RESPONDER),
                       json={"unscheduled_maintenances": [{"duration": 600, "summary": "mine?"}]})


def test_the_api_refuses_another_teams_check(make_app: Any, teams: People) -> None:
    client = make_app().test_client()
    refused = _ack_api(client, teams, B_CHECK)
    assert refused.status_code == 403
    assert "db-01:MySQL" in refused.get_json()["errors"][0]
    assert _ack_api(client, teams, A_CHECK).status_code == 204
    assert _ack_api(client, teams, LOOSE).status_code == 204  # no team owns it: every responder
    assert not _acked(teams, *B_CHECK) and _acked(teams, *A_CHECK) and _acked(teams, *LOOSE)
    disable = client.patch("/api/checks/db-01:MySQL", headers={**teams.bearer(Role.RESPONDER), **PATCH},
                           json=[{"op": "replace", "path": "/checks/0/enabled", "value": False}])
    assert disable.status_code == 403
    now = int(time.time())
    refusals = [(e.actor, e.action, e.target) for e in audit.read(teams.s, now - 60, now + 60)
                if e.outcome == "refused"]
    assert refusals == [("responder", "acknowledge", "db-01:MySQL"), ("responder", "disable", "db-01:MySQL")]


def test_the_ui_refuses_another_teams_check(make_app: Any, teams: People) -> None:
    client = make_app().test_client()
    teams.login(client, Role.RESPONDER)
    assert client.post("/checks/db-01/MySQL/acknowledge", data={"duration": "1h"}).status_code == 403
    assert client.post("/checks/db-01/MySQL/enabled", data={"enabled": "false"}).status_code == 403
    assert client.post("/checks/web-01/HTTP/acknowledge", data={"duration": "1h"}).status_code == 303
    assert not _acked(teams, *B_CHECK) and _acked(teams, *A_CHECK)


def test_bulk_reports_each_refused_check(make_app: Any, teams: People) -> None:
    client = make_app().test_client()
    teams.login(client, Role.RESPONDER)
    response = client.post("/bulk", data={"action": "acknowledge", "ids": ["web-01:HTTP", "db-01:MySQL"]})
    assert response.status_code == 200
    page = response.get_data(as_text=True)
    assert "db-01 / MySQL</a></td><td data-label=\"Result\">refused: no team of yours owns it" in page
    assert _acked(teams, *A_CHECK) and not _acked(teams, *B_CHECK)
    only_b = client.post("/bulk", data={"action": "test", "ids": ["db-01:MySQL"]})
    assert only_b.status_code == 403 and "refused" in only_b.get_data(as_text=True)


def test_admins_act_on_all_and_unowned_checks_can_be_closed(make_app: Any, teams: People) -> None:
    client = make_app(unowned_checks="admins").test_client()
    assert _ack_api(client, teams, LOOSE).status_code == 403
    answer = client.post("/api/unscheduled_maintenances/checks/db-01:MySQL", headers=teams.bearer(Role.ADMIN),
                         json={"unscheduled_maintenances": [{"duration": 600}]})
    assert answer.status_code == 204


def test_the_jabber_bot_maps_the_sender_through_a_teams_contact(teams: People) -> None:
    bot = Bot(teams.s, BotSettings())
    assert bot.reply("ack checks /MySQL/ on /db-01/ fixing", "stranger@example.org").startswith("refused")
    assert "Ack list" in bot.reply("ack checks /MySQL/ on /db-01/ fixing", "carol@example.org/laptop")
    assert _acked(teams, *B_CHECK)
    assert bot.reply("ack checks /HTTP/ on /web-01/ mine", "carol@example.org").startswith("refused")


def test_the_overview_filters_my_teams_checks(make_app: Any, teams: People) -> None:
    client = make_app().test_client()
    teams.login(client, Role.RESPONDER)
    page = client.get("/?mine=1").get_data(as_text=True)
    assert "web-01" in page and "db-01" not in page and "misc-01" not in page
    assert 'name="mine"' in page


def test_teams_are_read_by_viewers_and_written_by_admins(make_app: Any, teams: People) -> None:
    client = make_app().test_client()
    admin, viewer = teams.bearer(Role.ADMIN), teams.bearer(Role.VIEWER)
    assert [t["name"] for t in client.get("/api/teams", headers=viewer).get_json()["teams"]] == ["Team A", "Team B"]
    assert client.post("/api/teams", headers=viewer, json={"teams": [{"name": "C"}]}).status_code == 403
    bad = client.post("/api/teams", headers=admin, json={"teams": [{"name": "", "members": "ann"}]})
    assert bad.status_code == 422 and any("members must be a list" in e for e in bad.get_json()["errors"])
    assert client.post("/api/teams", headers=admin, json={"teams": [{"id": "a", "name": "X"}]}).status_code == 409
    patched = client.patch("/api/teams/a", headers={**admin, **PATCH}, json=[
        {"op": "replace", "path": "/teams/0/name", "value": "Web"},
        {"op": "add", "path": "/teams/0/links/members", "value": "bob"},
        {"op": "remove", "path": "/teams/0/links/entities/web-01"}])
    assert patched.status_code == 204
    [team] = client.get("/api/teams/a", headers=viewer).get_json()["teams"]
    assert (team["name"], team["members"], team["entities"]) == ("Web", ["responder", "bob"], [])
    assert client.delete("/api/teams/a", headers=admin).status_code == 204
    assert client.get("/api/teams/a", headers=viewer).status_code == 404
    now = int(time.time())
    assert [(e.actor, e.action, e.target, e.outcome) for e in audit.read(teams.s, now - 60, now + 60)
            if e.kind == "team"] == [
        ("admin", "post_teams", "a,b", "ok"), ("viewer", "post_teams", "", "403"), ("admin", "patch_teams", "a", "ok"),
        ("admin", "delete_teams", "a", "ok")]  # invalid writes (422, 409) change nothing: not recorded


def test_replies_and_chat_bots_act_only_for_the_senders_teams(teams: People) -> None:
    """An SMS reply and a Matrix command act as the contact whose address they come from: carol (team B) may
    acknowledge team B's check, not team A's; an unknown number acts only on checks no team owns."""
    media_store.set_medium(teams.s, "carol", "sms", "+15550100")
    media_store.set_medium(teams.s, "carol", "matrix", "@carol:example.org")
    config = load_config(CONFIG)
    refused = acknowledge_check(teams.s, config, "web-01:HTTP", channel="sms", address="+15550100")
    assert not refused.acted and "not your team's" in refused.answer
    assert acknowledge_check(teams.s, config, "db-01:MySQL", channel="sms", address="+15550100").acted
    assert not acknowledge_check(teams.s, config, "db-01:MySQL", channel="sms", address="+15550199").acted
    assert acknowledge_check(teams.s, config, "misc-01:PING", channel="sms", address="+15550199").acted
    bot = MatrixBot(teams.s, frozenset({"@carol:example.org"}))
    answer = bot._ack("web-01:HTTP", "", "", Actor("matrix:@carol:example.org", "matrix"), int(time.time()))
    assert "no team of theirs owns it" in answer
    assert not _acked(teams, *A_CHECK) and _acked(teams, *B_CHECK) and _acked(teams, *LOOSE)


def test_maintenance_series_need_the_checks_they_cover(make_app: Any, teams: People) -> None:
    """A recurring window is maintenance too: a responder may only cover, change or delete series over checks
    their teams own, through the API and the UI (nothing is stored when refused)."""
    client = make_app().test_client()

    def series(check: str) -> dict[str, Any]:
        return {"maintenance_series": [{"rrule": "FREQ=WEEKLY;BYDAY=SU;BYHOUR=2;BYMINUTE=0", "duration": 3600,
                                        "links": {"checks": [check]}}]}
    refused = client.post("/api/maintenance_series", headers=teams.bearer(Role.RESPONDER), json=series("db-01:MySQL"))
    assert refused.status_code == 403 and "db-01:MySQL" in refused.get_data(as_text=True)
    made = client.post("/api/maintenance_series", headers=teams.bearer(Role.RESPONDER), json=series("web-01:HTTP"))
    assert made.status_code == 201, made.get_data(as_text=True)
    theirs = client.post("/api/maintenance_series", headers=teams.bearer(Role.ADMIN), json=series("db-01:MySQL"))
    assert theirs.status_code == 201
    their_id = theirs.headers["Location"].rsplit("/", 1)[1]
    assert client.delete(f"/api/maintenance_series/{their_id}", headers=teams.bearer(Role.RESPONDER)).status_code == 403
    teams.login(client, Role.RESPONDER)
    form = {"rrule": "FREQ=DAILY;BYHOUR=3;BYMINUTE=0", "duration": "1h", "start": ""}
    assert client.post("/checks/db-01/MySQL/scheduled_maintenance", data=form).status_code == 403
    assert client.post("/checks/web-01/HTTP/scheduled_maintenance", data=form).status_code == 303
