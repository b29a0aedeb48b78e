"""Recurring scheduled maintenance: a series (RFC 5545 RRULE in a time zone, a duration, targets), its
occurrences, and its iCalendar form. Pure: times are passed in; storage is in store/maintenance_series.py.

Occurrences are computed on the wall clock of the series' zone (dateutil's rrule on an aware DTSTART),
so a window at 02:00 Europe/Berlin stays at 02:00 local time across a daylight-saving change.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from itertools import islice
from typing import Any

from dateutil.rrule import rrule, rrulestr

from .timeparse import TimeParseError, parse_duration, parse_time, zone_named

log = logging.getLogger(__name__)

MAX_RRULE = 500
"""Longest RRULE text accepted (characters)."""
MAX_OCCURRENCES = 1000
"""Most occurrences computed for one series in one window of time."""
MAX_DURATION = 366 * 86400
"""Longest occurrence (seconds): a year."""
MAX_TARGETS = 1000
"""Most checks, entities or tags one series names."""
ALLOWED_FREQ = ("HOURLY", "DAILY", "WEEKLY", "MONTHLY", "YEARLY")
"""Maintenance recurs at most hourly: MINUTELY/SECONDLY would flood the schedule."""
ICAL_PRODID = "-//flapjack-py//maintenance//EN"


class InvalidSeries(ValueError):
    """Raised when a series' rrule, zone, duration, start or targets are unusable."""


@dataclass(frozen=True)
class Series:
    """Recurring scheduled maintenance: occurrences of `rrule` from `start` in `timezone`, `duration` s each."""

    id: str
    rrule: str
    timezone: str
    start: int  # unix time of DTSTART (its wall-clock time in `timezone` sets the occurrences' time of day)
    duration: int
    summary: str = ""
    checks: tuple[str, ...] = ()  # E:C ids
    entities: tuple[str, ...] = ()  # entity ids: every current check of each
    tags: tuple[str, ...] = ()  # check tags and entity tags
    created: int = 0

    def with_changes(self, **changes: Any) -> Series:
        """A copy with `changes` applied, validated."""
        return validated(replace(self, **changes))


def new_series(series_id: str, fields: dict[str, Any], now: int) -> Series:
    """A validated Series from what a person or client gave: `rrule`, `timezone` [UTC], `start_time`
    (a time people type, read in that zone) [now, to the minute], `duration` (seconds or `90m`),
    `summary`, `checks`, `entities`, `tags`. Raises InvalidSeries."""
    zone = fields.get("timezone") or "UTC"
    if not isinstance(zone, str):
        raise InvalidSeries("timezone must be an IANA zone name")
    start = now
    if fields.get("start_time") not in (None, ""):
        start = _start(fields["start_time"], zone, now)
    start -= start % 60  # occurrences take DTSTART's seconds unless BYSECOND says otherwise: keep them whole
    return validated(Series(
        id=series_id, rrule=fields.get("rrule") or "", timezone=zone, start=start,
        duration=_duration(fields.get("duration")), summary=_text(fields.get("summary")),
        checks=_targets(fields, "checks"), entities=_targets(fields, "entities"), tags=_targets(fields, "tags"),
        created=now))


def changed(series: Series, field_name: str, value: Any, now: int) -> Series:
    """`series` with one field (`rrule`, `timezone`, `start_time`, `duration`, `summary`) replaced;
    raises InvalidSeries for an unknown field or a bad value."""
    if field_name == "start_time":
        start = _start(value, series.timezone, now)
        return series.with_changes(start=start - start % 60)
    if field_name == "duration":
        return series.with_changes(duration=_duration(value))
    if field_name == "summary":
        return series.with_changes(summary=_text(value))
    if field_name in ("rrule", "timezone") and isinstance(value, str):
        return series.with_changes(**{field_name: value})
    raise InvalidSeries(f"cannot set {field_name!r} to {value!r}")


def validated(series: Series) -> Series:
    """`series` if it is usable; raises InvalidSeries saying why not."""
    rule_of(series)
    if not isinstance(series.duration, int) or not 0 < series.duration <= MAX_DURATION:
        raise InvalidSeries(f"duration must be 1 to {MAX_DURATION} seconds")
    for name in ("checks", "entities", "tags"):
        values = getattr(series, name)
        if len(values) > MAX_TARGETS or not all(isinstance(v, str) and v for v in values):
            raise InvalidSeries(f"{name} must be a list of at most {MAX_TARGETS} non-empty strings")
    if any(":" not in c or c.startswith(":") or c.endswith(":") for c in series.checks):
        raise InvalidSeries("checks are ENTITY:CHECK ids")
    return series


def rule_of(series: Series) -> rrule:
    """The dateutil rrule of `series`, anchored at its start in its zone; raises InvalidSeries."""
    text = series.rrule.strip() if isinstance(series.rrule, str) else ""
    if not text or len(text) > MAX_RRULE:
        raise InvalidSeries(f"rrule must be an RFC 5545 RRULE of at most {MAX_RRULE} characters")
    text = text.removeprefix("RRULE:").removeprefix("rrule:")
    freq = dict(p.partition("=")[::2] for p in text.upper().split(";")).get("FREQ")
    if freq not in ALLOWED_FREQ:
        raise InvalidSeries(f"rrule FREQ must be one of {', '.join(ALLOWED_FREQ)}")
    try:
        zone = zone_named(series.timezone)
    except TimeParseError as exc:
        raise InvalidSeries(str(exc)) from None
    dtstart = datetime.fromtimestamp(series.start, zone).replace(microsecond=0)
    try:
        rule = rrulestr(text, dtstart=dtstart, forceset=False, unfold=True)
    except (ValueError, TypeError, KeyError, OverflowError) as exc:
        raise InvalidSeries(f"rrule {text!r} is not valid RFC 5545: {exc}") from None
    if not isinstance(rule, rrule):
        raise InvalidSeries("rrule must be one RRULE")
    return rule


def occurrences(series: Series, start: int, end: int) -> list[int]:
    """Unix start times of the occurrences whose window overlaps [start, end), oldest first."""
    rule = rule_of(series)
    zone = zone_named(series.timezone)
    after = datetime.fromtimestamp(start - series.duration, zone)
    before = datetime.fromtimestamp(end, zone)
    found = []
    for moment in islice(rule.xafter(after, inc=False), MAX_OCCURRENCES):
        if moment >= before:
            break
        ts = int(moment.timestamp())
        if ts + series.duration > start:
            found.append(ts)
    return found


def next_occurrences(series: Series, now: int, count: int = 5) -> list[int]:
    """The start times of the next `count` occurrences beginning after `now`."""
    rule = rule_of(series)
    after = datetime.fromtimestamp(now, zone_named(series.timezone))
    return [int(m.timestamp()) for m in islice(rule.xafter(after, inc=False), count)]


def to_ical(series_list: Iterable[Series], now: int) -> bytes:
    """An RFC 5545 calendar with one recurring VEVENT per series (DTSTART in its zone, DURATION, RRULE)."""
    from icalendar import Calendar  # imported when used, not by every executive start

    cal = Calendar()
    cal.add("prodid", ICAL_PRODID)
    cal.add("version", "2.0")
    cal.add("x-wr-calname", "Flapjack maintenance")
    for series in series_list:
        cal.add_component(_vevent(series, now))
    cal.add_missing_timezones()
    return bytes(cal.to_ical())


def _vevent(series: Series, now: int) -> Any:
    from icalendar import Event, vRecur

    # DTSTART is always an instance in RFC 5545 but not in dateutil unless the rule matches it: start
    # the calendar at the rule's first occurrence so both agree
    first = next(iter(rule_of(series)), None)
    event = Event()
    event.add("uid", f"maintenance-series-{series.id}@flapjack")
    event.add("dtstamp", datetime.fromtimestamp(now, UTC))
    event.add("dtstart", first or datetime.fromtimestamp(series.start, zone_named(series.timezone)))
    event.add("duration", timedelta(seconds=series.duration))
    event.add("rrule", vRecur.from_ical(series.rrule.removeprefix("RRULE:")))
    event.add("summary", series.summary or "Scheduled maintenance")
    event.add("description", describe_targets(series))
    return event


def describe_targets(series: Series) -> str:
    """`checks: a:HTTP; entities: 12; tags: db` for people reading a calendar."""
    parts = [f"{name}: {', '.join(values)}" for name, values in
             (("checks", series.checks), ("entities", series.entities), ("tags", series.tags)) if values]
    return "; ".join(parts) or "no targets"


def _start(value: Any, zone: str, now: int) -> int:
    if not isinstance(value, str):
        raise InvalidSeries("start_time must be a time (ISO 8601 or e.g. 'next sunday 02:00')")
    try:
        return int(parse_time(value, datetime.fromtimestamp(now, UTC), zone_named(zone)).timestamp())
    except TimeParseError as exc:
        raise InvalidSeries(f"start_time: {exc}") from None


def _duration(value: Any) -> int:
    if isinstance(value, (int, str)) and not isinstance(value, bool):
        try:
            return parse_duration(value)
        except TimeParseError as exc:
            raise InvalidSeries(f"duration: {exc}") from None
    raise InvalidSeries("duration must be a number of seconds or a duration such as '2 hours'")


def _text(value: Any) -> str:
    if value is None:
        return ""
    if not isinstance(value, str) or len(value) > 1000:
        raise InvalidSeries("summary must be a string of at most 1000 characters")
    return value


def _targets(fields: dict[str, Any], name: str) -> tuple[str, ...]:
    value = fields.get(name)
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise InvalidSeries(f"{name} must be a list of strings")
    return as_tuple(value)


def as_tuple(values: Sequence[Any] | None) -> tuple[str, ...]:
    """A target list as a de-duplicated tuple of strings (order kept)."""
    return tuple(dict.fromkeys(str(v) for v in values or ()))
