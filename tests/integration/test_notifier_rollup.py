"""End-to-end rollup scenarios (engine.md 5.4): thresholds 1 and 2 both ways, and an acknowledgement and a
scheduled maintenance taking a check out of the count."""

from __future__ import annotations

from typing import Any

import pytest
import redis
from notifier_world import World
from rq.job import Job
from rq.serializers import JSONSerializer

from flapjack_py.store import maintenance

pytestmark = pytest.mark.real

P, R, A = "problem", "recovery", "acknowledgement"


def email(type_: str, rollup: str, state: str) -> tuple[str, str, str, str, str]:
    return ("ada", "email", type_, rollup, state)


def rollup_contact(world: World, threshold: int, interval: int = 900) -> None:
    world.contact("ada", {"email": {"address": "a@x", "rollup_threshold": threshold, "interval": interval},
                          "pagerduty": {"service_key": "k"}})


def alerting(world: World) -> list[str]:
    return [m.decode() for m in world.r.zrange("contact_alerting_checks:ada:media:email", 0, -1)]


def test_threshold_one_rolls_every_alert_up_and_recovers(world: World) -> None:
    rollup_contact(world, 1)
    assert world.fail("critical", check="a") == [email(P, "problem", "critical"), ("ada", "pagerduty", P, "", "critical")]
    assert world.r.ttl("drop_rollup_alerts_for_contact:ada:email") == 900
    assert world.fail("critical", check="b") == [("ada", "pagerduty", P, "", "critical")]
    assert alerting(world) == ["foo:a", "foo:b"]
    assert world.r.zcard("contact_alerting_checks:ada:media:pagerduty") == 2  # tracked, never rolled up
    world.advance(60)
    assert world.event("ok", check="a") == [("ada", "pagerduty", R, "", "ok")]  # still >= 1 and drop key live
    world.advance(60)
    assert world.event("ok", check="b") == [email(R, "recovery", "ok"), ("ada", "pagerduty", R, "", "ok")]
    assert alerting(world) == []
    assert not world.r.exists("drop_rollup_alerts_for_contact:ada:email")


def test_threshold_two_both_ways(world: World) -> None:
    rollup_contact(world, 2)
    assert world.fail("critical", check="a") == [email(P, "", "critical"), ("ada", "pagerduty", P, "", "critical")]
    assert world.fail("critical", check="b") == [email(P, "problem", "critical"), ("ada", "pagerduty", P, "", "critical")]
    assert world.fail("warning", check="c") == [("ada", "pagerduty", P, "", "warning")]
    rollup = next(a for a in world.alert_records() if a["rollup"] == "problem")
    assert rollup["check"] == "foo:b"
    world.advance(60)
    assert world.event("ok", check="a") == [("ada", "pagerduty", R, "", "ok")]
    world.advance(60)
    assert world.event("ok", check="b") == [email(R, "recovery", "ok"), ("ada", "pagerduty", R, "", "ok")]
    world.advance(60)
    assert world.event("ok", check="c") == [email(R, "", "ok"), ("ada", "pagerduty", R, "", "ok")]


def test_rollup_payload_lists_the_alerting_checks(real_r: redis.Redis, clock: Any) -> None:
    world = World(real_r, clock, gateways={"email": {"enabled": True}})
    rollup_contact(world, 2)
    world.fail("critical", check="a")
    world.advance(100)
    world.fail("warning", check="b")
    job_ids = [j.decode() for j in real_r.lrange("rq:queue:email", 0, -1)]
    payloads = [Job.fetch(j, connection=real_r, serializer=JSONSerializer).args[0] for j in job_ids]
    rollup = next(p for p in payloads if p["rollup"] == "problem")
    assert rollup["rollup_threshold"] == 2
    assert rollup["rollup_alerts"] == {
        "foo:a": {"duration": 160, "state": "critical", "summary": "a is critical"},
        "foo:b": {"duration": 30, "state": "warning", "summary": "b is warning"},
    }
    assert rollup["subject"].startswith("Problem summary")


def test_acknowledgement_hastens_rollup_recovery(world: World) -> None:
    rollup_contact(world, 2)
    world.fail("critical", check="a")
    assert world.fail("critical", check="b") == [email(P, "problem", "critical"), ("ada", "pagerduty", P, "", "critical")]
    world.advance(60)
    assert world.ack(check="a") == [email(A, "recovery", "acknowledgement"),
                                    ("ada", "pagerduty", A, "", "acknowledgement")]
    assert alerting(world) == ["foo:b"]


def test_scheduled_maintenance_hastens_rollup_recovery(world: World) -> None:
    rollup_contact(world, 2, interval=60)
    world.fail("critical", check="a")
    assert world.fail("critical", check="b") == [email(P, "problem", "critical"), ("ada", "pagerduty", P, "", "critical")]
    maintenance.create_scheduled(world.s, "foo", "a", world.clock.now, 3600, "planned", world.clock.now)
    world.advance(60)  # the interval and the drop_rollup key run out
    # pagerduty keeps the default 900 s interval: its repeat is held back
    assert world.event("critical", check="b") == [email(P, "recovery", "critical")]
    assert alerting(world) == ["foo:b"]


def test_disabled_check_leaves_the_rollup_count(world: World) -> None:
    rollup_contact(world, 2, interval=60)
    world.fail("critical", check="a")
    world.fail("critical", check="b")
    world.r.zrem("current_checks:foo", "a")
    world.advance(60)
    # pagerduty keeps the default 900 s interval: its repeat is held back
    assert world.event("critical", check="b") == [email(P, "recovery", "critical")]
