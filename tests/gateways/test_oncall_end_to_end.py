"""End to end: contacts, a schedule and an escalation policy made through the API, an event stream
through the executive, and the emails a real SMTP server (aiosmtpd) receives: the person on call
first, the next level only once its delay has passed without an acknowledgement."""

from __future__ import annotations

import json
from typing import Any

import pytest
import redis

from flapjack_py.config.settings import load_config
from flapjack_py.executive import Executive
from flapjack_py.store.events import push_event
from web import create_app

from .conftest import SmtpServer

pytestmark = pytest.mark.real
E = "db-01.example.com"


def post(client: Any, path: str, body: Any) -> Any:
    response = client.post(path, data=json.dumps(body), content_type="application/vnd.api+json")
    assert response.status_code in (201, 204), response.get_data(as_text=True)
    return response


def recipients(smtp_server: SmtpServer) -> list[str]:
    return [str(m["To"]) for m in smtp_server.messages]


def test_the_person_on_call_then_the_next_level_get_the_mail(redis_server, real_r: redis.Redis,
                                                              smtp_server: SmtpServer, burst, clock) -> None:
    config = load_config({"redis": {"url": redis_server.url},
                          "executive": {"new_check_scheduled_maintenance_duration": 0},
                          "gateways": {"email": {"enabled": True, "retries": 0, "burst_wait": 5, "smtp_config": {
                              "host": "127.0.0.1", "port": smtp_server.port, "from": "fj@example.net"}}}})
    api = create_app(redis=real_r, config=config).test_client()
    executive = Executive(real_r, config)

    def send(state: str) -> None:
        push_event(real_r, {"type": "service", "entity": E, "check": "MySQL", "state": state, "summary": state})
        executive.drain()

    send("ok")
    post(api, "/api/contacts", {"contacts": [
        {"id": name, "first_name": name.title(), "media": {"email": {"address": f"{name}@example.com"}}}
        for name in ("ann", "bob", "cat")]})
    post(api, "/api/schedules", {"schedules": [{"id": "dba", "timezone": "Europe/Berlin", "layers": [
        {"start": "2023-11-13T09:00", "rotation": "P1D", "contacts": ["cat", "ann"]}]}]})  # Tuesday: ann
    entity_id = api.get("/api/entities").get_json(force=True)["entities"][0]["id"]
    post(api, "/api/escalation_policies", {"escalation_policies": [{"id": "db", "levels": [
        {"delay": 0, "targets": [{"schedule": "dba"}]}, {"delay": 600, "targets": [{"contact": "bob"}]}],
        "links": {"entities": [entity_id]}}]})

    send("critical")
    clock.advance(30)
    send("critical")  # the initial failure delay has passed: problem
    burst("email", config)
    assert recipients(smtp_server) == ["ann@example.com"]
    clock.advance(599)
    send("critical")
    burst("email", config)
    assert recipients(smtp_server) == ["ann@example.com"]  # bob's level is not due yet
    clock.advance(1)
    executive.drain()
    burst("email", config)
    assert recipients(smtp_server) == ["ann@example.com", "bob@example.com"]
    clock.advance(60)
    send("ok")
    burst("email", config)
    assert sorted(recipients(smtp_server)[2:]) == ["ann@example.com", "bob@example.com"]
    assert all("Recovery" in str(m["Subject"]) or "recovery" in str(m["Subject"]).lower()
               for m in smtp_server.messages[2:])
