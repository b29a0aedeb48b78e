"""Flap detection (issue 14 point 6) with moved time: one "flapping" notification, quiet while it flaps, one
"flapping_stopped" when stable again; visible in the API's list and the decision trace."""

from __future__ import annotations

from typing import Any

import pytest
import redis
from notifier_world import CHECK, ENTITY, World

from flapjack_py.store import decisions as decision_store
from flapjack_py.store import flapping as flap_store

pytestmark = pytest.mark.real

ID = f"{ENTITY}:{CHECK}"
DELAYS = {"initial_failure_delay": 0, "repeat_failure_delay": 0}


@pytest.fixture
def flappy(real_r: redis.Redis, clock: Any) -> World:
    world = World(real_r, clock, executive={"flap_detection": True})
    world.contact("ada", {"email": "ada@example.com"})
    return world


def results(world: World, *states: str, every: int = 60) -> list[tuple[str, str, str, str, str]]:
    alerts = []
    for state in states:
        world.advance(every)
        alerts += world.event(state, **DELAYS)
    return alerts


def test_one_flapping_notification_then_quiet_then_stopped(flappy: World) -> None:
    assert results(flappy, "ok") == []
    assert results(flappy, "critical", "ok") == [("ada", "email", "problem", "", "critical"),
                                                 ("ada", "email", "recovery", "", "ok")]
    # the 4th change in a row takes the weighted state change above 20 %: one notification, with the worst state
    assert results(flappy, "critical", "ok") == [("ada", "email", "problem", "", "critical"),
                                                 ("ada", "email", "flapping", "", "flapping")]
    since = flappy.clock.now
    assert flap_store.flapping_checks(flappy.s)[ID][0] == since
    record = next(a for a in flappy.alert_records() if a["type"] == "flapping")
    assert record["subject"].startswith("Flapping: ") and "24.21 % state change over its last 5 results (above 20 %)" in record["body"]
    assert results(flappy, "critical", "ok", "critical", "ok") == []  # held back while it flaps
    assert decision_store.load(flappy.s, ENTITY, CHECK)[0]["stopped_by"]["code"] == "flapping"
    assert results(flappy, *["ok"] * 18) == []  # the changes leave the 21-result window one by one
    stable = results(flappy, "ok")
    assert stable == [("ada", "email", "flapping_stopped", "", "flapping_stopped")]  # below 5 %: stable again
    assert ID not in flap_store.flapping_checks(flappy.s)
    assert results(flappy, "critical") == [("ada", "email", "problem", "", "critical")]  # notified as before


def test_flap_detection_is_off_by_default(world: World) -> None:
    world.contact("ada", {"email": "ada@example.com"})
    alerts = results(world, *["critical", "ok"] * 5)
    assert [a[2] for a in alerts] == ["problem", "recovery"] * 5
    assert flap_store.flapping_checks(world.s) == {}


def test_thresholds_are_configurable(real_r: redis.Redis, clock: Any) -> None:
    world = World(real_r, clock, executive={"flap_detection": True, "flap_high_threshold": 50.0,
                                            "flap_low_threshold": 10.0})
    world.contact("ada", {"email": "ada@example.com"})
    alerts = results(world, "ok", *["critical", "ok"] * 4)  # 8 changes: 46 %, not above 50 %
    assert "flapping" not in [a[2] for a in alerts]
    assert [a[2] for a in results(world, "critical")] == ["flapping"]
