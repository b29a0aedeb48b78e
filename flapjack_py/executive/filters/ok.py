"""Ok filter (engine.md 3.1): an ok ends unscheduled maintenance; it notifies only a notified failure."""

from __future__ import annotations

from flapjack_py.model.checks import last_notification_type
from flapjack_py.model.verdicts import PASS, FilterInput, Verdict, blocked


def ok_filter(data: FilterInput) -> Verdict:
    """Pass an ok only when the last notification announced a failure or an acknowledgement."""
    if not data.event.is_ok:
        return PASS
    if data.previous_state == "ok":
        return blocked("ok -> ok", code="ok_unchanged", end_unscheduled=True)
    last = last_notification_type(data.snapshot.last_notifications)
    if last is None:
        return blocked("never notified", code="never_notified", end_unscheduled=True)
    if last == "recovery":
        return blocked("last notification was a recovery", code="already_recovered",
                       end_unscheduled=True)
    return Verdict(block=False, end_unscheduled=True)
