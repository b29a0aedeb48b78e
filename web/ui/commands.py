"""What the UI's forms do: queue action events, change maintenance, enable or disable a check.

Acknowledgements and test notifications go through the event queue like any
feeder's (the executive applies them); maintenance changes use
flapjack_py.store.maintenance directly, as the API and CLI do.
"""

from __future__ import annotations

import logging
import uuid
from typing import Any

import redis

from flapjack_py import keys, recurrence
from flapjack_py.checks import ack_hash
from flapjack_py.recurrence import Series
from flapjack_py.store import maintenance as maint
from flapjack_py.store import maintenance_series as series_store
from flapjack_py.store.events import push_event
from flapjack_py.timeparse import parse_duration

log = logging.getLogger(__name__)

DEFAULT_ACK_DURATION = 4 * 3600
"""Seconds of unscheduled maintenance an acknowledgement creates when no duration is given."""


def acknowledge(client: redis.Redis, queue: str, entity: str, check: str, duration: str, comment: str) -> int:
    """Queue an acknowledgement action event; return its duration in seconds.

    Raises TimeParseError for an unreadable duration.
    """
    seconds = parse_duration(duration) if duration.strip() else DEFAULT_ACK_DURATION
    event = {"type": "action", "state": "acknowledgement", "entity": entity, "check": check,
             "summary": comment, "duration": seconds or DEFAULT_ACK_DURATION,
             "acknowledgement_id": ack_hash(keys.check_id(entity, check))}
    push_event(client, event, queue)
    log.info("%s:%s: acknowledgement queued from the web UI (%ss)", entity, check, seconds)
    return seconds


def test_notifications(client: redis.Redis, queue: str, entity: str, check: str) -> None:
    """Queue a test_notifications action event, worded as Flapjack's web UI did."""
    summary = f"Testing notifications to all contacts interested in entity: {entity}, check: {check}"
    push_event(client, {"type": "action", "state": "test_notifications", "entity": entity, "check": check,
                        "summary": summary}, queue)
    log.info("%s:%s: test notifications queued from the web UI", entity, check)


def end_unscheduled(client: redis.Redis, entity: str, check: str, now: int) -> bool:
    """End the acknowledgement (unscheduled maintenance) in force; False when there is none."""
    return maint.end_unscheduled(client, entity, check, now)


def create_scheduled(client: redis.Redis, entity: str, check: str, start: int, duration: str, summary: str,
                     now: int) -> int:
    """Add a scheduled maintenance window; return its duration. Raises TimeParseError."""
    seconds = parse_duration(duration)
    maint.create_scheduled(client, entity, check, start, seconds, summary, now)
    return seconds


def create_series(client: redis.Redis, fields: dict[str, Any], now: int) -> Series:
    """Store and materialise a recurring maintenance series (recurrence.new_series fields).

    Raises InvalidSeries saying what is wrong.
    """
    made = recurrence.new_series(str(uuid.uuid4()), fields, now)
    series_store.save_series(client, made)
    series_store.materialise(client, made, now)
    log.info("maintenance series %s created from the web UI", made.id)
    return made


def delete_series(client: redis.Redis, series_id: str, now: int) -> None:
    """Delete a series and its future windows (unknown ids do nothing)."""
    if series_store.load_series(client, series_id) is not None:
        series_store.delete_series(client, series_id, now)


def end_scheduled(client: redis.Redis, entity: str, check: str, start: int, now: int) -> bool:
    """End (or delete, if it has not begun) the scheduled window starting at `start`."""
    return maint.end_scheduled(client, entity, check, start, now)


def set_enabled(client: redis.Redis, entity: str, check: str, enabled: bool, now: int) -> None:
    """Enable (add to current_checks:E and current_entities) or disable a check.

    Disabling removes the check from current_checks:E, and the entity from
    current_entities when it has no current check left, as Flapjack 1.x does.
    The next service event for the check enables it again.
    """
    with client.pipeline(transaction=True) as p:
        if enabled:
            p.zadd(keys.current_checks(entity), {check: now})
            p.zadd(keys.current_entities(), {entity: now})
        else:
            p.zrem(keys.current_checks(entity), check)
        p.execute()
    if not enabled and client.zcard(keys.current_checks(entity)) == 0:
        client.zrem(keys.current_entities(), entity)
    log.info("%s:%s %s from the web UI", entity, check, "enabled" if enabled else "disabled")
