"""On-call schedules: who is on call at a moment, and the shifts over a period. Pure: no Redis, no clock.

A schedule has a time zone, layers and overrides. A layer hands over every `rotation` (ISO 8601:
days count on the zone's wall clock, so a daily 09:00 handoff stays at 09:00 across DST; hours count
as elapsed time) from `start` through its ordered contacts, optionally only inside restrictions
(weekdays and local hours); or it comes from an iCalendar whose events name contacts (RRULE/EXDATE
expanded by recurring-ical-events). Later layers win where they cover; overrides win over layers.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, time, timedelta, tzinfo
from typing import Any

from flapjack_py.oncall import recurrence
from flapjack_py.timeparse import TimeParseError, parse_iso_duration, zone_named

log = logging.getLogger(__name__)

HORIZON = 90 * 86400
"""How far ahead (seconds) `oncall_at` looks for the end of the current shift."""
ICAL_CHUNK = 7 * 86400
"""Seconds of an iCalendar layer expanded per query."""
LOOKAHEAD = (86400, 8 * 86400, HORIZON)
"""Windows (seconds) `oncall_at` looks ahead in, in turn, for the end of the current shift."""
MAX_SEGMENTS = 20_000
"""Most boundaries considered in one shifts() call (a year of hourly handoffs fits)."""
PARSED_CALENDARS = 32
"""iCalendar texts kept parsed (flapjack_py.oncall.schedules._query)."""
WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")


class InvalidSchedule(ValueError):
    """Raised when a schedule, layer, restriction or override is unusable."""


@dataclass(frozen=True)
class Restriction:
    """A layer only covers these ISO weekdays (1 = Monday) from `start` to `end` local time (end <= start:
    through midnight into the next day)."""

    weekdays: tuple[int, ...]
    start: time
    end: time


@dataclass(frozen=True)
class Layer:
    """A rotation (or, with `ical`, the events of a calendar) that puts contacts on call."""

    start: int
    rotation: timedelta = timedelta(days=7)
    contacts: tuple[str, ...] = ()
    restrictions: tuple[Restriction, ...] = ()
    ical: str = ""  # iCalendar text whose events' SUMMARY or ATTENDEE name a contact id or email
    ical_url: str = ""  # where `ical` was fetched from, if anywhere


@dataclass(frozen=True)
class Override:
    """`contact` is on call from `start` to `end`, whatever the layers say."""

    start: int
    end: int
    contact: str


@dataclass(frozen=True)
class Schedule:
    """A named set of layers and overrides, in one time zone."""

    id: str
    name: str
    timezone: str
    layers: tuple[Layer, ...]
    overrides: tuple[Override, ...] = ()

    @property
    def zone(self) -> tzinfo:
        return zone_named(self.timezone)


@dataclass(frozen=True)
class Shift:
    """`contacts` are on call from `start` to `end` (unix seconds); empty `contacts`: nobody."""

    start: int
    end: int
    contacts: tuple[str, ...]


@dataclass
class _Calendar:
    """A layer's iCalendar events expanded over one period: (start, end, contacts)."""

    events: list[tuple[int, int, tuple[str, ...]]] = field(default_factory=list)


# --- resolution ---------------------------------------------------------------


def oncall_at(schedule: Schedule, at: int, known: Mapping[str, str] | None = None) -> Shift:
    """The shift in force at `at`: who is on call and until when (at most HORIZON ahead).

    Looks a day ahead first, then further (LOOKAHEAD): a shift ending within the window ends there whatever
    lies beyond it, so only a shift longer than the window costs the longer look.
    """
    for ahead in LOOKAHEAD:
        first = shifts(schedule, at, at + ahead, known)[0]
        if first.end < at + ahead or ahead >= HORIZON:
            return Shift(at, first.end, first.contacts)
    raise AssertionError("LOOKAHEAD ends with HORIZON")


def oncall_now(schedule: Schedule, at: int, known: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """Who is on call at `at` (oncall_at's contacts without looking for the shift's end): what an escalation
    level pages."""
    calendars = [_expand(layer, at, at + 1, known or {}) if layer.ical else None for layer in schedule.layers]
    return _who(schedule, calendars, at)


def shifts(schedule: Schedule, start: int, end: int, known: Mapping[str, str] | None = None) -> list[Shift]:
    """The shifts covering [start, end), adjacent equal ones merged (gaps are shifts with nobody)."""
    if end <= start:
        return []
    calendars = [_expand(layer, start, end, known or {}) if layer.ical else None for layer in schedule.layers]
    points = sorted({start, end, *_boundaries(schedule, calendars, start, end)})[:MAX_SEGMENTS]
    found: list[Shift] = []
    for a, b in zip(points, points[1:], strict=False):
        who = _who(schedule, calendars, a)
        if found and found[-1].contacts == who and found[-1].end == a:
            found[-1] = Shift(found[-1].start, b, who)
        else:
            found.append(Shift(a, b, who))
    return found


def contact_shifts(schedule: Schedule, contact: str, start: int, end: int,
                   known: Mapping[str, str] | None = None) -> list[Shift]:
    """The shifts in [start, end) during which `contact` is on call."""
    return [s for s in shifts(schedule, start, end, known) if contact in s.contacts]


def _who(schedule: Schedule, calendars: Sequence[_Calendar | None], at: int) -> tuple[str, ...]:
    for override in reversed(schedule.overrides):
        if override.start <= at < override.end:
            return (override.contact,)
    for layer, calendar in zip(reversed(schedule.layers), reversed(calendars), strict=True):
        who = _layer_contacts(layer, calendar, schedule.zone, at)
        if who:
            return who
    return ()


def _layer_contacts(layer: Layer, calendar: _Calendar | None, zone: tzinfo, at: int) -> tuple[str, ...]:
    if calendar is not None:
        found = [c for s, e, contacts in calendar.events if s <= at < e for c in contacts]
        return tuple(dict.fromkeys(found))
    if at < layer.start or not layer.contacts or not _allowed(layer, zone, at):
        return ()
    return (layer.contacts[_turn(layer, zone, at) % len(layer.contacts)],)


def _turn(layer: Layer, zone: tzinfo, at: int) -> int:
    """The index k of the rotation turn in force at `at` (handoff(k) <= at < handoff(k + 1))."""
    approx = max(layer.rotation.total_seconds(), 1.0)
    k = max(int((at - layer.start) // approx) - 1, 0)
    while _handoff(layer, zone, k + 1) <= at:
        k += 1
    while k > 0 and _handoff(layer, zone, k) > at:
        k -= 1
    return k


def _handoff(layer: Layer, zone: tzinfo, k: int) -> int:
    """Start of turn k: k rotations' days on the zone's wall clock, then k rotations' seconds elapsed."""
    wall = datetime.fromtimestamp(layer.start, zone) + timedelta(days=k * layer.rotation.days)
    return int(wall.timestamp()) + k * (layer.rotation.seconds + layer.rotation.microseconds // 1_000_000)


def _allowed(layer: Layer, zone: tzinfo, at: int) -> bool:
    if not layer.restrictions:
        return True
    return any(s <= at < e for s, e in _restriction_windows(layer, zone, at - 86400, at + 1))


def _restriction_windows(layer: Layer, zone: tzinfo, start: int, end: int) -> list[tuple[int, int]]:
    """[start, end) unix intervals of the layer's restrictions touching [start, end)."""
    day = datetime.fromtimestamp(start, zone).date() - timedelta(days=1)
    last = datetime.fromtimestamp(end, zone).date()
    windows = []
    while day <= last:
        for r in layer.restrictions:
            if day.isoweekday() in r.weekdays:
                opens = datetime.combine(day, r.start, zone)
                closes = datetime.combine(day + timedelta(days=1 if r.end <= r.start else 0), r.end, zone)
                windows.append((int(opens.timestamp()), int(closes.timestamp())))
        day += timedelta(days=1)
    return windows


def _boundaries(schedule: Schedule, calendars: Sequence[_Calendar | None], start: int, end: int) -> Iterable[int]:
    """Every moment in (start, end) at which the answer may change."""
    points: list[int] = []
    for override in schedule.overrides:
        points += [override.start, override.end]
    for layer, calendar in zip(schedule.layers, calendars, strict=True):
        if calendar is not None:
            points += [t for s, e, _ in calendar.events for t in (s, e)]
            continue
        points.append(layer.start)
        points += [t for w in _restriction_windows(layer, schedule.zone, start, end) for t in w]
        points += _handoffs(layer, schedule.zone, start, end)
    return (p for p in points if start < p < end)


def _handoffs(layer: Layer, zone: tzinfo, start: int, end: int) -> list[int]:
    if end <= layer.start:
        return []
    k = _turn(layer, zone, max(start, layer.start))
    found: list[int] = []
    while len(found) < MAX_SEGMENTS:
        k += 1
        moment = _handoff(layer, zone, k)
        if moment >= end:
            break
        found.append(moment)
    return found


# --- iCalendar layers -------------------------------------------------------------


def _expand(layer: Layer, start: int, end: int, known: Mapping[str, str]) -> _Calendar:
    """The layer's events overlapping [start, end) that name contacts, in order of start.

    Asked a week at a time (at most MAX_SEGMENTS events: a calendar repeating every minute cannot stall a
    request). Not `after()`: it crawls through a long event (a week on call) 15 minutes at a time.
    """
    query = _query(layer.ical, datetime.fromtimestamp(start, UTC).year - 1)
    found: set[tuple[int, int, tuple[str, ...]]] = set()
    since = start
    while since < end and len(found) < MAX_SEGMENTS:
        until = min(since + ICAL_CHUNK, end)
        for event in query.between(datetime.fromtimestamp(since, UTC), datetime.fromtimestamp(until, UTC)):
            begins, ends = _event_span(event)
            who = _named_contacts(event, known)
            if who and ends > begins and begins < end:
                found.add((begins, ends, who))
        since = until
    return _Calendar(sorted(found)[:MAX_SEGMENTS])


@functools.lru_cache(maxsize=PARSED_CALENDARS)
def _query(text: str, since_year: int) -> Any:
    """The occurrence query of a layer's iCalendar text from the year `since_year` on, parsed once (a schedule
    is resolved many times): recurring events start at most a year before (_bound_recurrence)."""
    import icalendar
    import recurring_ical_events

    calendar = icalendar.Calendar.from_ical(text)
    anchor = datetime(max(since_year, 1), 1, 1, tzinfo=UTC)
    for event in calendar.walk("VEVENT"):
        _bound_recurrence(calendar, event, anchor)
    return recurring_ical_events.of(calendar)


def _bound_recurrence(calendar: Any, event: Any, anchor: datetime) -> None:
    """Give a recurring event a DTSTART near `anchor` (whole periods later: the same occurrences from
    there on; DTEND moved alike), or drop it when its rule never matches or cannot be walked cheaply
    (flapjack_py.oncall.recurrence.bounded_start): expanding must not walk an RRULE from a distant DTSTART."""
    rule, start = event.get("RRULE"), event.get("DTSTART")
    if rule is None or start is None:
        return
    began = start.dt if isinstance(start.dt, datetime) else datetime.combine(start.dt, time(0))
    try:
        moved = recurrence.bounded_start(rule.to_ical().decode(), began, anchor)
    except (ValueError, TypeError, KeyError, OverflowError):
        moved = None
    if moved is None:
        log.warning("iCalendar event %s: its RRULE never matches or is too costly to expand: left out",
                    str(event.get("UID", ""))[:100])
        calendar.subcomponents.remove(event)
        return
    if moved == began:
        return
    shift = moved - began
    for name in ("DTSTART", "DTEND"):
        if name in event:
            value = event[name].dt
            new = value + shift if isinstance(value, datetime) else (datetime.combine(value, time(0)) + shift).date()
            del event[name]
            event.add(name, new)


def _event_span(event: Any) -> tuple[int, int]:
    begins, ends = event["DTSTART"].dt, event["DTEND"].dt
    return _unix(begins), _unix(ends)


def _unix(value: Any) -> int:
    if isinstance(value, datetime):
        return int((value if value.tzinfo else value.replace(tzinfo=UTC)).timestamp())
    return int(datetime.combine(value, time(0), UTC).timestamp())  # an all-day event: a UTC day


def _named_contacts(event: Any, known: Mapping[str, str]) -> tuple[str, ...]:
    """Contact ids an event names: its SUMMARY and ATTENDEEs (mailto:), looked up in `known`
    (contact id -> id, lowercased email -> id); names nobody knows are ignored."""
    attendees = event.get("ATTENDEE") or []
    names = [str(event.get("SUMMARY", "")).strip()]
    names += [str(a).removeprefix("mailto:").removeprefix("MAILTO:") for a in
              (attendees if isinstance(attendees, list) else [attendees])]
    found = [known.get(n) or known.get(n.lower()) for n in names if n]
    return tuple(dict.fromkeys(f for f in found if f))


def check_ical(text: str) -> None:
    """Raise InvalidSchedule if `text` is not an iCalendar with at least one event."""
    import icalendar

    try:
        calendar = icalendar.Calendar.from_ical(text)
    except (ValueError, KeyError, IndexError) as exc:
        raise InvalidSchedule(f"not an iCalendar: {exc}") from None
    if not calendar.walk("VEVENT"):
        raise InvalidSchedule("the iCalendar has no events")


def rotation_of(text: Any) -> timedelta:
    """An ISO 8601 rotation length (`P1W`, `P1D`, `PT12H`); raises InvalidSchedule."""
    try:
        value = parse_iso_duration(text) if isinstance(text, str) else None
    except TimeParseError as exc:
        raise InvalidSchedule(str(exc)) from None
    if value is None or value < timedelta(minutes=1):
        raise InvalidSchedule(f"rotation must be an ISO 8601 duration of a minute or more, e.g. P1W: {text!r}")
    return value
