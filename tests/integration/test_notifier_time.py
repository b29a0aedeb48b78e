"""End-to-end notifier scenarios over time: time restrictions in two zones and across DST, per-medium
intervals, a problem right after a recovery (engine.md 5.2 step 5, 5.3, 5.5 step 4)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
import redis
from notifier_world import WEEKDAYS_8_TO_18, World, rule

pytestmark = pytest.mark.real


def utc(*parts: int) -> int:
    return int(datetime(*parts, tzinfo=UTC).timestamp())


def problem_at(world: World, moment: int, check: str) -> list[tuple[str, str, str, str, str]]:
    """A new check failing from moment-30 s so its problem notification is generated exactly at `moment`."""
    world.advance_to(moment - 30)
    return world.fail("critical", check=check)


def office_hours_world(world: World) -> None:
    restricted = [rule(critical_media=["email"], time_restrictions=[WEEKDAYS_8_TO_18])]
    world.contact("bagdad", {"email": "b@x"}, timezone="Asia/Baghdad", rules=restricted)  # UTC+3, no DST
    world.contact("newyork", {"email": "n@x"}, timezone="America/New_York", rules=restricted)


# (UTC moment, Baghdad local, New York local, contacts alerted), Wednesday 2023-11-15 unless noted
EDGES = [
    (utc(2023, 11, 15, 4, 59), "07:59 Wed", "23:59 Tue", []),
    (utc(2023, 11, 15, 5, 1), "08:01 Wed", "00:01 Wed", ["bagdad"]),
    (utc(2023, 11, 15, 12, 59), "15:59 Wed", "07:59 Wed", ["bagdad"]),
    (utc(2023, 11, 15, 13, 1), "16:01 Wed", "08:01 Wed", ["bagdad", "newyork"]),
    (utc(2023, 11, 15, 14, 59), "17:59 Wed", "09:59 Wed", ["bagdad", "newyork"]),
    (utc(2023, 11, 15, 15, 1), "18:01 Wed", "10:01 Wed", ["newyork"]),
    (utc(2023, 11, 15, 22, 59), "01:59 Thu", "17:59 Wed", ["newyork"]),
    (utc(2023, 11, 15, 23, 1), "02:01 Thu", "18:01 Wed", []),
    (utc(2023, 11, 18, 13, 1), "16:01 Sat", "08:01 Sat", []),
]


def test_time_restrictions_in_two_zones_around_their_edges(world: World) -> None:
    office_hours_world(world)
    for i, (moment, _bagdad, _newyork, expected) in enumerate(EDGES):
        alerts = problem_at(world, moment, check=f"check-{i}")
        assert alerts == [(cid, "email", "problem", "", "critical") for cid in expected], EDGES[i]


def test_time_restrictions_keep_local_hours_across_a_dst_change(world: World) -> None:
    office_hours_world(world)
    # New York moves from UTC-5 to UTC-4 on Sunday 2024-03-10
    assert problem_at(world, utc(2024, 3, 8, 12, 59), "fri-0759-est") == [
        ("bagdad", "email", "problem", "", "critical")]
    assert problem_at(world, utc(2024, 3, 8, 13, 1), "fri-0801-est") == [
        ("bagdad", "email", "problem", "", "critical"), ("newyork", "email", "problem", "", "critical")]
    assert problem_at(world, utc(2024, 3, 11, 11, 59), "mon-0759-edt") == [
        ("bagdad", "email", "problem", "", "critical")]
    assert problem_at(world, utc(2024, 3, 11, 12, 1), "mon-0801-edt") == [
        ("bagdad", "email", "problem", "", "critical"), ("newyork", "email", "problem", "", "critical")]
    assert problem_at(world, utc(2024, 3, 11, 21, 59), "mon-1759-edt") == [
        ("newyork", "email", "problem", "", "critical")]
    assert problem_at(world, utc(2024, 3, 11, 22, 1), "mon-1801-edt") == []


def test_default_contact_timezone_applies_without_one(real_r: redis.Redis, clock: Any) -> None:
    world = World(real_r, clock, executive={"default_contact_timezone": "Asia/Baghdad"})
    world.contact("ada", {"email": "a@x"}, rules=[rule(critical_media=["email"], time_restrictions=[WEEKDAYS_8_TO_18])])
    assert problem_at(world, utc(2023, 11, 15, 4, 59), "early") == []
    assert problem_at(world, utc(2023, 11, 15, 5, 1), "late") == [("ada", "email", "problem", "", "critical")]


def test_custom_per_medium_intervals(world: World) -> None:
    world.contact("ada", {"email": {"address": "a@x", "interval": 300}, "sms": {"address": "+1"}})
    assert world.fail("critical") == [("ada", "email", "problem", "", "critical"),
                                      ("ada", "sms", "problem", "", "critical")]
    assert world.r.ttl("drop_alerts_for_contact:ada:email:foo:PING:critical") == 300
    assert world.r.ttl("drop_alerts_for_contact:ada:sms:foo:PING:critical") == 900
    seen = {}
    for minute in range(1, 16):  # a still-failing check re-notifies every 60 s (repeat failure delay)
        world.advance(60)
        seen[minute] = world.event("critical")
    alerted = {m: [a[1] for a in alerts] for m, alerts in seen.items() if alerts}
    assert alerted == {5: ["email"], 10: ["email"], 15: ["email", "sms"]}


def test_problem_right_after_recovery_alerts_despite_the_interval(world: World) -> None:
    world.contact("ada", {"email": "a@x"})
    assert world.fail("critical") == [("ada", "email", "problem", "", "critical")]
    world.advance(60)
    assert world.event("ok") == [("ada", "email", "recovery", "", "ok")]
    assert not world.r.exists("drop_alerts_for_contact:ada:email:foo:PING:critical")
    world.advance(10)
    assert world.fail("critical") == [("ada", "email", "problem", "", "critical")]


def test_change_to_another_failure_state_alerts_at_once(world: World) -> None:
    world.contact("ada", {"email": "a@x"})
    assert world.fail("warning") == [("ada", "email", "problem", "", "warning")]
    world.advance(10)
    assert world.fail("critical") == [("ada", "email", "problem", "", "critical")]
    world.advance(60)
    assert world.event("critical") == []  # critical interval key holds
