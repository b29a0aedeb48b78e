"""What the UI's forms do: queue action events, change maintenance, enable or disable a check.

Acknowledgements and test notifications go through the event queue like any
feeder's (the executive applies them); maintenance changes use
flapjack_py.store.maintenance directly, as the API and CLI do.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Sequence
from typing import Any

from flapjack_py import keys
from flapjack_py.model.checks import ack_hash
from flapjack_py.model.events import DEFAULT_ACK_DURATION, action_event
from flapjack_py.oncall import recurrence
from flapjack_py.oncall.recurrence import Series
from flapjack_py.store import history
from flapjack_py.store import maintenance as maint
from flapjack_py.store import maintenance_series as series_store
from flapjack_py.store.events import push_events
from flapjack_py.store.plumbing.client import StrRedis
from flapjack_py.timeparse import parse_duration

log = logging.getLogger(__name__)


def acknowledge(client: StrRedis, queue: str, entity: str, check: str, duration: str, comment: str) -> int:
    """Queue an acknowledgement action event; return its duration in seconds.

    Raises TimeParseError for an unreadable duration.
    """
    return acknowledge_many(client, queue, [(entity, check)], duration, comment)


def acknowledge_many(client: StrRedis, queue: str, checks: Sequence[tuple[str, str]], duration: str,
                     comment: str) -> int:
    """Queue one acknowledgement action event per check in one push; return the duration in seconds.

    Raises TimeParseError for an unreadable duration (nothing is queued then).
    """
    seconds = (parse_duration(duration) if duration.strip() else DEFAULT_ACK_DURATION) or DEFAULT_ACK_DURATION
    push_events(client, [action_event("acknowledgement", entity, check, summary=comment, duration=seconds,
                                      ack_id=ack_hash(keys.check_id(entity, check))) for entity, check in checks],
                queue)
    for entity, check in checks:
        log.info("%s:%s: acknowledgement queued from the web UI (%ss)", entity, check, seconds)
    return seconds


def test_notifications(client: StrRedis, queue: str, entity: str, check: str) -> None:
    """Queue a test_notifications action event, worded as Flapjack's web UI did."""
    test_notifications_many(client, queue, [(entity, check)])


def test_notifications_many(client: StrRedis, queue: str, checks: Sequence[tuple[str, str]]) -> None:
    """Queue one test_notifications action event per check, in one push."""
    push_events(client, [action_event("test_notifications", entity, check,
                                      summary=f"Testing notifications to all contacts interested in entity: {entity}, "
                                              f"check: {check}") for entity, check in checks], queue)
    for entity, check in checks:
        log.info("%s:%s: test notifications queued from the web UI", entity, check)


def end_unscheduled(client: StrRedis, entity: str, check: str, now: int) -> bool:
    """End the acknowledgement (unscheduled maintenance) in force; False when there is none."""
    return maint.end_unscheduled(client, entity, check, now)


def create_scheduled(client: StrRedis, entity: str, check: str, start: int, duration: str, summary: str,
                     now: int) -> int:
    """Add a scheduled maintenance window; return its duration. Raises TimeParseError."""
    seconds = parse_duration(duration)
    maint.create_scheduled(client, entity, check, start, seconds, summary, now)
    return seconds


def create_series(client: StrRedis, fields: dict[str, Any], now: int) -> Series:
    """Store and materialise a recurring maintenance series (recurrence.new_series fields).

    Raises InvalidSeries saying what is wrong.
    """
    made = recurrence.new_series(str(uuid.uuid4()), fields, now)
    series_store.check_plan(client, made, now)
    series_store.save_series(client, made)
    series_store.materialise(client, made, now)
    log.info("maintenance series %s created from the web UI", made.id)
    return made


def delete_series(client: StrRedis, series_id: str, now: int) -> None:
    """Delete a series and its future windows (unknown ids do nothing)."""
    if series_store.load_series(client, series_id) is not None:
        series_store.delete_series(client, series_id, now)


def end_scheduled(client: StrRedis, entity: str, check: str, start: int, now: int) -> bool:
    """End (or delete, if it has not begun) the scheduled window starting at `start`."""
    return maint.end_scheduled(client, entity, check, start, now)


def end_maintenance(client: StrRedis, entity: str, check: str, now: int) -> list[str]:
    """End the acknowledgement and the scheduled window in force; return what ended ("acknowledgement",
    "scheduled maintenance"), [] when nothing was in force."""
    ended = ["acknowledgement"] if end_unscheduled(client, entity, check, now) else []
    start = maint.in_force(client, entity, check, maint.SCHEDULED)
    if start is not None and end_scheduled(client, entity, check, start, now):
        ended.append("scheduled maintenance")
    return ended


def set_enabled(client: StrRedis, entity: str, check: str, enabled: bool, now: int) -> None:
    """Enable or disable a check as the API does (flapjack_py.store.history): disabling drops it from
    current_checks:E (and the entity from current_entities when none is left); its next event enables it.
    """
    if enabled:
        history.enable_check(client, entity, check, now)
    else:
        history.disable_check(client, entity, check)
    log.info("%s:%s %s from the web UI", entity, check, "enabled" if enabled else "disabled")
