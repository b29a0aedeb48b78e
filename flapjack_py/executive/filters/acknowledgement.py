"""Acknowledgement filter (engine.md 3.5): an ack of a failing check creates unscheduled maintenance."""

from __future__ import annotations

from flapjack_py.model.events import ack_duration
from flapjack_py.model.verdicts import PASS, FilterInput, Verdict, blocked


def acknowledgement_filter(data: FilterInput) -> Verdict:
    """Block acks of checks that are not failing; otherwise acknowledge for the event's duration."""
    event = data.event
    if not event.is_acknowledgement:
        return PASS
    if data.snapshot.failing_since is None:
        return blocked("acknowledgement of a check that is not failing", code="ack_not_failing")
    return Verdict(block=False, create_unscheduled=(data.now, ack_duration(event.duration), event.summary))
