"""flapjack_py.model.staleness: learned interval, threshold and verdicts (pure: no Redis, no clock)."""

from __future__ import annotations

from flapjack_py.model import staleness
from flapjack_py.model.staleness import Stale


def test_learned_interval_is_a_moving_average_of_the_gaps() -> None:
    assert staleness.learned_interval(None, None, 100) is None  # first result: nothing learned
    assert staleness.learned_interval(None, 40, 100) == 60
    assert staleness.learned_interval(60, 100, 160) == 60
    assert staleness.learned_interval(60, 100, 200) == 70  # one late result moves it a quarter of the way
    assert staleness.learned_interval(60, 100, 100 + 86400) == 105  # a long outage counts as 4 x 60 s at most
    assert staleness.learned_interval(60, 100, 100) == 60  # same second: unchanged


def test_threshold() -> None:
    assert staleness.threshold(None, 60) == 180
    assert staleness.threshold(None, 5) == staleness.MIN_STALE_AFTER
    assert staleness.threshold(None, None) is None
    assert staleness.threshold(600, 5) == 600
    assert staleness.threshold(0, 60) is None


def test_verdicts_oldest_first_and_stale_event() -> None:
    found = staleness.stale_verdicts({"a:x": (1000, 60), "b:y": (900, 60), "c:z": (1100, 60)}, None, 1180)
    assert found == [Stale("b:y", 900, 180), Stale("a:x", 1000, 180)]
    event = staleness.stale_event(found[0], "b", "y")
    assert (event["state"], event["time"], event["initial_failure_delay"]) == ("unknown", 900, 0)
    assert staleness.is_stale_event(frozenset(event["tags"]), "service")
    assert staleness.superseded(True, 900, 950) and not staleness.superseded(True, 900, 900)
    assert not staleness.superseded(False, 900, 950)
