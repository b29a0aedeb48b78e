"""Executive scenarios on a real Redis: scheduled maintenance and new-check scheduled maintenance (engine.md 7.1-7.2).

How a scenario reads, the defaults and the helpers: scenario_steps.py.
"""

from __future__ import annotations

import pytest
import redis
from scenario_steps import (
    ACK,
    CHECK,
    E_C,
    ENTITY,
    SCENARIO,
    T0,
    TEST,
    Clock,
    Keys,
    MakeExecutive,
    Step,
    at,
    sm_key,
    um_key,
    zset,
)

from flapjack_py.store import maintenance
from flapjack_py.store.plumbing.client import StrRedis

pytestmark = SCENARIO

# --- scheduled maintenance -------------------------------------------------------------


def test_scheduled_maintenance_then_its_end(step: Step, stored: Keys, real_r: redis.Redis,
                                            clock: Clock, real_s: StrRedis) -> None:
    step(T0, state="critical")
    step(T0 + 30, state="critical")
    maintenance.create_scheduled(real_s, ENTITY, CHECK, T0 + 60, 300, "patching", clock.now)
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


def test_scheduled_maintenance_ended_early(step: Step, stored: Keys, real_r: redis.Redis,
                                           clock: Clock, real_s: StrRedis) -> None:
    step(T0, state="critical")
    maintenance.create_scheduled(real_s, ENTITY, CHECK, T0, 3600, "window", clock.now)
    step(T0 + 100, state="critical")
    assert stored.all_notified() == {}

    at(clock, T0 + 200)
    assert maintenance.end_scheduled(real_s, ENTITY, CHECK, T0, clock.now) is True
    assert real_r.exists(sm_key()) == 0
    assert zset(real_r, f"{E_C}:scheduled_maintenances") == {T0: 200}
    step(T0 + 201, state="critical")

    assert stored.notified("problem") == [T0 + 201]


def test_scheduled_window_starting_later_blocks_an_ack_without_a_service_event(
        step: Step, stored: Keys, real_r: redis.Redis, clock: Clock, real_s: StrRedis) -> None:
    step(T0, state="critical")
    step(T0 + 30, state="critical")
    maintenance.create_scheduled(real_s, ENTITY, CHECK, T0 + 40, 600, "later", clock.now)

    step(T0 + 50, **ACK)  # the window began after the last service event: refreshed before filtering (D6)

    assert stored.notified("acknowledgement") == []
    assert real_r.exists(um_key()) == 0
    assert stored.text(sm_key()) == str(T0 + 40)


# --- new-check scheduled maintenance ---------------------------------------------------


@pytest.mark.parametrize("first_state", ["critical", "ok"])
def test_new_check_scheduled_maintenance_default_blocks_for_100_years(
        make_executive: MakeExecutive, push: Step, clock: Clock, stored: Keys,
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


def test_new_check_scheduled_maintenance_is_created_once(make_executive: MakeExecutive,
                                                         push: Step, clock: Clock,
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
def test_new_check_scheduled_maintenance_ignore_tags(make_executive: MakeExecutive,
                                                     push: Step, real_r: redis.Redis,
                                                     ignore: list[str], tags: list[str], skipped: bool) -> None:
    ex = make_executive(new_check_scheduled_maintenance_ignore_tags=ignore)
    push(state="critical", tags=tags)
    ex.drain()

    assert real_r.exists(sm_key(), f"{E_C}:scheduled_maintenances") == (0 if skipped else 2)
