"""Executive scenarios on a real Redis, moving time step by step (engine.md 1-4, 7.1-7.2, 9).

Each step pushes one event, drains the executive and checks whether a
notification was generated: the executive's own record of it is the
E:C:<type>_notifications lists and E:C:last_<type>_notification keys (4.1 step 2).
Defaults: initial failure delay 30 s, repeat failure delay 60 s.
"""

from __future__ import annotations

import json
import os
import socket
from collections.abc import Callable
from typing import Any

import pytest
import redis

from flapjack_py.executive import Executive
from flapjack_py.notification import Notification
from flapjack_py.store import maintenance

ENTITY = "web-01.example.com"  # the event builder's defaults (conftest.make_event)
CHECK = "HTTP"
Keys = Any  # conftest.Keys: decoded reads of what the executive wrote
pytestmark = [pytest.mark.real, pytest.mark.usefixtures("notifications", "clock")]

T0 = 1_700_000_000  # clock START: 2023-11-14 22:13:20 UTC
HOUR = "2023111422"
E_C = f"{ENTITY}:{CHECK}"
ACK = {"type": "action", "state": "acknowledgement"}
TEST = {"type": "action", "state": "test_notifications"}
Send = Callable[..., int]


def at(clock: Any, t: int) -> None:
    """Move the clock forward to absolute time `t`."""
    assert t >= clock.now, "time only moves forward"
    if t > clock.now:
        clock.advance(t - clock.now)


@pytest.fixture
def step(send: Send, clock: Any) -> Callable[..., None]:
    """`step(t, **event)`: at time t (absolute) send one event and drain."""
    def do(t: int, **over: Any) -> None:
        at(clock, t)
        assert send(**over) == 1
    return do


def um_key(entity: str = ENTITY, check: str = CHECK) -> str:
    return f"{entity}:{check}:unscheduled_maintenance"


def sm_key(entity: str = ENTITY, check: str = CHECK) -> str:
    return f"{entity}:{check}:scheduled_maintenance"


def zset(client: redis.Redis, key: str) -> dict[int, int]:
    return {int(m): int(s) for m, s in client.zrange(key, 0, -1, withscores=True)}


# --- initial failure delay -------------------------------------------------------------


def test_ok_to_critical_inside_and_past_the_initial_delay(step: Callable[..., None], stored: Keys,
                                                          notifications: list[Notification]) -> None:
    step(T0, state="ok", summary="fine")
    step(T0 + 10, state="critical", summary="down")
    for t in (T0 + 11, T0 + 29, T0 + 39):  # failing 1, 19, 29 s
        step(t, state="critical", summary="down")
        assert stored.all_notified() == {}, t

    step(T0 + 40, state="critical", summary="down")  # failing 30 s

    assert stored.all_notified() == {"problem": [T0 + 40], "critical": [T0 + 40]}
    assert stored.last("problem") == stored.last("critical") == T0 + 40
    assert len(notifications) == 1
    n = notifications[0]
    assert (n.type.value, n.state, n.severity) == ("problem", "critical", "critical")
    assert (n.event_id, n.entity, n.check) == (E_C, ENTITY, CHECK)
    assert (n.state_duration, n.last_state, n.last_summary, n.summary) == (30, "ok", "fine", "down")
    assert n.count == 6  # sixth event counted
    assert n.event_hash == "5fc8c945"


def test_first_event_failing_waits_the_initial_delay_from_itself(step: Callable[..., None], stored: Keys,
                                                                 notifications: list[Notification]) -> None:
    step(T0, state="warning")
    step(T0 + 29, state="warning")
    assert stored.all_notified() == {}

    step(T0 + 30, state="warning")

    assert stored.all_notified() == {"problem": [T0 + 30], "warning": [T0 + 30]}
    assert (notifications[0].severity, notifications[0].last_state, notifications[0].state_duration) == (
        "warning", None, 30)


def test_brief_failure_sends_nothing(step: Callable[..., None], stored: Keys) -> None:
    step(T0, state="ok")
    step(T0 + 10, state="critical")
    step(T0 + 35, state="ok")  # back before the failure was 30 s old
    step(T0 + 100, state="ok")

    assert stored.all_notified() == {}


def test_events_own_time_is_ignored_for_timing(step: Callable[..., None], stored: Keys,
                                               notifications: list[Notification]) -> None:
    step(T0, state="critical", time=T0 - 3600)
    step(T0 + 1, state="critical", time=T0 - 3600)  # claims to be an hour old: still only 1 s of failure
    assert stored.all_notified() == {}

    step(T0 + 30, state="critical", time=12345)

    assert stored.notified("problem") == [T0 + 30]
    assert notifications[0].time == 12345
    assert stored.check()["last_change"] == str(T0)


@pytest.mark.parametrize(("ifd", "held", "passes"), [(5, 4, 5), (0, None, 0), (-1, 29, 30), (120, 119, 120)],
                         ids=["5s", "zero", "negative-is-default", "120s"])
def test_per_event_initial_failure_delay(step: Callable[..., None], stored: Keys, ifd: int, held: int | None,
                                         passes: int) -> None:
    step(T0, state="critical", initial_failure_delay=ifd)
    if held is not None:
        step(T0 + held, state="critical", initial_failure_delay=ifd)
        assert stored.all_notified() == {}
    step(T0 + passes, state="critical", initial_failure_delay=ifd)

    assert stored.notified("problem") == [T0 + passes]


def test_configured_default_delays(make_executive: Callable[..., Executive], push: Callable[..., None], clock: Any,
                                   stored: Keys) -> None:
    ex = make_executive(new_check_scheduled_maintenance_duration=0, initial_failure_delay=100,
                        repeat_failure_delay=200)
    for t in (T0, T0 + 99, T0 + 100, T0 + 299, T0 + 300):
        at(clock, t)
        push(state="critical")
        ex.drain()

    assert stored.notified("problem") == [T0 + 100, T0 + 300]
    assert (stored.check()["initial_failure_delay"], stored.check()["repeat_failure_delay"]) == ("100", "200")


# --- repeat failure delay --------------------------------------------------------------


def test_repeat_failure_delay(step: Callable[..., None], stored: Keys) -> None:
    step(T0, state="critical")
    step(T0 + 30, state="critical")
    assert stored.notified("problem") == [T0 + 30]

    step(T0 + 31, state="critical")
    step(T0 + 89, state="critical")  # 59 s after the problem
    assert stored.notified("problem") == [T0 + 30]

    step(T0 + 90, state="critical")  # 60 s
    step(T0 + 91, state="critical")
    step(T0 + 149, state="critical")
    step(T0 + 150, state="critical")

    assert stored.notified("problem") == [T0 + 30, T0 + 90, T0 + 150]
    assert stored.notified("critical") == [T0 + 30, T0 + 90, T0 + 150]
    assert stored.last("problem") == T0 + 150


def test_per_event_repeat_failure_delay_only_holds_while_sent(step: Callable[..., None], stored: Keys) -> None:
    step(T0, state="critical", repeat_failure_delay=10)
    step(T0 + 30, state="critical", repeat_failure_delay=10)
    step(T0 + 39, state="critical", repeat_failure_delay=10)
    step(T0 + 40, state="critical", repeat_failure_delay=10)
    assert stored.notified("problem") == [T0 + 30, T0 + 40]
    assert stored.check()["repeat_failure_delay"] == "10"

    step(T0 + 55, state="critical")  # no delay in the event: back to the default 60
    assert stored.check()["repeat_failure_delay"] == "60"
    assert stored.notified("problem") == [T0 + 30, T0 + 40]

    step(T0 + 100, state="critical", repeat_failure_delay=-5)  # negative = default
    assert stored.notified("problem") == [T0 + 30, T0 + 40, T0 + 100]
    step(T0 + 159, state="critical", repeat_failure_delay=-5)
    assert stored.notified("problem") == [T0 + 30, T0 + 40, T0 + 100]


# --- recovery --------------------------------------------------------------------------


def test_critical_to_ok_recovery(step: Callable[..., None], stored: Keys, notifications: list[Notification]) -> None:
    step(T0, state="critical", summary="down")
    step(T0 + 30, state="critical", summary="down")
    step(T0 + 40, state="ok", summary="up")

    assert stored.all_notified() == {"problem": [T0 + 30], "critical": [T0 + 30], "recovery": [T0 + 40]}
    rec = notifications[-1]
    assert (rec.type.value, rec.state, rec.severity, rec.state_duration) == ("recovery", "ok", "critical", 0)
    assert (rec.last_state, rec.last_summary) == ("critical", "down")

    step(T0 + 50, state="ok")
    step(T0 + 500, state="ok")
    assert stored.notified("recovery") == [T0 + 40]


def test_notified_severity_resets_after_a_recovery(step: Callable[..., None], stored: Keys,
                                                   notifications: list[Notification]) -> None:
    step(T0, state="critical")
    step(T0 + 30, state="critical")
    step(T0 + 40, state="ok")
    step(T0 + 50, state="warning")
    step(T0 + 80, state="warning")
    step(T0 + 90, state="ok")

    assert stored.notified("problem") == [T0 + 30, T0 + 80]
    assert stored.notified("warning") == [T0 + 80]
    assert [(n.type.value, n.severity) for n in notifications] == [
        ("problem", "critical"), ("recovery", "critical"), ("problem", "warning"), ("recovery", "warning")]


def test_severity_escalation_sticks_until_recovery(step: Callable[..., None], stored: Keys,
                                                   notifications: list[Notification]) -> None:
    step(T0, state="critical")
    step(T0 + 30, state="critical")
    step(T0 + 40, state="warning")
    step(T0 + 70, state="warning")  # warning 30 s old; last type critical, so no repeat delay
    step(T0 + 80, state="ok")

    assert stored.all_notified() == {"problem": [T0 + 30, T0 + 70], "critical": [T0 + 30], "warning": [T0 + 70],
                                     "recovery": [T0 + 80]}
    assert [(n.type.value, n.state, n.severity) for n in notifications] == [
        ("problem", "critical", "critical"), ("problem", "warning", "critical"), ("recovery", "ok", "critical")]
    assert notifications[1].last_state == "critical"


# --- acknowledgement -------------------------------------------------------------------


def test_ack_while_critical(step: Callable[..., None], stored: Keys, real_r: redis.Redis,
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


def test_ack_inside_the_initial_delay_is_notified_with_severity_ok(step: Callable[..., None], stored: Keys,
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
def test_ack_duration_not_positive_means_four_hours(step: Callable[..., None], real_r: redis.Redis,
                                                    notifications: list[Notification], duration: int) -> None:
    step(T0, state="critical")
    step(T0 + 5, **ACK, duration=duration)

    assert real_r.ttl(um_key()) == 14400
    assert zset(real_r, f"{E_C}:unscheduled_maintenances") == {T0 + 5: 14400}
    assert notifications[-1].duration == 14400


def test_ack_while_ok_is_dropped(step: Callable[..., None], stored: Keys, real_r: redis.Redis) -> None:
    step(T0, state="ok")
    step(T0 + 5, **ACK, duration=600)

    assert stored.all_notified() == {}
    assert real_r.exists(um_key(), f"{E_C}:unscheduled_maintenances") == 0
    assert real_r.hgetall(f"{E_C}:actions") == {str(T0 + 5).encode(): b"acknowledgement"}


def test_ack_of_a_never_seen_check_registers_it_and_is_dropped(step: Callable[..., None], stored: Keys,
                                                               real_r: redis.Redis) -> None:
    step(T0, **ACK, entity="new-01", check="Ping")

    assert stored.all_notified("new-01", "Ping") == {}
    assert real_r.zscore("all_checks", "new-01:Ping") == T0
    assert real_r.zscore("all_checks:new-01", "Ping") == T0
    assert real_r.exists("check:new-01:Ping", um_key("new-01", "Ping")) == 0


def test_second_ack_replaces_the_first(step: Callable[..., None], stored: Keys, real_r: redis.Redis) -> None:
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


def test_problem_after_ack_expires_is_sent_at_once(step: Callable[..., None], stored: Keys,
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


def test_ok_ends_unscheduled_maintenance_even_when_blocked(step: Callable[..., None], stored: Keys,
                                                           real_r: redis.Redis, clock: Any) -> None:
    step(T0, state="ok")
    maintenance.create_unscheduled(real_r, ENTITY, CHECK, T0 + 10, 3600, "by hand", clock.now)
    assert stored.text(um_key()) == str(T0 + 10)

    step(T0 + 70, state="ok")  # ok -> ok: blocked, but ends the maintenance

    assert real_r.exists(um_key()) == 0
    assert zset(real_r, f"{E_C}:unscheduled_maintenances") == {T0 + 10: 60}
    assert stored.all_notified() == {}


def test_unscheduled_maintenance_blocks_tests_but_not_acks(step: Callable[..., None], stored: Keys) -> None:
    step(T0, state="critical")
    step(T0 + 5, **ACK, duration=600)
    step(T0 + 10, **TEST)
    step(T0 + 60, state="critical")

    assert stored.all_notified() == {"acknowledgement": [T0 + 5]}


# --- scheduled maintenance -------------------------------------------------------------


def test_scheduled_maintenance_then_its_end(step: Callable[..., None], stored: Keys, real_r: redis.Redis,
                                            clock: Any) -> None:
    step(T0, state="critical")
    step(T0 + 30, state="critical")
    maintenance.create_scheduled(real_r, ENTITY, CHECK, T0 + 60, 300, "patching", clock.now)
    assert real_r.exists(sm_key()) == 0  # not started yet

    step(T0 + 90, state="critical")  # repeat delay passed, but in maintenance [T0+60, T0+360)
    assert stored.text(sm_key()) == str(T0 + 60)
    assert real_r.ttl(sm_key()) == 270
    step(T0 + 100, **ACK, duration=600)
    step(T0 + 110, **TEST)
    step(T0 + 359, state="critical")
    assert stored.all_notified() == {"problem": [T0 + 30], "critical": [T0 + 30]}
    assert real_r.exists(um_key()) == 0  # an ack during scheduled maintenance creates no unscheduled one

    step(T0 + 360, state="critical")

    assert real_r.exists(sm_key()) == 0
    assert stored.notified("problem") == [T0 + 30, T0 + 360]
    assert zset(real_r, f"{E_C}:scheduled_maintenances") == {T0 + 60: 300}
    assert stored.text(f"{E_C}:{T0 + 60}:scheduled_maintenance:summary") == "patching"


def test_scheduled_maintenance_ended_early(step: Callable[..., None], stored: Keys, real_r: redis.Redis,
                                           clock: Any) -> None:
    step(T0, state="critical")
    maintenance.create_scheduled(real_r, ENTITY, CHECK, T0, 3600, "window", clock.now)
    step(T0 + 100, state="critical")
    assert stored.all_notified() == {}

    at(clock, T0 + 200)
    assert maintenance.end_scheduled(real_r, ENTITY, CHECK, T0, clock.now) is True
    assert real_r.exists(sm_key()) == 0
    assert zset(real_r, f"{E_C}:scheduled_maintenances") == {T0: 200}
    step(T0 + 201, state="critical")

    assert stored.notified("problem") == [T0 + 201]


def test_scheduled_window_starting_later_blocks_an_ack_without_a_service_event(
        step: Callable[..., None], stored: Keys, real_r: redis.Redis, clock: Any) -> None:
    step(T0, state="critical")
    step(T0 + 30, state="critical")
    maintenance.create_scheduled(real_r, ENTITY, CHECK, T0 + 40, 600, "later", clock.now)

    step(T0 + 50, **ACK)  # the window began after the last service event: refreshed before filtering (D6)

    assert stored.notified("acknowledgement") == []
    assert real_r.exists(um_key()) == 0
    assert stored.text(sm_key()) == str(T0 + 40)


# --- oscillation and unknowns ----------------------------------------------------------


def test_oscillating_ok_critical(step: Callable[..., None], stored: Keys) -> None:
    step(T0, state="ok")
    t = T0
    for _ in range(4):  # flipping every 20 s, faster than the 30 s initial delay
        t += 20
        step(t, state="critical")
        assert stored.check()["last_change"] == str(t)
        step(t + 10, state="critical")
        t += 20
        step(t, state="ok")
        assert stored.check()["last_change"] == str(t)
    assert stored.all_notified() == {}

    step(t + 20, state="critical")
    step(t + 40, state="critical")
    step(t + 50, state="critical")  # failing 30 s
    step(t + 60, state="ok")
    step(t + 70, state="ok")
    step(t + 80, state="critical")
    step(t + 90, state="ok")

    assert stored.all_notified() == {"problem": [t + 50], "critical": [t + 50], "recovery": [t + 60]}


def test_stream_of_unknowns_after_a_notified_critical(step: Callable[..., None], stored: Keys,
                                                      notifications: list[Notification]) -> None:
    step(T0, state="critical")
    step(T0 + 30, state="critical")
    assert stored.notified("problem") == [T0 + 30]

    step(T0 + 40, state="unknown")  # state change restarts the initial delay
    step(T0 + 50, state="unknown")
    step(T0 + 69, state="unknown")
    assert stored.notified("problem") == [T0 + 30]

    step(T0 + 70, state="unknown")  # 30 s unknown; last type critical != unknown: no repeat delay
    assert stored.notified("problem") == [T0 + 30, T0 + 70]
    assert stored.notified("unknown") == [T0 + 70]
    assert notifications[-1].severity == "critical"  # critical notified since the last recovery
    assert (notifications[-1].last_state, notifications[-1].state_duration) == ("critical", 30)

    for t in (T0 + 71, T0 + 100, T0 + 129):
        step(t, state="unknown")
    assert stored.notified("problem") == [T0 + 30, T0 + 70]

    step(T0 + 130, state="unknown")

    assert stored.notified("problem") == [T0 + 30, T0 + 70, T0 + 130]
    assert stored.notified("unknown") == [T0 + 70, T0 + 130]
    assert stored.notified("critical") == [T0 + 30]


# --- test notifications ----------------------------------------------------------------


def test_test_notification_for_a_never_seen_check(step: Callable[..., None], stored: Keys, real_r: redis.Redis,
                                                  notifications: list[Notification]) -> None:
    step(T0, **TEST, entity="db-01", check="MySQL", summary="testing")

    assert stored.all_notified("db-01", "MySQL") == {"test": [T0]}
    assert stored.last("test", "db-01", "MySQL") == T0
    assert real_r.zscore("all_checks", "db-01:MySQL") == T0
    assert real_r.hget("all_entity_ids_by_name", "db-01") is not None
    n = notifications[-1]
    assert (n.type.value, n.state, n.severity, n.summary) == ("test", "test_notifications", "critical", "testing")


def test_test_notifications_do_not_count_as_last_notification(step: Callable[..., None], stored: Keys) -> None:
    step(T0, state="critical")
    step(T0 + 1, **TEST)
    step(T0 + 2, **TEST)
    step(T0 + 10, state="critical")  # still inside the initial delay after a test
    assert stored.all_notified() == {"test": [T0 + 1, T0 + 2]}

    step(T0 + 20, state="ok")  # nothing but tests notified: no recovery

    assert stored.all_notified() == {"test": [T0 + 1, T0 + 2]}


# --- new-check scheduled maintenance ---------------------------------------------------


@pytest.mark.parametrize("first_state", ["critical", "ok"])
def test_new_check_scheduled_maintenance_default_blocks_for_100_years(
        make_executive: Callable[..., Executive], push: Callable[..., None], clock: Any, stored: Keys,
        real_r: redis.Redis, first_state: str) -> None:
    ex = make_executive()
    push(state=first_state)
    ex.drain()

    assert stored.text(sm_key()) == str(T0)
    assert real_r.ttl(sm_key()) == 3_155_760_000
    assert zset(real_r, f"{E_C}:scheduled_maintenances") == {T0: 3_155_760_000}
    assert stored.text(f"{E_C}:{T0}:scheduled_maintenance:summary") == "Automatically created for new check"

    for days in (1, 30, 365):
        at(clock, T0 + days * 86400)
        push(state="critical")
        push(**ACK)
        push(**TEST)
        ex.drain()
    assert stored.all_notified() == {}
    assert real_r.exists(um_key()) == 0


def test_new_check_scheduled_maintenance_is_created_once(make_executive: Callable[..., Executive],
                                                         push: Callable[..., None], clock: Any,
                                                         real_r: redis.Redis) -> None:
    ex = make_executive(new_check_scheduled_maintenance_duration="1 hour")
    push(state="critical")
    ex.drain()
    assert real_r.ttl(sm_key()) == 3600

    at(clock, T0 + 3600)
    push(state="critical")
    ex.drain()

    assert real_r.exists(sm_key()) == 0
    assert zset(real_r, f"{E_C}:scheduled_maintenances") == {T0: 3600}
    assert real_r.lrange(f"{E_C}:problem_notifications", 0, -1) == [str(T0 + 3600).encode()]


@pytest.mark.parametrize(("ignore", "tags", "skipped"), [
    (["nosm"], ["nosm"], True),
    (["nosm"], ["other", "nosm"], True),
    (["web-01"], [], True),  # derived from the entity name
    (["example.com"], [], True),
    (["http"], [], True),  # derived from the check name, lower-cased
    (["nosm"], ["NOSM"], False),
    (["nosm"], [], False),
    ([], ["nosm"], False),
])
def test_new_check_scheduled_maintenance_ignore_tags(make_executive: Callable[..., Executive],
                                                     push: Callable[..., None], real_r: redis.Redis,
                                                     ignore: list[str], tags: list[str], skipped: bool) -> None:
    ex = make_executive(new_check_scheduled_maintenance_ignore_tags=ignore)
    push(state="critical", tags=tags)
    ex.drain()

    assert real_r.exists(sm_key(), f"{E_C}:scheduled_maintenances") == (0 if skipped else 2)


# --- rejects, counters, archive --------------------------------------------------------


def test_rejected_events_are_kept_counted_and_nothing_is_lost(push: Callable[..., None], executive: Executive,
                                                              real_r: redis.Redis, stored: Keys, clock: Any) -> None:
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


def test_counters_per_event_type(push: Callable[..., None], executive: Executive, stored: Keys,
                                 real_r: redis.Redis, clock: Any) -> None:
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


def test_boot_keeps_existing_counters_and_creates_missing_ones(make_executive: Callable[..., Executive],
                                                               real_r: redis.Redis, stored: Keys, clock: Any) -> None:
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


def test_event_counter_is_stored_with_each_state_change(step: Callable[..., None], stored: Keys) -> None:
    step(T0, state="ok")
    step(T0 + 1, state="ok")
    step(T0 + 2, state="critical")

    assert stored.text(f"{E_C}:{T0}:count") == "1"
    assert stored.text(f"{E_C}:{T0 + 2}:count") == "3"


@pytest.mark.parametrize(("settings", "ttl"), [({}, 10800), ({"events_archive_maxage": 600}, 600)])
def test_archive(make_executive: Callable[..., Executive], push: Callable[..., None], real_r: redis.Redis,
                 settings: dict[str, Any], ttl: int, clock: Any) -> None:
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


def test_action_events_with_other_states_are_recorded_only(step: Callable[..., None], stored: Keys,
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


# --- tags and re-enabling --------------------------------------------------------------


def test_notification_tags_merge_event_check_and_derived_tags(step: Callable[..., None], real_r: redis.Redis,
                                                              notifications: list[Notification]) -> None:
    real_r.sadd("check_tag:team-a", E_C)
    real_r.sadd("known_tag:check_tag", "team-a")
    real_r.sadd("check_tag:team-b", "other-01:HTTP")  # another check's tag does not apply (D9)
    real_r.sadd("known_tag:check_tag", "team-b")
    step(T0, state="critical", tags=["Prod"])
    step(T0 + 30, state="critical", tags=["Prod"])

    assert sorted(notifications[-1].tags) == ["Prod", "example.com", "http", "team-a", "web-01"]


def test_check_tag_skips_new_check_scheduled_maintenance(make_executive: Callable[..., Executive],
                                                         push: Callable[..., None], real_r: redis.Redis) -> None:
    real_r.sadd("check_tag:nosm", E_C)
    real_r.sadd("known_tag:check_tag", "nosm")
    ex = make_executive(new_check_scheduled_maintenance_ignore_tags=["nosm"])
    push(state="critical")
    ex.drain()

    assert real_r.exists(sm_key()) == 0


def test_service_event_re_enables_a_disabled_check(step: Callable[..., None], real_r: redis.Redis) -> None:
    step(T0, state="ok")
    real_r.zrem(f"current_checks:{ENTITY}", CHECK)
    real_r.zrem("current_entities", ENTITY)

    step(T0 + 10, state="ok")

    assert real_r.zscore(f"current_checks:{ENTITY}", CHECK) == T0 + 10
    assert real_r.zscore("current_entities", ENTITY) == T0 + 10


def test_entity_name_is_lower_cased(step: Callable[..., None], stored: Keys, real_r: redis.Redis) -> None:
    step(T0, state="ok", entity="WEB-01.Example.com")

    assert stored.check()["state"] == "ok"
    assert real_r.hexists("all_entity_ids_by_name", ENTITY) == 1
    assert real_r.hexists("all_entity_ids_by_name", "WEB-01.Example.com") == 0
