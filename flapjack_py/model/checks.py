"""Check state as the executive sees it, and the facts derived from it (engine.md 2.4, 3.0). Pure."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import NamedTuple

from flapjack_py.model.events import FAILURE_STATES

NOTIFICATION_KINDS = ("problem", "warning", "critical", "unknown", "recovery", "acknowledgement")
"""Kinds with a `last_<kind>_notification` key read by the filters."""

_LAST_NOTIFICATION_CANDIDATES = ("warning", "critical", "unknown", "recovery", "acknowledgement")
SEVERITY_ORDER = ("ok", "unknown", "warning", "critical")


@dataclass
class CheckSnapshot:
    """Everything the processing of one event reads about its check, loaded in one round trip.

    The executive updates it in memory as it writes, so later events of the same
    batch see the effect of earlier ones.
    """

    entity: str
    check: str
    entity_id: str | None = None
    registered: bool = False  # in all_checks
    ack_hash_stored: bool = False  # in check_hashes_by_id
    state: str | None = None
    last_change: int | None = None
    last_update: int | None = None
    initial_failure_delay: int | None = None
    repeat_failure_delay: int | None = None
    interval: int | None = None  # seconds between its events, learned (flapjack_py.model.staleness)
    flap_history: str = ""  # its latest results, one letter each (flapjack_py.model.flapping)
    flapping_since: int | None = None
    failing_since: int | None = None  # score in failed_checks
    scheduled_start: int | None = None  # value of E:C:scheduled_maintenance (window in force)
    unscheduled_start: int | None = None  # value of E:C:unscheduled_maintenance
    scheduled_windows: dict[int, int] = field(default_factory=dict)  # start -> duration (read only if none in force)
    last_notifications: dict[str, int | None] = field(default_factory=dict)
    check_tags: frozenset[str] = frozenset()

    @property
    def id(self) -> str:
        return f"{self.entity}:{self.check}"

    @property
    def failed(self) -> bool:
        return self.state in FAILURE_STATES

    @property
    def in_scheduled_maintenance(self) -> bool:
        return self.scheduled_start is not None

    @property
    def in_unscheduled_maintenance(self) -> bool:
        return self.unscheduled_start is not None


class StateChange(NamedTuple):
    """A recorded state change: its timestamp, state and summary (None: no summary stored), and for one made
    by the current batch, its event's position in the batch (-1 for one read from Redis)."""

    ts: int
    state: str | None
    summary: str | None
    at: int = -1


def previous_run(stored: list[StateChange], changes: list[StateChange], latest: bool) -> tuple[str | None, str | None]:
    """(state, summary) of engine.md 4.1 step 5 from the stored history and the batch's earlier changes.

    `stored` are the two newest recorded changes (newest first); `changes` the
    batch's own, in order, overwriting a stored change of the same second as
    Redis would. `latest` takes the newest change (the event's own change is
    not history yet), otherwise the one before it.
    """
    merged = {c.ts: (c.state, c.summary) for c in stored}
    for c in changes:
        old_summary = merged.get(c.ts, (None, None))[1]
        merged[c.ts] = (c.state, c.summary if c.summary is not None else old_summary)
    newest = [merged[ts] for ts in sorted(merged, reverse=True)[:2]]
    if latest:
        return newest[0] if newest else (None, None)
    return newest[1] if len(newest) == 2 else (None, None)


def ack_hash(event_id: str) -> str:
    """First 8 hex chars of SHA-1 of `E:C`: the id people ack by (jabber ACKID)."""
    return hashlib.sha1(event_id.encode("utf-8")).hexdigest()[:8]




def last_notification_type(last: dict[str, int | None]) -> str | None:
    """The kind of the latest notification (problem is never a candidate; ties go to the later name)."""
    best, best_ts = None, 0
    for kind in _LAST_NOTIFICATION_CANDIDATES:
        ts = last.get(kind)
        if ts is not None and ts > 0 and ts >= best_ts:
            best, best_ts = kind, ts
    return best


def max_notified_severity(last: dict[str, int | None]) -> str | None:
    """Worst failure state notified strictly after the last recovery notification."""
    recovery = last.get("recovery") or 0
    for severity in ("critical", "warning", "unknown"):
        ts = last.get(severity)
        if ts is not None and ts > recovery:
            return severity
    return None


def worst(*severities: str | None) -> str:
    """The worst of some severities (None counts as ok)."""
    return max((s or "ok" for s in severities), key=SEVERITY_ORDER.index)


def current_scheduled_window(windows: dict[int, int], now: int) -> tuple[int, int] | None:
    """(start, end) of the window covering now with the latest end, or None.

    A window covers [start, floor(start + duration)).
    """
    covering = [(start, start + int(duration)) for start, duration in windows.items()
                if start <= now < start + int(duration)]
    if not covering:
        return None
    return max(covering, key=lambda w: (w[1], w[0]))
