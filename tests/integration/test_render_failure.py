"""A template that fails at run time fails that alert only: never the event, its state or its other alerts
(issue 16: email template missing, contact with email and sms)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from notifier_world import World
from rq import Queue
from rq.serializers import JSONSerializer

from flapjack_py.executive import Executive

pytestmark = pytest.mark.real


def test_a_missing_email_template_fails_the_email_alert_only(world: World, tmp_path: Path) -> None:
    template = tmp_path / "alert.text"
    template.write_text("Hi {{ first_name }}")
    config = dict(world.config, gateways={
        "email": {"enabled": True, "templates": {"alert.text": str(template)}},
        "sms": {"enabled": True, "username": "u", "password": "p"}})
    executive = Executive(world.r, config)  # the override is checked, and fine, at startup
    template.unlink()  # ... and gone by the time the first alert renders
    world.contact("ada", {"email": "ada@example.com", "sms": "+61400000000"})
    world.r.lpush("events", json.dumps({"type": "service", "state": "critical", "entity": "foo", "check": "PING",
                                        "summary": "down", "initial_failure_delay": 0}))
    assert executive.drain() == 1

    assert world.r.hget("check:foo:PING", "state") == b"critical"  # the event's state is stored
    records = {a["media"]: a for a in world.alert_records()}
    assert records["sms"]["status"] == "queued"
    assert records["sms"]["body"].startswith("Problem: 'PING' on foo is Critical")
    assert records["email"]["status"] == "failed"
    assert "rendering failed" in records["email"]["error"] and "alert.text" in records["email"]["error"]
    assert Queue("sms", connection=world.r, serializer=JSONSerializer).job_ids == [records["sms"]["id"]]
    assert Queue("email", connection=world.r, serializer=JSONSerializer).job_ids == []
    assert not [k for k in world.r.scan_iter(match="events_rejected:*")]
