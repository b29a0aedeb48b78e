"""Executive scenarios on a real Redis: acknowledgements, and ok ending unscheduled maintenance (engine.md 3, 7.1).

How a scenario reads, the defaults and the helpers: scenario_steps.py.
"""

from __future__ import annotations

import pytest
import redis
from scenario_steps import ACK, CHECK, E_C, ENTITY, SCENARIO, T0, TEST, Clock, Keys, Step, um_key, zset

from flapjack_py.model.notification import Notification
from flapjack_py.store import maintenance
from flapjack_py.store.plumbing.client import StrRedis

pytestmark = SCENARIO

# --- acknowledgement -------------------------------------------------------------------


def test_ack_while_critical(step: Step, stored: Keys, real_r: redis.Redis,
                            notifications: list[Notification]) -> None:
    step(T0, state="critical")
    step(T0 + 30, state="critical")
    step(T0 + 35, **ACK, duration=600, summary="on it", acknowledgement_id="5fc8c945")

    assert stored.notified("acknowledgement") == [T0 + 35]
    assert stored.last("acknowledgement") == T0 + 35
    assert stored.text(um_key()) == str(T0 + 35)
    assert real_r.ttl(um_key()) == 600
    assert zset(real_r, f"{E_C}:unscheduled_maintenances") == {T0 + 35: 600}
    assert stored.text(f"{E_C}:{T0 + 35}:unscheduled_maintenance:summary") == "on it"
    ack = notifications[-1]
    assert (ack.type.value, ack.state, ack.severity, ack.duration, ack.summary) == (
        "acknowledgement", "acknowledgement", "critical", 600, "on it")

    step(T0 + 200, state="critical")  # repeat delay long passed, but acknowledged
    step(T0 + 299, state="warning")
    assert stored.notified("problem") == [T0 + 30]

    step(T0 + 300, state="ok")

    assert stored.notified("recovery") == [T0 + 300]
    assert real_r.exists(um_key()) == 0
    assert zset(real_r, f"{E_C}:unscheduled_maintenances") == {T0 + 35: 265}
    assert notifications[-1].severity == "critical"


def test_ack_inside_the_initial_delay_is_notified_with_severity_ok(step: Step, stored: Keys,
                                                                   real_r: redis.Redis,
                                                                   notifications: list[Notification]) -> None:
    step(T0, state="critical")
    step(T0 + 5, **ACK)

    assert stored.all_notified() == {"acknowledgement": [T0 + 5]}
    assert notifications[-1].severity == "ok"
    assert real_r.ttl(um_key()) == 14400  # default 4 hours

    step(T0 + 10, state="ok")  # last notification is the ack: a recovery is generated, ending the maintenance

    assert stored.notified("recovery") == [T0 + 10]
    assert notifications[-1].severity == "ok"
    assert real_r.exists(um_key()) == 0
    assert zset(real_r, f"{E_C}:unscheduled_maintenances") == {T0 + 5: 5}


@pytest.mark.parametrize("duration", [0, -60], ids=["zero", "negative"])
def test_ack_duration_not_positive_means_four_hours(step: Step, real_r: redis.Redis,
                                                    notifications: list[Notification], duration: int) -> None:
    step(T0, state="critical")
    step(T0 + 5, **ACK, duration=duration)

    assert real_r.ttl(um_key()) == 14400
    assert zset(real_r, f"{E_C}:unscheduled_maintenances") == {T0 + 5: 14400}
    assert notifications[-1].duration == 14400


def test_ack_while_ok_is_dropped(step: Step, stored: Keys, real_r: redis.Redis) -> None:
    step(T0, state="ok")
    step(T0 + 5, **ACK, duration=600)

    assert stored.all_notified() == {}
    assert real_r.exists(um_key(), f"{E_C}:unscheduled_maintenances") == 0
    assert real_r.hgetall(f"{E_C}:actions") == {str(T0 + 5).encode(): b"acknowledgement"}


def test_ack_of_a_never_seen_check_registers_it_and_is_dropped(step: Step, stored: Keys,
                                                               real_r: redis.Redis) -> None:
    step(T0, **ACK, entity="new-01", check="Ping")

    assert stored.all_notified("new-01", "Ping") == {}
    assert real_r.zscore("all_checks", "new-01:Ping") == T0
    assert real_r.zscore("all_checks:new-01", "Ping") == T0
    assert real_r.exists("check:new-01:Ping", um_key("new-01", "Ping")) == 0


def test_second_ack_replaces_the_first(step: Step, stored: Keys, real_r: redis.Redis) -> None:
    step(T0, state="critical")
    step(T0 + 30, state="critical")
    step(T0 + 40, **ACK, duration=600, summary="first")
    step(T0 + 100, **ACK, duration=300, summary="second")

    assert stored.notified("acknowledgement") == [T0 + 40, T0 + 100]
    assert zset(real_r, f"{E_C}:unscheduled_maintenances") == {T0 + 40: 60, T0 + 100: 300}
    assert stored.text(um_key()) == str(T0 + 100)
    assert real_r.ttl(um_key()) == 300
    assert stored.text(f"{E_C}:{T0 + 40}:unscheduled_maintenance:summary") == "first"
    assert stored.text(f"{E_C}:{T0 + 100}:unscheduled_maintenance:summary") == "second"


def test_problem_after_ack_expires_is_sent_at_once(step: Step, stored: Keys,
                                                   real_r: redis.Redis) -> None:
    step(T0, state="critical")
    step(T0 + 30, state="critical")
    step(T0 + 40, **ACK, duration=100)
    step(T0 + 139, state="critical")
    assert stored.notified("problem") == [T0 + 30]

    step(T0 + 140, state="critical")  # maintenance over: last type is acknowledgement, so no repeat delay

    assert real_r.exists(um_key()) == 0
    assert stored.notified("problem") == [T0 + 30, T0 + 140]
    step(T0 + 150, state="critical")
    assert stored.notified("problem") == [T0 + 30, T0 + 140]


# --- unscheduled maintenance ended by ok ----------------------------------------------


def test_ok_ends_unscheduled_maintenance_even_when_blocked(step: Step, stored: Keys,
                                                           real_r: redis.Redis, clock: Clock, real_s: StrRedis) -> None:
    step(T0, state="ok")
    maintenance.create_unscheduled(real_s, ENTITY, CHECK, T0 + 10, 3600, "by hand", clock.now)
    assert stored.text(um_key()) == str(T0 + 10)

    step(T0 + 70, state="ok")  # ok -> ok: blocked, but ends the maintenance

    assert real_r.exists(um_key()) == 0
    assert zset(real_r, f"{E_C}:unscheduled_maintenances") == {T0 + 10: 60}
    assert stored.all_notified() == {}


def test_unscheduled_maintenance_blocks_tests_but_not_acks(step: Step, stored: Keys) -> None:
    step(T0, state="critical")
    step(T0 + 5, **ACK, duration=600)
    step(T0 + 10, **TEST)
    step(T0 + 60, state="critical")

    assert stored.all_notified() == {"acknowledgement": [T0 + 5]}
