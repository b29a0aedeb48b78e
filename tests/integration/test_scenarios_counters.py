"""Executive scenarios on a real Redis: rejected events, counters and the events archive (engine.md 1-2, 9).

How a scenario reads, the defaults and the helpers: scenario_steps.py.
"""

from __future__ import annotations

import json
import os
import socket
from typing import Any

import pytest
import redis
from scenario_steps import ACK, E_C, HOUR, SCENARIO, T0, TEST, Clock, Keys, MakeExecutive, Send, Step, at, um_key

from flapjack_py.executive import Executive

pytestmark = SCENARIO

# --- rejects, counters, archive --------------------------------------------------------


def test_rejected_events_are_kept_counted_and_nothing_is_lost(push: Step, executive: Executive,
                                                              real_r: redis.Redis, stored: Keys, clock: Clock) -> None:
    raws = ["not json", '{"type": "service"}', "[]", json.dumps({"type": "service", "state": "ok", "entity": "e",
                                                                 "check": "c", "colour": "red"}),
            json.dumps({"type": 5, "state": "ok", "entity": "e", "check": "c"})]
    push(raw=raws[0])
    push(raw=raws[1])
    push(state="critical")
    push(raw=raws[2])
    push(raw='{"type": "noop"}')
    push(raw=raws[3])
    push(raw=raws[4])

    assert executive.drain() == 7

    assert real_r.lrange(f"events_rejected:{HOUR}", 0, -1) == [r.encode() for r in reversed(raws)]
    assert real_r.ttl(f"events_rejected:{HOUR}") == -1
    assert stored.counters() == {"all": 6, "ok": 0, "failure": 1, "action": 0, "invalid": 5}
    instance = f"event_counters:{socket.getfqdn()}:{os.getpid()}"
    assert stored.counters(instance) == {"all": 6, "ok": 0, "failure": 1, "action": 0, "invalid": 5}
    assert stored.check()["state"] == "critical"
    assert real_r.llen("events") == 0
    assert [k for k in real_r.scan_iter("events_processing:*") if real_r.llen(k)] == []

    at(clock, T0 + 2800)  # 2023-11-14 23:00:00 UTC
    push(raw="{}")
    executive.drain()
    assert real_r.lrange("events_rejected:2023111423", 0, -1) == [b"{}"]
    assert real_r.llen(f"events_rejected:{HOUR}") == 5


def test_service_event_with_action_state_is_counted_invalid_and_ignored(send: Send, stored: Keys,
                                                                        real_r: redis.Redis) -> None:
    send(state="acknowledgement")
    send(state="test_notifications")

    assert stored.counters() == {"all": 2, "ok": 0, "failure": 0, "action": 0, "invalid": 2}
    assert stored.check() == {}
    assert stored.all_notified() == {}
    assert real_r.exists(f"events_rejected:{HOUR}") == 0


def test_counters_per_event_type(push: Step, executive: Executive, stored: Keys,
                                 real_r: redis.Redis, clock: Clock) -> None:
    for state in ("ok", "critical", "warning", "unknown", "ok"):
        push(state=state)
    push(**ACK)
    push(**TEST)
    push(type="action", state="critical")
    push(state="test_notifications")
    push(raw="nope")

    executive.drain()

    expected = {"all": 10, "ok": 2, "failure": 3, "action": 3, "invalid": 2}
    assert stored.counters() == expected
    assert stored.counters(f"event_counters:{socket.getfqdn()}:{os.getpid()}") == expected
    assert stored.text(f"{E_C}:{T0}:count") == "5"  # the counter of the last state change in this second


def test_boot_keeps_existing_counters_and_creates_missing_ones(make_executive: MakeExecutive,
                                                               real_r: redis.Redis, stored: Keys, clock: Clock) -> None:
    real_r.hset("event_counters", mapping={"all": 100, "ok": 7})
    ex = make_executive()

    assert ex.drain() == 0

    assert stored.counters() == {"all": 100, "ok": 7, "failure": 0, "action": 0, "invalid": 0}
    host, pid = socket.getfqdn(), os.getpid()
    assert stored.counters(f"event_counters:{host}:{pid}") == {"all": 0, "ok": 0, "failure": 0, "action": 0,
                                                                "invalid": 0}
    assert real_r.hgetall(f"executive_instance:{host}:{pid}") == {b"boot_time": str(T0).encode()}
    assert real_r.ttl(f"executive_instance:{host}:{pid}") == 1_036_800
    assert real_r.ttl(f"event_counters:{host}:{pid}") == 1_036_800


def test_event_counter_is_stored_with_each_state_change(step: Step, stored: Keys) -> None:
    step(T0, state="ok")
    step(T0 + 1, state="ok")
    step(T0 + 2, state="critical")

    assert stored.text(f"{E_C}:{T0}:count") == "1"
    assert stored.text(f"{E_C}:{T0 + 2}:count") == "3"


@pytest.mark.parametrize(("settings", "ttl"), [({}, 10800), ({"events_archive_maxage": 600}, 600)])
def test_archive(make_executive: MakeExecutive, push: Step, real_r: redis.Redis,
                 settings: dict[str, Any], ttl: int, clock: Clock) -> None:
    ex = make_executive(new_check_scheduled_maintenance_duration=0, archive_events=True, **settings)
    valid = [json.dumps({"type": "service", "state": s, "entity": "e", "check": "c"}) for s in ("ok", "critical")]
    push(raw=valid[0])
    push(raw="invalid")
    push(raw=valid[1])

    ex.drain()

    key = f"events_archive:{HOUR}"
    assert real_r.lrange(key, 0, -1) == [valid[1].encode(), valid[0].encode()]
    assert real_r.ttl(key) == ttl
    assert real_r.smembers("known_events_archive_keys") == {key.encode()}
    assert real_r.lrange(f"events_rejected:{HOUR}", 0, -1) == [b"invalid"]


def test_no_archive_by_default(send: Send, real_r: redis.Redis) -> None:
    send(state="ok")

    assert list(real_r.scan_iter("events_archive:*")) == []
    assert real_r.exists("known_events_archive_keys") == 0


def test_action_events_with_other_states_are_recorded_only(step: Step, stored: Keys,
                                                           real_r: redis.Redis) -> None:
    step(T0, state="critical")
    step(T0 + 30, state="critical")
    step(T0 + 40, **ACK, duration=600)
    step(T0 + 50, type="action", state="ok")  # would end the maintenance in Flapjack 1.6 (D3)

    assert stored.text(um_key()) == str(T0 + 40)
    assert stored.notified("recovery") == []
    assert real_r.hgetall(f"{E_C}:actions") == {str(T0 + 40).encode(): b"acknowledgement",
                                               str(T0 + 50).encode(): b"ok"}
    assert stored.check()["state"] == "critical"
