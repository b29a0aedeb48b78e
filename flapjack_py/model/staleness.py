"""Stale checks (issue 14 point 5): a check not heard from for too long. Pure.

A check's expected interval is learned from its own events (`learned_interval`,
kept in its check hash); the executive's housekeeping asks which checks are
past their threshold (`stale_verdicts`): `executive.stale_after` seconds, or
STALE_FACTOR times the learned interval (at least MIN_STALE_AFTER) when that is
null. With `executive.stale_state: unknown` a check going stale gets a
synthetic `unknown` result (`stale_event`), which the executive processes like
any other event, except that it is not a sign of life (`is_stale_event`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

STALE_FACTOR = 3
"""A check is stale after this many of its learned intervals without a result."""

MIN_STALE_AFTER = 60
"""Seconds: no check is stale sooner (a learned interval of a few seconds would turn any lag into staleness)."""

STALE_TAG = "flapjack:stale"
"""Tag of the synthetic result a stale check gets with stale_state: unknown."""

_MAX_GROWTH = 4
"""One gap counts for at most this many learned intervals (a long outage teaches little about the rhythm)."""


@dataclass(frozen=True)
class Stale:
    """A stale check: when it was last heard from and after how many seconds it counts as stale."""

    check_id: str
    heard: int
    after: int


def learned_interval(previous: int | None, last_update: int | None, now: int) -> int | None:
    """The check's expected interval once an event arrives at `now`: a moving average of the gaps between events
    (weight 1/4 to the newest gap, itself capped at _MAX_GROWTH times the previous average)."""
    if last_update is None or now <= last_update:
        return previous
    gap = now - last_update
    if previous is None or previous <= 0:
        return gap
    return (previous * 3 + min(gap, previous * _MAX_GROWTH)) // 4


def threshold(stale_after: int | None, interval: int | None) -> int | None:
    """Seconds without a result before a check is stale; None when it cannot be stale (off, or nothing learned)."""
    if stale_after is not None:
        return stale_after or None
    if interval is None or interval <= 0:
        return None
    return max(interval * STALE_FACTOR, MIN_STALE_AFTER)


def stale_verdicts(candidates: Mapping[str, tuple[int, int | None]], stale_after: int | None,
                   now: int) -> list[Stale]:
    """The stale checks among candidates (check id -> (last heard, learned interval)), oldest first."""
    found = []
    for check_id, (heard, interval) in candidates.items():
        after = threshold(stale_after, interval)
        if after is not None and now - heard >= after:
            found.append(Stale(check_id, heard, after))
    return sorted(found, key=lambda s: (s.heard, s.check_id))


def stale_event(stale: Stale, entity: str, check: str) -> dict[str, Any]:
    """The synthetic `unknown` result of a check gone stale (notified at once: no initial failure delay).

    `time` is when the check was last heard from: the executive drops the result
    if the check has been heard from since (`superseded`).
    """
    return {"type": "service", "state": "unknown", "entity": entity, "check": check, "time": stale.heard,
            "summary": f"No result for {stale.after} s or more (stale): last heard from at {stale.heard}",
            "tags": [STALE_TAG], "initial_failure_delay": 0}


def is_stale_event(tags: frozenset[str], event_type: str) -> bool:
    """True for the synthetic result of a stale check."""
    return event_type == "service" and STALE_TAG in tags


def superseded(stale_result: bool, event_time: int | None, last_update: int | None) -> bool:
    """True when a stale check's synthetic result is out of date: the check was heard from since it was made."""
    return stale_result and last_update is not None and event_time is not None and last_update > event_time
