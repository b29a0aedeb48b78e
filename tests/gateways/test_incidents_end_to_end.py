"""Issue 33's main test: 20 checks of one entity fail within seconds, against a real Redis, the real executive
and a real SMTP server (aiosmtpd): one problem email per contact and medium, one incident of 20 checks;
acknowledging the incident acknowledges all 20; once all recover, one "resolved" email per paged contact and
medium. Then its timeline and postmortem list what happened, in order, with who did it."""

from __future__ import annotations

import json
from typing import Any

import pytest
import redis

from flapjack_py.config.settings import load_config
from flapjack_py.executive import Executive
from flapjack_py.store import maintenance as maint
from flapjack_py.store.events import push_event
from web import create_app

from .conftest import SmtpServer

pytestmark = pytest.mark.real
E = "switch-3.example.com"
CHECKS = [f"HTTP {n:02d}" for n in range(20)]


def post(client: Any, path: str, body: Any, status: tuple[int, ...] = (201, 204)) -> Any:
    response = client.post(path, data=json.dumps(body), content_type="application/json")
    assert response.status_code in status, response.get_data(as_text=True)
    return response


def test_one_outage_one_page_one_acknowledgement_one_resolution(redis_server, real_r: redis.Redis,
                                                                 smtp_server: SmtpServer, burst, clock) -> None:
    config = load_config({"redis": {"url": redis_server.url},
                          "executive": {"new_check_scheduled_maintenance_duration": 0},
                          "gateways": {"email": {"enabled": True, "retries": 0, "burst_wait": 5, "smtp_config": {
                              "host": "127.0.0.1", "port": smtp_server.port, "from": "fj@example.net"}}}})
    api = create_app(redis=real_r, config=config).test_client()
    executive = Executive(real_r, config)

    def send(state: str, checks: list[str] = CHECKS) -> None:
        for check in checks:
            push_event(real_r, {"type": "service", "entity": E, "check": check, "state": state, "summary": state})
        executive.drain()

    def mail() -> list[tuple[str, str]]:
        burst("email", config)
        bodies.extend(m.get_body(("plain",)).get_content() for m in smtp_server.messages)
        found = [(str(m["To"]), str(m["Subject"])) for m in smtp_server.messages]
        smtp_server.messages.clear()
        return sorted(found)

    bodies: list[str] = []
    send("ok")
    post(api, "/api/contacts", {"contacts": [
        {"id": name, "first_name": name.title(), "media": {"email": {"address": f"{name}@example.com"}}}
        for name in ("ann", "bob")]})
    entity_id = api.get("/api/entities").get_json(force=True)["entities"][0]["id"]
    for name in ("ann", "bob"):
        assert api.patch(f"/api/entities/{entity_id}", json=[
            {"op": "add", "path": "/entities/0/links/contacts", "value": name}],
            content_type="application/json-patch+json").status_code == 204

    send("critical", CHECKS[:5])
    clock.advance(3)
    send("critical", CHECKS[5:])
    clock.advance(30)
    send("critical", CHECKS[:5])  # the initial failure delay has passed: problems, a batch and then another
    clock.advance(3)
    send("critical", CHECKS[5:])
    problems = mail()
    assert [to for to, _ in problems] == ["ann@example.com", "bob@example.com"], problems
    [incident] = api.get("/api/incidents?state=open").get_json(force=True)["incidents"]
    assert len(incident["checks"]) == 20 and {c["state"] for c in incident["checks"]} == {"critical"}
    assert incident["title"] == f"entity {E}"

    clock.advance(60)
    post(api, f"/api/incidents/{incident['id']}/notes", {"text": "switch-3 lost power"})
    post(api, f"/api/incidents/{incident['id']}/acknowledge", {"duration": 3600, "message": "on it"})
    executive.drain()
    assert all(maint.in_force(real_r, E, check, maint.UNSCHEDULED) is not None for check in CHECKS)
    assert [to for to, _ in mail()] == ["ann@example.com", "bob@example.com"]  # one acknowledgement each
    acked = api.get(f"/api/incidents/{incident['id']}").get_json(force=True)["incidents"][0]
    assert acked["acknowledged_at"] == clock.now and acked["acknowledged_by"]

    clock.advance(120)
    send("ok", CHECKS[:19])
    assert mail() == []  # per-check recoveries wait for the incident
    clock.advance(10)
    send("ok", CHECKS[19:])
    resolved = mail()
    assert [to for to, _ in resolved] == ["ann@example.com", "bob@example.com"], resolved
    assert all("Recovery" in subject for _, subject in resolved)
    assert all(f"incident {incident['id']} (entity {E}) resolved" in body for body in bodies[-2:]), bodies[-1]
    done = api.get(f"/api/incidents/{incident['id']}").get_json(force=True)["incidents"][0]
    assert done["state"] == "resolved" and done["resolved_at"] == clock.now
    assert api.get("/api/incidents?state=open").get_json(force=True)["incidents"] == []

    timeline = api.get(f"/api/incidents/{incident['id']}/timeline").get_json(force=True)["timeline"]
    kinds = [e["kind"] for e in timeline]
    assert kinds[0] == "opened" and kinds[-1] == "resolved"
    assert [e["at"] for e in timeline] == sorted(e["at"] for e in timeline)
    assert kinds.index("note") < kinds.index("acknowledgement") < kinds.index("recovery")
    pages = [(e["contact"], e["medium"], e["type"]) for e in timeline if e["kind"] == "page"]
    assert sorted(pages) == sorted([("ann", "email", "problem"), ("bob", "email", "problem"),
                                    ("ann", "email", "acknowledgement"), ("bob", "email", "acknowledgement"),
                                    ("ann", "email", "recovery"), ("bob", "email", "recovery")])
    assert all(e.get("alert") for e in timeline if e["kind"] == "page")
    ack = next(e for e in timeline if e["kind"] == "acknowledgement")
    note = next(e for e in timeline if e["kind"] == "note")
    assert (ack["channel"], note["channel"]) == ("api", "api") and ack["actor"] == note["actor"]

    answer = api.get(f"/api/incidents/{incident['id']}/postmortem.md")
    assert answer.status_code == 200 and answer.mimetype == "text/markdown"
    text = answer.get_data(as_text=True)
    for heading in ("## Summary", "## Impact window", "## Timeline", "## Who was paged and when", "## Response"):
        assert heading in text
    assert text.index("incident opened") < text.index("switch-3 lost power") < text.index("incident resolved")
    assert "Time to acknowledge: 1m 3s" in text and "20 checks failed" in text
