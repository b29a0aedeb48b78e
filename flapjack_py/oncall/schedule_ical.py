"""On-call shifts as RFC 5545 calendars people subscribe to (icalendar). Pure: times are passed in."""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime

from flapjack_py.oncall.schedules import Schedule, Shift, contact_shifts, shifts

log = logging.getLogger(__name__)

PRODID = "-//flapjack-py//on-call//EN"


def schedule_feed(schedule: Schedule, start: int, end: int, known: Mapping[str, str]) -> bytes:
    """A calendar with one event per shift of `schedule` in [start, end) that has someone on call."""
    found = [s for s in shifts(schedule, start, end, known) if s.contacts]
    return _calendar(f"On call: {schedule.name or schedule.id}", ((schedule, s) for s in found), start)


def contact_feed(schedules: Iterable[Schedule], contact: str, start: int, end: int,
                 known: Mapping[str, str]) -> bytes:
    """A calendar with one event per shift in [start, end) during which `contact` is on call, any schedule."""
    found = [(s, shift) for s in schedules for shift in contact_shifts(s, contact, start, end, known)]
    return _calendar(f"On call: {contact}", found, start)


def _calendar(name: str, items: Iterable[tuple[Schedule, Shift]], now: int) -> bytes:
    from icalendar import Calendar, Event  # imported when a feed is asked for

    cal = Calendar()
    cal.add("prodid", PRODID)
    cal.add("version", "2.0")
    cal.add("x-wr-calname", name)
    for schedule, shift in items:
        event = Event()
        event.add("uid", f"{schedule.id}-{shift.start}-{'-'.join(shift.contacts)}@flapjack")
        event.add("dtstamp", datetime.fromtimestamp(now, UTC))
        event.add("dtstart", datetime.fromtimestamp(shift.start, UTC))
        event.add("dtend", datetime.fromtimestamp(shift.end, UTC))
        event.add("summary", f"On call: {', '.join(shift.contacts)} ({schedule.name or schedule.id})")
        event.add("categories", [schedule.id])
        cal.add_component(event)
    return bytes(cal.to_ical())
