"""Recurring scheduled maintenance: a series (RFC 5545 RRULE in a time zone, a duration, targets), its
occurrences, and its iCalendar form. Pure: times are passed in; storage is in store/maintenance_series.py.

Occurrences are computed on the wall clock of the series' zone (dateutil's rrule on an aware DTSTART),
so a window at 02:00 Europe/Berlin stays at 02:00 local time across a daylight-saving change.

Every evaluation is bounded (`between`): dateutil walks a rule from its DTSTART and, for a rule that
never matches (`BYMONTH=2;BYMONTHDAY=30`), on to the year 9999. So DTSTART is first moved forward by
whole periods to just before the window, and then the whole rule by whole 400-year Gregorian cycles
(the calendar repeats exactly: same weekdays, leap days, week numbers) to the last cycles before the
year 9999, where dateutil's own end of time stops a rule that never matches after at most 400 years.
The occurrences found are moved back. A rule with COUNT cannot be moved (COUNT counts from DTSTART):
it is walked from its start, at most WALK_BUDGET occurrences.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta, tzinfo
from itertools import islice
from math import gcd
from typing import Any

from dateutil.rrule import DAILY, HOURLY, MINUTELY, MONTHLY, SECONDLY, WEEKLY, YEARLY, rrule, rrulestr

from flapjack_py.timeparse import TimeParseError, parse_duration, parse_time, zone_named

log = logging.getLogger(__name__)

MAX_RRULE = 500
"""Longest RRULE text accepted (characters)."""
MAX_OCCURRENCES = 1000
"""Most occurrences computed for one series in one window of time."""
MAX_DURATION = 366 * 86400
"""Longest occurrence (seconds): a year."""
MAX_TARGETS = 1000
"""Most checks, entities or tags one series names."""
MIN_GAP = 3600
"""Occurrences of a maintenance rule are at least this far apart (seconds): at most hourly."""
HORIZON = 366 * 86400
"""A rule must have an occurrence this soon (seconds), and a start_time be at most this far from now."""
WALK_BUDGET = 20_000
"""Most occurrences one evaluation walks through (a COUNT rule from a distant DTSTART stops there)."""
GAP_SAMPLE = 100
"""How many upcoming occurrences are looked at for ones closer than MIN_GAP."""
ICAL_PRODID = "-//flapjack-py//maintenance//EN"

_STEP = {HOURLY: timedelta(hours=1), DAILY: timedelta(days=1), WEEKLY: timedelta(weeks=1)}
_PER_CYCLE = {YEARLY: 400, MONTHLY: 4800, WEEKLY: 20871, DAILY: 146097, HOURLY: 146097 * 24}
"""Periods in one 400-year Gregorian cycle (146,097 days, exactly 20,871 weeks)."""
_LAST_YEAR = 9998  # dateutil's rules end after datetime.MAXYEAR (9999); keep a year of room


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
        created=now), now)


def changed(series: Series, field_name: str, value: Any, now: int) -> Series:
    """`series` with one field (`rrule`, `timezone`, `start_time`, `duration`, `summary`) replaced;
    raises InvalidSeries for an unknown field or a bad value."""
    if field_name == "start_time":
        start = _start(value, series.timezone, now)
        return validated(replace(series, start=start - start % 60), now)
    if field_name == "duration":
        return series.with_changes(duration=_duration(value))
    if field_name == "summary":
        return series.with_changes(summary=_text(value))
    if field_name in ("rrule", "timezone") and isinstance(value, str):
        edited = replace(series, rrule=value) if field_name == "rrule" else replace(series, timezone=value)
        return validated(edited, now)
    raise InvalidSeries(f"cannot set {field_name!r} to {value!r}")


def validated(series: Series, now: int | None = None) -> Series:
    """`series` if it is usable; raises InvalidSeries saying why not. With `now`, its rule must also
    have an occurrence within HORIZON of `now`, and none closer than MIN_GAP to the next."""
    rule = rule_of(series)
    if not isinstance(series.duration, int) or not 0 < series.duration <= MAX_DURATION:
        raise InvalidSeries(f"duration must be 1 to {MAX_DURATION} seconds")
    for name in ("checks", "entities", "tags"):
        values = getattr(series, name)
        if len(values) > MAX_TARGETS or not all(isinstance(v, str) and v for v in values):
            raise InvalidSeries(f"{name} must be a list of at most {MAX_TARGETS} non-empty strings")
    if any(":" not in c or c.startswith(":") or c.endswith(":") for c in series.checks):
        raise InvalidSeries("checks are ENTITY:CHECK ids")
    if now is not None:
        check_rule(rule, now)
    return series


def rule_of(series: Series) -> rrule:
    """The dateutil rrule of `series`, anchored at its start in its zone; raises InvalidSeries."""
    text = series.rrule.strip() if isinstance(series.rrule, str) else ""
    if not text or len(text) > MAX_RRULE:
        raise InvalidSeries(f"rrule must be an RFC 5545 RRULE of at most {MAX_RRULE} characters")
    text = text.removeprefix("RRULE:").removeprefix("rrule:")
    freq = dict(p.partition("=")[::2] for p in text.upper().split(";")).get("FREQ")
    if freq not in ("HOURLY", "DAILY", "WEEKLY", "MONTHLY", "YEARLY"):
        raise InvalidSeries("rrule FREQ must be one of HOURLY, DAILY, WEEKLY, MONTHLY, YEARLY")
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
    if len(_attr(rule, "byminute") or ()) > 1 or len(_attr(rule, "bysecond") or ()) > 1:
        raise InvalidSeries("rrule must not recur more often than hourly (occurrences at least 1 hour apart)")
    if _attr(rule, "byeaster"):
        raise InvalidSeries("rrule BYEASTER is not supported")
    return rule


def check_rule(rule: rrule, now: int) -> None:
    """Raise InvalidSeries unless `rule` has an occurrence within HORIZON of `now` and its next
    GAP_SAMPLE occurrences are at least MIN_GAP apart. Costs a few milliseconds."""
    if _never_matches(rule):
        raise InvalidSeries("rrule has no occurrence within the next year (its days never match)")
    probe = rule.replace(count=None) if _attr(rule, "count") is not None else rule  # COUNT only ever removes
    after = datetime.fromtimestamp(now, UTC)
    found = between(probe, after, after + timedelta(seconds=HORIZON), GAP_SAMPLE)
    if not found or (_attr(rule, "count") is not None and not between(rule, after, after + timedelta(seconds=HORIZON), 1)):
        raise InvalidSeries("rrule has no occurrence within the next year")
    stamps = [int(m.timestamp()) for m in found]
    if any(b - a < MIN_GAP for a, b in zip(stamps, stamps[1:], strict=False)):
        raise InvalidSeries("rrule occurrences must be at least 1 hour apart")


def _never_matches(rule: rrule) -> bool:
    """True when no day ever passes the rule's day filters (`BYMONTH=2;BYMONTHDAY=30`), asked of the same filters
    on a YEARLY rule: a year's days are filtered at once, so 400 years (a whole Gregorian cycle) take
    milliseconds, where an HOURLY or DAILY rule that never matches walks them day by day (~0.2 s). BYSETPOS only
    picks among a period's matches, so the probe goes without it."""
    if _attr(rule, "freq") not in (HOURLY, DAILY, WEEKLY):
        return False
    probe = rule.replace(freq=YEARLY, interval=1, count=None, until=None, bysetpos=None)
    start: datetime = _attr(probe, "dtstart")
    return not between(probe, start - timedelta(seconds=1), _moved(start, 400) if start.year < 9000 else start, 1)


def between(rule: rrule, after: datetime, before: datetime, limit: int) -> list[datetime]:
    """At most `limit` occurrences of `rule` in (after, before), oldest first, at a bounded cost (see the
    module's docstring); `after` and `before` are aware."""
    zone = _attr(rule, "dtstart").tzinfo
    assert zone is not None, "maintenance rules have an aware DTSTART"
    years = 0
    if _attr(rule, "count") is None:
        rule = _near(rule, after.astimezone(zone))
        years = _cycle_years(rule, before.astimezone(zone).year)
        if years:
            rule = rule.replace(dtstart=_moved(_attr(rule, "dtstart"), years),
                                until=_moved(_attr(rule, "until"), years) if _attr(rule, "until") is not None else None)
    found: list[datetime] = []
    for walked, moment in enumerate(rule):
        if walked >= WALK_BUDGET:
            log.warning("rrule %s: walked %d occurrences, stopped", rule, WALK_BUDGET)
            break
        moment = _moved(moment, -years) if years else moment
        if moment >= before:
            break
        if moment > after:
            found.append(moment)
            if len(found) >= limit:
                break
    return found


def bounded_start(text: str, dtstart: datetime, moment: datetime, span: int = 10 * HORIZON) -> datetime | None:
    """For a recurring event of someone else's calendar (RRULE `text` from `dtstart`): a DTSTART from which
    its occurrences after `moment` are the same but reached without walking from a distant past (`dtstart`
    itself when it cannot move: a COUNT rule), or None when it has none within `span` seconds of `moment`
    or of its start, or reaching them walks more than WALK_BUDGET occurrences. Raises ValueError for a
    rule dateutil cannot read."""
    aware = dtstart if dtstart.tzinfo is not None else dtstart.replace(tzinfo=UTC)
    rule = rrulestr(text.removeprefix("RRULE:"), dtstart=aware, forceset=False, unfold=True)
    if not isinstance(rule, rrule) or _attr(rule, "freq") in (MINUTELY, SECONDLY):
        return None
    begin = max(moment, aware)
    if _attr(rule, "count") is not None:
        uncounted = rule.replace(count=None)
        if not between(uncounted, aware - timedelta(seconds=1), aware + timedelta(seconds=span), 1):
            return None  # never matches: dateutil would look for the COUNTth occurrence until the year 9999
        walked = list(islice(rule, WALK_BUDGET + 1))
        return dtstart if len(walked) <= WALK_BUDGET else None
    if not between(rule, begin, begin + timedelta(seconds=span), 1):
        return None
    moved: datetime = _attr(_near(rule, begin), "dtstart")
    return moved if dtstart.tzinfo is not None else moved.replace(tzinfo=None)


def _attr(rule: rrule, name: str) -> Any:
    """One of dateutil's parsed rule parts (`freq`, `interval`, `count`, `until`, `dtstart`, `byminute`, ...)."""
    return getattr(rule, f"_{name}", None)


def _near(rule: rrule, moment: datetime) -> rrule:
    """`rule` with DTSTART moved forward by whole periods (on the wall clock) to a period or two before
    `moment`: the same occurrences from there on. Leaves a rule that starts later as it is."""
    start, zone = _attr(rule, "dtstart"), _attr(rule, "dtstart").tzinfo
    wall, target = start.replace(tzinfo=None), moment.replace(tzinfo=None)
    if target <= wall:
        return rule
    if _attr(rule, "freq") in _STEP:
        period = _STEP[_attr(rule, "freq")] * _attr(rule, "interval")
        periods = (target - wall) // period - 2
        if periods <= 0:
            return rule
        return rule.replace(dtstart=(wall + period * periods).replace(tzinfo=zone))
    cycle = _cycle(rule)
    cycles = (target.year - wall.year) // cycle - 1 if cycle else 0
    return rule.replace(dtstart=_moved(start, cycles * cycle)) if cycles > 0 else rule


def _cycle(rule: rrule) -> int:
    """The fewest years, a whole number of 400-year cycles, that are also a whole number of the rule's
    periods (0 if that is more than 4,000 years)."""
    periods = _PER_CYCLE.get(_attr(rule, "freq"))
    if periods is None:
        return 0
    cycles = _attr(rule, "interval") // gcd(periods, _attr(rule, "interval"))
    return 400 * cycles if cycles <= 10 else 0


def _cycle_years(rule: rrule, last_year: int) -> int:
    """How many years (whole cycles) the rule can be moved ahead so that `last_year` stays before 9999."""
    cycle = _cycle(rule)
    return cycle * ((_LAST_YEAR - last_year) // cycle) if cycle else 0


def _moved(moment: datetime, years: int) -> datetime:
    """`moment` on the same wall clock `years` later (a multiple of 400: February 29th stays valid)."""
    zone: tzinfo | None = moment.tzinfo
    return moment.replace(tzinfo=None).replace(year=moment.year + years).replace(tzinfo=zone)


def occurrences(series: Series, start: int, end: int) -> list[int]:
    """Unix start times of the occurrences whose window overlaps [start, end), oldest first."""
    rule = rule_of(series)
    zone = zone_named(series.timezone)
    after = datetime.fromtimestamp(start - series.duration, zone)
    before = datetime.fromtimestamp(end, zone)
    return [int(m.timestamp()) for m in between(rule, after, before, MAX_OCCURRENCES)
            if int(m.timestamp()) + series.duration > start]


def next_occurrences(series: Series, now: int, count: int = 5) -> list[int]:
    """The start times of the next `count` occurrences beginning after `now` (within HORIZON)."""
    rule = rule_of(series)
    after = datetime.fromtimestamp(now, zone_named(series.timezone))
    return [int(m.timestamp()) for m in between(rule, after, after + timedelta(seconds=HORIZON), count)]


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
    rule = rule_of(series)
    dtstart = _attr(rule, "dtstart")
    first = next(iter(between(rule, dtstart - timedelta(seconds=1), dtstart + timedelta(seconds=HORIZON), 1)), None)
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
        start = int(parse_time(value, datetime.fromtimestamp(now, UTC), zone_named(zone)).timestamp())
    except TimeParseError as exc:
        raise InvalidSeries(f"start_time: {exc}") from None
    if abs(start - now) > HORIZON:
        raise InvalidSeries("start_time must be within a year of now")
    return start


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
