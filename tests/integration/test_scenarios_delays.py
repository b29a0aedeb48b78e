"""Executive scenarios on a real Redis: initial and repeat failure delays, recovery (engine.md 3-4).

How a scenario reads, the defaults and the helpers: scenario_steps.py.
"""

from __future__ import annotations

import pytest
from scenario_steps import CHECK, E_C, ENTITY, SCENARIO, T0, Clock, Keys, MakeExecutive, Step, at

from flapjack_py.model.notification import Notification

pytestmark = SCENARIO

# --- initial failure delay -------------------------------------------------------------


def test_ok_to_critical_inside_and_past_the_initial_delay(step: Step, stored: Keys,
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


def test_first_event_failing_waits_the_initial_delay_from_itself(step: Step, stored: Keys,
                                                                 notifications: list[Notification]) -> None:
    step(T0, state="warning")
    step(T0 + 29, state="warning")
    assert stored.all_notified() == {}

    step(T0 + 30, state="warning")

    assert stored.all_notified() == {"problem": [T0 + 30], "warning": [T0 + 30]}
    assert (notifications[0].severity, notifications[0].last_state, notifications[0].state_duration) == (
        "warning", None, 30)


def test_brief_failure_sends_nothing(step: Step, stored: Keys) -> None:
    step(T0, state="ok")
    step(T0 + 10, state="critical")
    step(T0 + 35, state="ok")  # back before the failure was 30 s old
    step(T0 + 100, state="ok")

    assert stored.all_notified() == {}


def test_events_own_time_is_ignored_for_timing(step: Step, stored: Keys,
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
def test_per_event_initial_failure_delay(step: Step, stored: Keys, ifd: int, held: int | None,
                                         passes: int) -> None:
    step(T0, state="critical", initial_failure_delay=ifd)
    if held is not None:
        step(T0 + held, state="critical", initial_failure_delay=ifd)
        assert stored.all_notified() == {}
    step(T0 + passes, state="critical", initial_failure_delay=ifd)

    assert stored.notified("problem") == [T0 + passes]


def test_configured_default_delays(make_executive: MakeExecutive, push: Step, clock: Clock,
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


def test_repeat_failure_delay(step: Step, stored: Keys) -> None:
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


def test_per_event_repeat_failure_delay_only_holds_while_sent(step: Step, stored: Keys) -> None:
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


def test_critical_to_ok_recovery(step: Step, stored: Keys, notifications: list[Notification]) -> None:
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


def test_notified_severity_resets_after_a_recovery(step: Step, stored: Keys,
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


def test_severity_escalation_sticks_until_recovery(step: Step, stored: Keys,
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
