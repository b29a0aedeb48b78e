"""flapjack_py.runtime.health.assess and the watchdog's decision: pure, no Redis."""

from __future__ import annotations

from typing import Any

import pytest

from flapjack_py.config.settings import load_config
from flapjack_py.model.heartbeat import Heartbeat, parse_heartbeat
from flapjack_py.runtime.health import assess, span
from flapjack_py.runtime.watchdog import Announcement, Notice, due
from flapjack_py.store.health import HealthInputs

NOW = 1_700_000_000


def beat(role: str = "executive", at: int = NOW - 3, medium: str = "") -> Heartbeat:
    return Heartbeat(role=role, host="h", pid=1, started=NOW - 100, medium=medium, at=at)


def inputs(**over: Any) -> HealthInputs:
    base = HealthInputs(executives=[beat()], last_executive_beat=NOW - 3, checks=4)
    for name, value in over.items():
        setattr(base, name, value)
    return base


def config(**over: Any) -> Any:
    return load_config({"watchdog": {"heartbeat_timeout": 30, "max_queue_age": 60, **over.pop("watchdog", {})},
                        **over})


def test_a_fresh_executive_and_a_moving_queue_is_ok() -> None:
    health = assess(inputs(queue_length=5, queue_age=10), config(), NOW)
    assert health.ok and health.status == "ok" and health.reasons == ()
    assert health.to_json()["executives"] == {"alive": 1, "last_heartbeat_age": 3}


def test_no_executive_heartbeat_names_how_long() -> None:
    health = assess(inputs(executives=[], last_executive_beat=NOW - 180), config(), NOW)
    assert health.reasons == ("No executive has processed events for 3 min — alerts are not being sent",)
    assert health.to_json()["status"] == "failing"


def test_a_stale_heartbeat_counts_as_gone() -> None:
    health = assess(inputs(executives=[beat(at=NOW - 31)], last_executive_beat=NOW - 31), config(), NOW)
    assert not health.ok and "31 s" in health.reasons[0]


def test_an_install_where_no_executive_ever_ran() -> None:
    health = assess(inputs(executives=[], last_executive_beat=None), config(), NOW)
    assert health.reasons[0].startswith("No executive has run yet")


def test_an_old_queue_head_fails() -> None:
    assert assess(inputs(queue_length=3, queue_age=60), config(), NOW).ok
    health = assess(inputs(queue_length=3, queue_age=61), config(), NOW)
    assert health.reasons == ("The oldest queued event has waited 61 s (3 queued) — events are not being "
                              "processed in time",)


def test_an_enabled_gateway_needs_a_live_worker_and_few_failures() -> None:
    cfg = config(gateways={"email": {"enabled": True}, "sms": {"enabled": False}})
    health = assess(inputs(), cfg, NOW)
    assert health.reasons == ("Gateway email has no live worker — email alerts are not being delivered",)
    live = {"email": [beat("gateway", medium="email")]}
    assert assess(inputs(gateways=live, recent_failures={"email": 2}), cfg, NOW).ok
    failing = assess(inputs(gateways=live, recent_failures={"email": 3}), cfg, NOW)
    assert failing.reasons == ("Gateway email: 3 alerts failed in the last 5 min",)
    assert failing.gateways == {"email": {"workers": 1, "recent_failures": 3}}


@pytest.mark.parametrize(("seconds", "text"), [(0, "0 s"), (119, "119 s"), (180, "3 min"), (7200, "2 h"),
                                               (3 * 86400, "3 days")])
def test_span(seconds: int, text: str) -> None:
    assert span(seconds) == text


def test_heartbeat_round_trip_and_old_values() -> None:
    one = beat()
    assert parse_heartbeat(one.to_json()) == one
    assert parse_heartbeat(b"1700000000") is None and parse_heartbeat(None) is None


@pytest.mark.parametrize(("healthy", "since", "now", "expected"), [
    (True, None, NOW, Announcement.BACK),
    (False, NOW - 59, NOW, None),
    (False, NOW - 60, NOW, Announcement.DOWN),
    (False, None, NOW, None),
])
def test_due(healthy: bool, since: float | None, now: float, expected: Announcement | None) -> None:
    assert due(healthy, since, now, 60) == expected


def test_notice_text() -> None:
    down = Notice(Announcement.DOWN, ("No executive has processed events for 3 min",), NOW)
    assert down.subject == "Flapjack: monitoring is down"
    assert "- No executive has processed events for 3 min" in down.body and "2023-11-14 22:13:20 UTC" in down.body
    assert Notice(Announcement.BACK, (), NOW).subject == "Flapjack: monitoring is back"
