"""Every action carries who made it: the UI's user, the API token's user, the Jabber sender, the command line.

The actor travels on the action event, is stored with the maintenance window the executive makes, is shown on
the check page and written once to the audit trail (flapjack_py.actions, the one action path)."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from flapjack_py import actions
from flapjack_py.access import Role
from flapjack_py.errors import InvalidEvent
from flapjack_py.executive import Executive
from flapjack_py.model.actors import Actor
from flapjack_py.model.events import parse_event
from flapjack_py.store import audit
from flapjack_py.store import maintenance as maint
from flapjack_py.store.events import push_event

from .conftest import CONFIG, People

pytestmark = pytest.mark.real
E, C = "web-01", "HTTP"


@pytest.fixture
def failing(people: People) -> People:
    push_event(people.r, {"type": "service", "entity": E, "check": C, "state": "critical", "summary": "down"})
    Executive(people.r, CONFIG).drain()
    return people


def _acked_by(people: People) -> Actor | None:
    Executive(people.r, CONFIG).drain()
    start = maint.in_force(people.s, E, C, maint.UNSCHEDULED)
    assert start is not None, "the acknowledgement made no unscheduled maintenance"
    window = next(w for w in maint.list_windows(people.s, E, C, maint.UNSCHEDULED) if w.start == start)
    return window.actor


def _audit_rows(people: People) -> list[tuple[str, str, str, str, str]]:
    now = int(time.time())
    return [(e.actor, e.channel, e.action, e.kind, e.target) for e in audit.read(people.s, now - 60, now + 60)
            if e.kind not in ("user", "token")]  # not the logins and token uses


def test_a_ui_acknowledgement_records_the_user_and_shows_it(make_app: Any, failing: People) -> None:
    client = make_app().test_client()
    failing.login(client, Role.RESPONDER)
    response = client.post(f"/checks/{E}/{C}/acknowledge", data={"duration": "1h", "comment": "on it"})
    assert response.status_code == 303
    assert _acked_by(failing) == Actor("responder", "ui")
    page = client.get(f"/checks/{E}/{C}").get_data(as_text=True)
    assert 'Acknowledged by <strong class="actor">responder</strong> (ui)' in page
    assert _audit_rows(failing) == [("responder", "ui", "acknowledge", "check", f"{E}:{C}")]


def test_an_api_acknowledgement_records_the_token_user(make_app: Any, failing: People) -> None:
    client = make_app().test_client()
    response = client.post(f"/api/unscheduled_maintenances/checks/{E}:{C}", headers=failing.bearer(Role.ADMIN),
                           json={"unscheduled_maintenances": [{"duration": 600, "summary": "deploy"}]})
    assert response.status_code == 204
    assert _acked_by(failing) == Actor("admin", "api")
    entry = audit.read(failing.s, int(time.time()) - 60, int(time.time()) + 60)[0]
    assert (entry.actor, entry.channel, entry.address) == ("admin", "api", "127.0.0.1")


def test_a_scheduled_window_and_its_end_are_attributed(make_app: Any, failing: People) -> None:
    client = make_app().test_client()
    failing.login(client, Role.RESPONDER)
    assert client.post(f"/checks/{E}/{C}/scheduled_maintenance",
                       data={"start": "", "duration": "2h", "summary": "patching"}).status_code == 303
    [window] = maint.list_windows(failing.s, E, C, maint.SCHEDULED)
    assert window.actor == Actor("responder", "ui")
    assert client.post(f"/checks/{E}/{C}/scheduled_maintenance/end", data={"start": str(window.start)}).status_code == 303
    assert [row[2] for row in _audit_rows(failing)] == ["create_scheduled_maintenance", "end_scheduled_maintenance"]


@pytest.mark.parametrize(("fields", "problem"), [
    ({"actor": "mallory", "channel": "telepathy"}, "channel must be one of"),
    ({"actor": "x" * 201, "channel": "cli"}, "actor must be at most 200 characters"),
    ({"actor": "bad\u0007name", "channel": "cli"}, "actor must not contain control characters"),
])
def test_an_action_event_with_a_bad_actor_is_refused(fields: dict[str, str], problem: str) -> None:
    raw = json.dumps({"type": "action", "state": "acknowledgement", "entity": E, "check": C, **fields})
    with pytest.raises(InvalidEvent, match=problem):
        parse_event(raw)


def test_the_command_line_and_jabber_actors(failing: People) -> None:
    actions.acknowledge(failing.s, "events", [(E, C)], duration=600, message="", now=int(time.time()),
                        actor=Actor("jabber:alice@example.org", "jabber"))
    assert _acked_by(failing) == Actor("jabber:alice@example.org", "jabber")
    event_actor = actions.cli_actor()
    assert event_actor.channel == "cli" and event_actor.name
