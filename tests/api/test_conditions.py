"""GET /api/stale_checks (issue 14 point 5), with moved time."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import redis
from flask.testing import FlaskClient

from flapjack_py.executive import Executive
from flapjack_py.store.events import push_event
from flapjack_py.store.plumbing.client import StrRedis

pytestmark = pytest.mark.real


def test_stale_checks_listed_longest_silent_first(client: FlaskClient, send: Callable[..., None],
                                                  drain: Callable[[], int], clock: Any) -> None:
    for _ in range(3):
        send("web-01", "HTTP", "ok")
        send("db-01", "MySQL", "ok")
        clock.advance(60)
    db_heard = clock.now - 60
    send("web-01", "HTTP", "ok")
    web_heard = clock.now
    assert client.get("/api/stale_checks").get_json() == {"stale_checks": []}
    clock.advance(180)
    drain()  # the executive's housekeeping finds them
    assert client.get("/api/stale_checks").get_json() == {"stale_checks": [
        {"id": "db-01:MySQL", "last_heard": db_heard, "silent_for": 240},
        {"id": "web-01:HTTP", "last_heard": web_heard, "silent_for": 180}]}
    send("db-01", "MySQL", "ok")  # heard from again: no longer listed, even before the next sweep
    assert [c["id"] for c in client.get("/api/stale_checks").get_json()["stale_checks"]] == ["web-01:HTTP"]


def test_flapping_checks_listed_with_their_percent(client: FlaskClient, real_r: redis.Redis, clock: Any, real_s: StrRedis) -> None:
    executive = Executive(real_r, {"executive": {"flap_detection": True,
                                                 "new_check_scheduled_maintenance_duration": 0}})
    for state in ["ok", "critical", "ok", "critical", "ok"]:
        clock.advance(60)
        push_event(real_s, {"type": "service", "entity": "web-01", "check": "HTTP", "state": state})
        executive.drain()
    assert client.get("/api/flapping_checks").get_json() == {"flapping_checks": [
        {"id": "web-01:HTTP", "since": clock.now, "percent_state_change": 24.21}]}
    page = client.get("/checks/web-01/HTTP").get_data(as_text=True)
    assert "Flapping since" in page and "24.21 % state change" in page
