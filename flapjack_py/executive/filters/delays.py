"""Delays filter (engine.md 3.4): initial failure delay and repeat failure delay."""

from __future__ import annotations

from flapjack_py.model.checks import last_notification_type
from flapjack_py.model.verdicts import PASS, FilterInput, Verdict, blocked


def delays_filter(data: FilterInput) -> Verdict:
    """Hold back a failure until it is IFD old, and a repeat of the same state for RFD."""
    event, snap = data.event, data.snapshot
    if not event.is_failure or not snap.failed:
        return PASS
    ifd = _delay(snap.initial_failure_delay, data.default_initial_failure_delay)
    rfd = _delay(snap.repeat_failure_delay, data.default_repeat_failure_delay)
    age = data.now - (snap.last_change if snap.last_change is not None else data.now)
    if age < ifd:
        return blocked(f"failing for {age}s, initial failure delay is {ifd}s", code="initial_delay",
                       until=data.now - age + ifd)
    last_problem = snap.last_notifications.get("problem")
    if (last_problem is not None and data.now - last_problem < rfd
            and last_notification_type(snap.last_notifications) == event.state):
        return blocked(f"{event.state} notified {data.now - last_problem}s ago, repeat failure delay is {rfd}s",
                       code="repeat_delay", until=last_problem + rfd)
    return PASS


def _delay(stored: int | None, default: int) -> int:
    return default if stored is None or stored < 0 else stored
