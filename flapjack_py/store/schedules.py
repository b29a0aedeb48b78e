"""On-call schedules in Redis: a hash `schedule:ID` holding the schedule's JSON form, ids in `schedules`.

Resolution (who is on call) is pure, in flapjack_py/oncall/schedules.py; this module only stores and
loads, and builds the contact lookup iCalendar layers need (contact ids and emails -> ids).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable

from flapjack_py import keys
from flapjack_py.oncall.schedule_data import schedule_from_json, schedule_to_json
from flapjack_py.oncall.schedules import InvalidSchedule, Schedule
from flapjack_py.store.contacts import all_contact_ids, load_contacts
from flapjack_py.store.plumbing.client import StrRedis

log = logging.getLogger(__name__)


def save_schedule(client: StrRedis, schedule: Schedule) -> None:
    """Store (or replace) a schedule."""
    with client.pipeline() as pipe:
        pipe.hset(keys.schedule(schedule.id), mapping={"id": schedule.id, "name": schedule.name,
                                                        "json": json.dumps(schedule_to_json(schedule))})
        pipe.sadd(keys.schedule_ids(), schedule.id)
        pipe.execute()
    log.info("schedule %s saved (%d layers, %d overrides)", schedule.id, len(schedule.layers), len(schedule.overrides))


def load_schedules(client: StrRedis, ids: Iterable[str] | None = None) -> list[Schedule]:
    """The schedules with `ids` (default: all, by id); unknown or damaged ones are left out."""
    wanted = list(ids) if ids is not None else sorted(client.smembers(keys.schedule_ids()))
    with client.pipeline(transaction=False) as pipe:
        for schedule_id in wanted:
            pipe.hget(keys.schedule(schedule_id), "json")
        stored = pipe.execute()
    found = []
    for schedule_id, raw in zip(wanted, stored, strict=True):
        if raw is None:
            continue
        try:
            # stored times are ISO 8601 UTC, so `now` plays no part in reading them back
            found.append(schedule_from_json(json.loads(raw), 0, schedule_id))
        except (InvalidSchedule, ValueError):
            log.exception("schedule %s is damaged and ignored", schedule_id)
    return found


def load_schedule(client: StrRedis, schedule_id: str) -> Schedule | None:
    """One schedule, or None."""
    found = load_schedules(client, [schedule_id])
    return found[0] if found else None


def delete_schedule(client: StrRedis, schedule_id: str) -> None:
    """Remove a schedule."""
    with client.pipeline() as pipe:
        pipe.delete(keys.schedule(schedule_id))
        pipe.srem(keys.schedule_ids(), schedule_id)
        pipe.execute()
    log.info("schedule %s deleted", schedule_id)


def known_contacts(client: StrRedis) -> dict[str, str]:
    """Contact id -> id and lowercased email -> id, for the calendars of iCalendar layers."""
    found: dict[str, str] = {}
    for contact in load_contacts(client, all_contact_ids(client)):
        found[contact.id] = contact.id
        if contact.email:
            found.setdefault(contact.email.lower(), contact.id)
    return found
