"""Flapping filter (issue 14 point 6): a flapping check's results are not notified until it is stable again."""

from __future__ import annotations

from flapjack_py.model.verdicts import PASS, FilterInput, Verdict, blocked


def flapping_filter(data: FilterInput) -> Verdict:
    """Block service results while the check flaps (its one 'flapping' notification has gone out)."""
    if data.event.is_service and data.snapshot.flapping_since is not None:
        return blocked("flapping", code="flapping")
    return PASS
