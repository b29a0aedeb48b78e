"""Flap detection (issue 14 point 6): Nagios's percent state change over a check's last 21 results. Pure.

Each result adds its state to the check's history (one letter per result, the
newest last, at most HISTORY). The percent state change weighs each of the 20
transitions from LOW_WEIGHT (oldest) to HIGH_WEIGHT (newest), as Nagios does. A
check starts flapping when the percentage rises above the high threshold and
stops when it falls below the low one (`observe`). While it flaps its
notifications are held back (filters/flapping.py); the executive sends one
"flapping" notification when it starts and one "flapping_stopped" when it stops.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from flapjack_py.model.checks import SEVERITY_ORDER
from flapjack_py.model.notification import Notification, NotificationType

HISTORY = 21
"""Results kept per check (Nagios's MAX_STATE_HISTORY_ENTRIES)."""

LOW_WEIGHT, HIGH_WEIGHT = 0.75, 1.25
"""Weight of the oldest and of the newest transition."""

CODES = {"ok": "o", "warning": "w", "critical": "c", "unknown": "u"}
STATES = {code: state for state, code in CODES.items()}


@dataclass(frozen=True)
class FlapState:
    """A check's flap detection after one result."""

    history: str
    percent: float
    since: int | None  # flapping since (None: not flapping)
    change: str = ""  # "started", "stopped" or ""


def percent_state_change(history: str) -> float:
    """Weighted percent of the transitions between consecutive results that changed state (0..100).

    A history shorter than HISTORY counts as if its first result had been seen
    before it (a new check starts at 0 %).
    """
    padded = history[-HISTORY:].rjust(HISTORY, history[:1] or "o")
    steps = HISTORY - 1
    changed = 0.0
    for i in range(1, HISTORY):
        if padded[i] != padded[i - 1]:
            changed += LOW_WEIGHT + (i - 1) * (HIGH_WEIGHT - LOW_WEIGHT) / (steps - 1)
    return round(changed * 100.0 / steps, 2)


def observe(history: str, since: int | None, state: str, now: int, low: float, high: float) -> FlapState:
    """Add one result (`state`) at `now` and decide whether the check starts or stops flapping."""
    updated = (history + CODES.get(state, "u"))[-HISTORY:]
    percent = percent_state_change(updated)
    if since is None and percent > high:
        return FlapState(updated, percent, now, "started")
    if since is not None and percent < low:
        return FlapState(updated, percent, None, "stopped")
    return FlapState(updated, percent, since)


def severity(history: str) -> str:
    """The worst state in the history: the severity a flapping notification is sent with (never ok)."""
    states = [STATES.get(code, "unknown") for code in history] or ["warning"]
    worst = max(states, key=SEVERITY_ORDER.index)
    return "warning" if worst == "ok" else worst


def notification(base: Notification, state: FlapState, low: float, high: float) -> Notification:
    """The one notification of a check starting or stopping to flap, made from its result's notification."""
    started = state.change == "started"
    kind = NotificationType.FLAPPING if started else NotificationType.FLAPPING_STOPPED
    limit = f"above {high:g} %" if started else f"below {low:g} %, now {base.state}"
    return replace(base, type=kind, state=kind.value, severity=severity(state.history),
                   summary=f"{state.percent:g} % state change over its last {len(state.history)} results ({limit})")
