"""Stale checks (issue 14 point 5) with moved time: learned interval x 3 or executive.stale_after, found by the
executive's housekeeping; with stale_state unknown an unknown problem notified like any other."""

from __future__ import annotations

from typing import Any

import pytest
import redis
from notifier_world import CHECK, ENTITY, World

from flapjack_py.store import staleness as stale_store
from flapjack_py.store.plumbing.client import StrRedis

pytestmark = pytest.mark.real

ID = f"{ENTITY}:{CHECK}"


def every(world: World, seconds: int, count: int, state: str = "ok") -> None:
    """`count` results of foo:PING, `seconds` apart (the first at once)."""
    for i in range(count):
        if i:
            world.advance(seconds)
        world.event(state)


def housekeeping(world: World) -> dict[str, int]:
    """Let the executive's housekeeping run (it sweeps at most every 30 s) and return the stale checks."""
    world.executive.drain()
    return stale_store.stale_checks(world.s)


def test_learned_interval_times_three(world: World) -> None:
    every(world, 60, 5)
    last = world.clock.now
    assert int(world.r.hget(f"check:{ID}", "interval")) == 60
    world.advance(150)
    assert housekeeping(world) == {}
    world.advance(30)  # 180 s = 3 x 60 s without a result (the sweep runs every 30 s)
    assert housekeeping(world) == {ID: last}
    world.advance(30)
    world.event("ok")  # heard from again
    world.advance(30)
    assert housekeeping(world) == {}
    assert world.r.zcard("stale_check_ids") == 0


def test_learned_interval_follows_the_checks_rhythm_not_one_late_result(world: World) -> None:
    every(world, 60, 5)
    world.advance(100)  # one late result
    world.event("ok")
    learned = int(world.r.hget(f"check:{ID}", "interval"))
    assert 60 < learned < 100
    world.advance(3 * learned - 1)
    assert housekeeping(world) == {}


def test_fixed_stale_after_and_zero_turns_it_off(real_r: redis.Redis, clock: Any, real_s: StrRedis) -> None:
    world = World(real_r, clock, executive={"stale_after": 600})
    every(world, 10, 3)
    world.advance(570)
    assert housekeeping(world) == {}
    world.advance(30)
    assert list(housekeeping(world)) == [ID]
    off = World(real_r, clock, executive={"stale_after": 0})
    off.event("ok", check="other")
    off.advance(86400)
    off.executive.drain()
    assert f"{ENTITY}:other" not in stale_store.stale_checks(real_s)


def test_a_single_result_never_makes_a_check_stale(world: World) -> None:
    world.event("ok")
    world.advance(86400)
    assert housekeeping(world) == {}


def test_disabled_check_is_not_stale(world: World) -> None:
    every(world, 60, 3)
    world.r.zrem(f"current_checks:{ENTITY}", CHECK)  # what disabling a check does
    world.advance(3600)
    assert housekeeping(world) == {}


def test_stale_state_unknown_notifies_once_and_recovers(real_r: redis.Redis, clock: Any) -> None:
    world = World(real_r, clock, executive={"stale_state": "unknown"})
    world.contact("ada", {"email": "ada@example.com"}, rules=[
        {"unknown_media": ["email"], "critical_media": ["email"], "warning_media": ["email"]}])
    every(world, 60, 4)
    heard = world.clock.now
    world.advance(180)
    world.executive.drain()  # marks it stale, queues its unknown result and processes it
    assert world.new_alerts() == [("ada", "email", "problem", "", "unknown")]
    assert world.r.hget(f"check:{ID}", "state") == b"unknown"
    assert int(world.r.hget(f"check:{ID}", "last_update")) == heard  # the synthetic result is no sign of life
    world.advance(60)
    world.executive.drain()
    world.advance(60)
    assert world.new_alerts() == []  # one problem, no repeats while still stale
    assert world.event("ok") == [("ada", "email", "recovery", "", "ok")]


def test_unknown_result_dropped_when_heard_from_since(real_r: redis.Redis, clock: Any, real_s: StrRedis) -> None:
    world = World(real_r, clock, executive={"stale_state": "unknown"})
    every(world, 60, 4)
    world.advance(180)
    world.r.lpush("events", '{"type": "service", "state": "critical", "entity": "foo", "check": "PING"}')
    assert [s.check_id for s in stale_store.sweep(real_s, None, world.clock.now, True, "events", 1000)] == [ID]
    world.executive.drain()  # the real result first, then the synthetic unknown one: dropped
    assert world.r.hget(f"check:{ID}", "state") == b"critical"
    assert int(world.r.hget(f"check:{ID}", "last_update")) == world.clock.now
