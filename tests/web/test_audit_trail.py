"""The audit trail: a scripted sequence through the UI, the JSON API, the command line and the Jabber bot
writes exactly one entry per action, with the right actor, channel and target; logins (failed ones too) and
token use are recorded; admins read it through GET /api/audit, the audit page and `flapjack audit`."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from click.testing import CliRunner

from flapjack_py.access import Role
from flapjack_py.cli import main
from flapjack_py.errors import ConfigError
from flapjack_py.runtime.embedded_redis import EmbeddedRedis
from flapjack_py.store import audit
from gateways.jabber_bot import Bot, BotSettings

from .conftest import People, known_check

pytestmark = pytest.mark.real
E, C = "web-01", "HTTP"


def _rows(people: People) -> list[tuple[str, str, str, str, str, str]]:
    now = int(time.time())
    return [(e.actor, e.channel, e.action, e.kind, e.target, e.outcome)
            for e in audit.read(people.s, now - 60, now + 60)]


def _flapjack(redis_server: EmbeddedRedis, monkeypatch: pytest.MonkeyPatch, *args: str) -> Any:
    monkeypatch.setenv("FLAPJACK_REDIS_URL", redis_server.url)
    monkeypatch.delenv("FLAPJACK_CONFIG", raising=False)
    monkeypatch.setenv("USER", "opsperson")
    monkeypatch.setattr("getpass.getuser", lambda: "opsperson")
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def test_each_channel_writes_one_entry_with_its_actor(make_app: Any, people: People, redis_server: EmbeddedRedis,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    known_check(people.r, E, C)
    app = make_app()
    ui = app.test_client()
    assert people.login(ui, Role.RESPONDER, password="wrong").status_code == 401
    assert people.login(ui, Role.RESPONDER).status_code == 303
    assert ui.post(f"/checks/{E}/{C}/acknowledge", data={"duration": "1h", "comment": "on it"}).status_code == 303
    api = app.test_client()
    assert api.post("/api/contacts", headers=people.bearer(Role.ADMIN),
                    json={"contacts": [{"id": "ann", "first_name": "Ann", "last_name": "O"}]}).status_code == 201
    assert api.post(f"/api/test_notifications/checks/{E}:{C}", headers=people.bearer(Role.ADMIN),
                    json={"test_notifications": [{"summary": "drill"}]}).status_code == 204
    result = _flapjack(redis_server, monkeypatch, "maintenance", "create", "-e", E, "-c", C, "-r", "patching",
                       "-s", "in 1 hour", "-d", "1h")
    assert result.exit_code == 0, result.output
    reply = Bot(people.s, BotSettings()).reply(f"test notifications for {E}:{C}", "alice@example.org")
    assert "well OK" in reply
    rows = _rows(people)
    token_id = next(e.target for e in audit.read(people.s, 0, int(time.time()) + 60) if e.action == "token_use")
    assert rows == [
        ("responder", "ui", "login", "user", "responder", "refused"),
        ("responder", "ui", "login", "user", "responder", "ok"),
        ("responder", "ui", "acknowledge", "check", f"{E}:{C}", "ok"),
        ("admin", "api", "token_use", "token", token_id, "ok"),
        ("admin", "api", "post_contacts", "contact", "ann", "ok"),
        ("admin", "api", "test_notifications", "check", f"{E}:{C}", "ok"),
        ("opsperson", "cli", "create_scheduled_maintenance", "check", f"{E}:{C}", "ok"),
        ("jabber:alice@example.org", "jabber", "test_notifications", "check", f"{E}:{C}", "ok"),
    ]


def test_ui_writes_and_refused_writes_are_recorded_once(make_app: Any, people: People) -> None:
    ui = make_app().test_client()
    people.login(ui, Role.ADMIN)
    assert ui.post("/contacts", data={"id": "bob", "first_name": "Bob", "last_name": "B"}).status_code == 303
    assert ui.post("/contacts/bob/media", data={"type": "sms", "address": "+49 1", "interval": "60"}).status_code == 303
    other = make_app().test_client()
    people.login(other, Role.VIEWER)
    assert other.post("/contacts/bob/delete").status_code == 403
    assert _rows(people)[1:] == [
        ("admin", "ui", "create_contact", "contact", "bob", "ok"),
        ("admin", "ui", "save_medium", "medium", "bob", "ok"),
        ("viewer", "ui", "login", "user", "viewer", "ok"),
        ("viewer", "ui", "delete_contact", "contact", "bob", "403"),
    ]


def test_admins_read_the_trail_through_api_ui_and_cli(make_app: Any, people: People, redis_server: EmbeddedRedis,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    client = make_app().test_client()
    people.login(client, Role.RESPONDER, password="nope")
    admin = people.bearer(Role.ADMIN)
    assert client.get("/api/audit", headers=people.bearer(Role.RESPONDER)).status_code == 403
    found = client.get("/api/audit", headers=admin, query_string={"actor": "responder", "action": "login",
                                                                  "since": "1 hour ago"}).get_json()["audit"]
    assert [(e["actor"], e["outcome"], e["detail"]) for e in found] == [("responder", "refused", "password")]
    assert found[0]["time"].endswith("Z")
    assert client.get("/api/audit?since=next+blursday", headers=admin).status_code == 400
    assert client.get("/api/audit?limit=0", headers=admin).status_code == 400
    paged = client.get("/api/audit?per_page=1&page=1", headers=admin).get_json()
    assert paged["meta"]["pagination"]["per_page"] == 1
    people.login(client, Role.ADMIN)
    page = client.get("/audit?actor=responder").get_data(as_text=True)
    assert "refused" in page and 'href="/audit"' in page
    result = _flapjack(redis_server, monkeypatch, "audit", "--since", "1h", "--actor", "responder", "--action", "login",
                       "--json")
    assert [json.loads(line)["outcome"] for line in result.stdout.splitlines()] == ["refused"]
    table = _flapjack(redis_server, monkeypatch, "audit", "--actor", "admin").stdout
    assert "login" in table and "user admin" in table


def test_the_retention_setting_is_typed() -> None:
    from flapjack_py.config.settings import load_config

    assert load_config({"web": {"audit_retention": "30 days"}}).web.audit_retention == 30 * 86400
    with pytest.raises(ConfigError, match="audit_retention"):
        load_config({"web": {"audit_retention": "soon"}})


def test_users_and_tokens_made_on_the_command_line_are_recorded(people: People, redis_server: EmbeddedRedis,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    assert _flapjack(redis_server, monkeypatch, "token", "create", "viewer").exit_code == 0
    assert _flapjack(redis_server, monkeypatch, "user", "delete", "viewer").exit_code == 0
    assert [row[:4] for row in _rows(people)] == [("opsperson", "cli", "create_token", "token"),
                                                  ("opsperson", "cli", "delete_user", "user")]
