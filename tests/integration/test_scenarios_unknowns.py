"""Executive scenarios on a real Redis: oscillation, unknowns and test notifications (engine.md 3-4).

How a scenario reads, the defaults and the helpers: scenario_steps.py.
"""

from __future__ import annotations

import redis
from scenario_steps import SCENARIO, T0, TEST, Keys, Step

from flapjack_py.model.notification import Notification

pytestmark = SCENARIO

# --- oscillation and unknowns ----------------------------------------------------------


def test_oscillating_ok_critical(step: Step, stored: Keys) -> None:
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


def test_stream_of_unknowns_after_a_notified_critical(step: Step, stored: Keys,
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


def test_test_notification_for_a_never_seen_check(step: Step, stored: Keys, real_r: redis.Redis,
                                                  notifications: list[Notification]) -> None:
    step(T0, **TEST, entity="db-01", check="MySQL", summary="testing")

    assert stored.all_notified("db-01", "MySQL") == {"test": [T0]}
    assert stored.last("test", "db-01", "MySQL") == T0
    assert real_r.zscore("all_checks", "db-01:MySQL") == T0
    assert real_r.hget("all_entity_ids_by_name", "db-01") is not None
    n = notifications[-1]
    assert (n.type.value, n.state, n.severity, n.summary) == ("test", "test_notifications", "critical", "testing")


def test_test_notifications_do_not_count_as_last_notification(step: Step, stored: Keys) -> None:
    step(T0, state="critical")
    step(T0 + 1, **TEST)
    step(T0 + 2, **TEST)
    step(T0 + 10, state="critical")  # still inside the initial delay after a test
    assert stored.all_notified() == {"test": [T0 + 1, T0 + 2]}

    step(T0 + 20, state="ok")  # nothing but tests notified: no recovery

    assert stored.all_notified() == {"test": [T0 + 1, T0 + 2]}
