"""Issue 14 point 3: the engine's own log lines carry the check, alert and contact ids as fields (which
`logging.format: json` writes as JSON keys)."""

from __future__ import annotations

import logging

import pytest
from notifier_world import World

from flapjack_py.store.plumbing.client import StrRedis

pytestmark = pytest.mark.real


def test_state_change_notification_and_alert_lines_carry_ids(world: World, caplog: pytest.LogCaptureFixture) -> None:
    world.contact("ada", {"email": "ada@example.com"})
    with caplog.at_level(logging.INFO):
        world.fail("critical")
    change = next(r for r in caplog.records if r.getMessage() == "foo:PING: (new) -> critical")
    assert change.check == "foo:PING"  # type: ignore[attr-defined]
    notified = next(r for r in caplog.records if "problem notification" in r.getMessage())
    assert (notified.check, notified.event_count) == ("foo:PING", 2)  # type: ignore[attr-defined]
    alert_line = next(r for r in caplog.records if "problem alert" in r.getMessage())
    record = world.alert_records()[0]
    assert (alert_line.alert_id, alert_line.check, alert_line.contact) == (record["id"], "foo:PING", "ada")  # type: ignore[attr-defined]


def test_gateway_delivery_lines_carry_ids(real_r, caplog: pytest.LogCaptureFixture, real_s: StrRedis) -> None:
    from gateways.base import record_delivered, record_failed

    alert = {"id": "a1", "media": "email", "contact": "ada", "check": "foo:PING"}
    with caplog.at_level(logging.INFO):
        record_delivered(real_s, alert)
        record_failed(real_s, alert, "refused")
    delivered, failed = (r for r in caplog.records if r.name == "gateways.base")
    assert (delivered.alert_id, delivered.check, delivered.contact) == ("a1", "foo:PING", "ada")  # type: ignore[attr-defined]
    assert (failed.alert_id, failed.check) == ("a1", "foo:PING")  # type: ignore[attr-defined]
