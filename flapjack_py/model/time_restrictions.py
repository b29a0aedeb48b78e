"""Notification rule time restrictions: ice_cube-style schedule hashes evaluated with dateutil (engine.md 5.3). Pure.

A restriction describes the first occurrence (start_time .. end_time, zone-less
local times in the contact's time zone) and rules repeating it. Occurrences
keep their wall-clock time across daylight-saving changes, as ice_cube does.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime, timedelta, tzinfo
from typing import Any, Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from dateutil import parser as date_parser
from dateutil import rrule

log = logging.getLogger(__name__)

Frequency = Literal[0, 1, 2, 3, 4, 5, 6]
"""A dateutil rrule frequency (YEARLY .. SECONDLY)."""

FREQUENCIES: dict[str, Frequency] = {
    "Secondly": rrule.SECONDLY, "Minutely": rrule.MINUTELY, "Hourly": rrule.HOURLY, "Daily": rrule.DAILY,
    "Weekly": rrule.WEEKLY, "Monthly": rrule.MONTHLY, "Yearly": rrule.YEARLY,
}
"""ice_cube rule_type (short form) -> dateutil frequency."""

_DAY_NAMES = ("sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday")
_MONTH_NAMES = ("january", "february", "march", "april", "may", "june", "july", "august", "september",
                "october", "november", "december")
_RANGES = {  # validation key -> (dateutil keyword, allowed values)
    "day_of_month": ("bymonthday", set(range(-31, 32)) - {0}),
    "day_of_year": ("byyearday", set(range(-366, 367)) - {0}),
    "hour_of_day": ("byhour", set(range(24))),
    "minute_of_hour": ("byminute", set(range(60))),
    "second_of_minute": ("bysecond", set(range(60))),
}


class InvalidTimeRestriction(ValueError):
    """Raised when a time restriction hash cannot be turned into a schedule."""


def load_zone(name: str | None, default: str = "UTC") -> tzinfo:
    """The ZoneInfo named `name`, else the one named `default`, else UTC."""
    for candidate in (name, default):
        if candidate:
            try:
                return ZoneInfo(candidate)
            except (ZoneInfoNotFoundError, ValueError, OSError):  # OSError: e.g. 'Europe' is a directory
                log.debug("unknown time zone %r", candidate)
    return UTC


def is_valid_zone(name: object) -> bool:
    """True when `name` is a time zone name zoneinfo knows."""
    if not isinstance(name, str) or not name:
        return False
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        return False
    return True


def restrictions_occurring(restrictions: Iterable[Any] | None, now: int, zone: tzinfo) -> bool:
    """True when `restrictions` is empty/None or any entry occurs at unix time `now` (invalid entries never do)."""
    entries = list(restrictions or [])
    if not entries:
        return True
    return any(_entry_occurring(entry, now, zone) for entry in entries)


def validate_restriction(entry: Any, *, long_names: bool = False) -> None:
    """Raise InvalidTimeRestriction when `entry` is not a usable restriction (API validation).

    `long_names` also accepts `IceCube::WeeklyRule`-style rule types (the API rejects them).
    """
    build_schedule(entry, UTC, long_names=long_names)


def build_schedule(entry: Any, zone: tzinfo, *, long_names: bool = True,
                   near: datetime | None = None) -> tuple[rrule.rruleset, timedelta]:
    """The occurrence set and the length of each occurrence of restriction `entry` in `zone`.

    With `near`, fixed-period rules start at their last occurrence slot before it instead of at
    `start_time`: the same occurrences from there on, without walking years of seconds to reach them.
    """
    if not isinstance(entry, Mapping):
        raise InvalidTimeRestriction("a time restriction must be an object")
    start = parse_time(_first_present(entry, "start_time", "start_date"), zone)
    end = parse_time(_first_present(entry, "end_time", "end_date"), zone)
    rules = entry.get("rrules")
    if rules is None:
        rules = []
    if not isinstance(rules, list):
        raise InvalidTimeRestriction("rrules must be a list")
    schedule = rrule.rruleset()
    for spec in rules:
        schedule.rrule(build_rrule(spec, start, zone, long_names=long_names, near=near))
    if not rules:
        schedule.rdate(start)
    for moment in _time_list(entry.get("rtimes"), zone):
        schedule.rdate(moment)
    for moment in _time_list(entry.get("extimes"), zone):
        schedule.exdate(moment)
    # absolute seconds, as ice_cube's end_time - start_time (aware datetimes sharing a tzinfo subtract wall-clock)
    return schedule, timedelta(seconds=end.timestamp() - start.timestamp())


def build_rrule(spec: Any, start: datetime, zone: tzinfo, *, long_names: bool = True,
                near: datetime | None = None) -> rrule.rrule:
    """One dateutil rrule from an ice_cube rule hash, anchored at `start` (moved up towards `near`)."""
    if not isinstance(spec, Mapping):
        raise InvalidTimeRestriction("an rrule must be an object")
    freq = _frequency(spec.get("rule_type"), long_names)
    validations = spec.get("validations") or {}
    if not isinstance(validations, Mapping):
        raise InvalidTimeRestriction("validations must be an object")
    kwargs: dict[str, Any] = {"interval": _positive_int(spec.get("interval", 1), "interval"),
                              "wkst": _weekday_index(spec.get("week_start", 0) or 0)}
    kwargs.update(_limits(spec, validations, zone))
    kwargs.update(_by_rules(validations))
    if near is not None and "count" not in kwargs:
        start = _advance_start(start, freq, kwargs["interval"], near)
    try:
        return rrule.rrule(freq, dtstart=start, **kwargs)
    except (ValueError, TypeError) as exc:
        raise InvalidTimeRestriction(str(exc)) from exc


def parse_time(value: Any, zone: tzinfo) -> datetime:
    """A restriction time (string or {"time": ...}) as an aware datetime in `zone`.

    A zone-less value is local to `zone`; an explicit offset is honoured and
    converted to `zone`.
    """
    if isinstance(value, Mapping):
        value = value.get("time")
    if not isinstance(value, str) or not value.strip():
        raise InvalidTimeRestriction(f"not a time: {value!r}")
    try:
        parsed = datetime.fromisoformat(value.strip())
    except ValueError:
        try:
            parsed = date_parser.parse(value)
        except (ValueError, OverflowError) as exc:
            raise InvalidTimeRestriction(f"not a time: {value!r}") from exc
    if parsed.tzinfo is None:
        return parsed.replace(tzinfo=zone)
    return parsed.astimezone(zone)


def _entry_occurring(entry: Any, now: int, zone: tzinfo) -> bool:
    moment = datetime.fromtimestamp(now, UTC)
    try:
        schedule, duration = build_schedule(entry, zone, near=moment - _duration_bound(entry, zone))
    except InvalidTimeRestriction as exc:
        log.warning("invalid time restriction ignored (%s): %.200r", exc, entry)
        return False
    if duration <= timedelta(0):
        return bool(schedule.between(moment, moment, inc=True))
    earliest = moment - duration + timedelta(seconds=1)
    return bool(schedule.between(earliest, moment, inc=True))


_PERIOD_SECONDS = {rrule.SECONDLY: 1, rrule.MINUTELY: 60, rrule.HOURLY: 3600, rrule.DAILY: 86400,
                   rrule.WEEKLY: 7 * 86400}


def _advance_start(start: datetime, freq: int, interval: int, near: datetime) -> datetime:
    """`start` moved forward by whole periods to at least one period before `near` (wall-clock, like rrule)."""
    unit = _PERIOD_SECONDS.get(freq)
    if unit is None:  # monthly and yearly periods vary; they have few occurrences anyway
        return start
    period = unit * interval
    span = (near.astimezone(start.tzinfo).replace(tzinfo=None) - start.replace(tzinfo=None)).total_seconds()
    periods = int(span // period) - 1
    if periods <= 0:
        return start
    return start + timedelta(seconds=periods * period)


def _duration_bound(entry: Any, zone: tzinfo) -> timedelta:
    """The occurrence length of `entry` (zero when unreadable: build_schedule reports why)."""
    try:
        start = parse_time(_first_present(entry, "start_time", "start_date"), zone)
        end = parse_time(_first_present(entry, "end_time", "end_date"), zone)
    except (InvalidTimeRestriction, AttributeError, TypeError):
        return timedelta(0)
    return max(timedelta(seconds=end.timestamp() - start.timestamp()), timedelta(0))


def _first_present(entry: Mapping[str, Any], *names: str) -> Any:
    for name in names:
        if entry.get(name) is not None:
            return entry[name]
    return None


def _time_list(values: Any, zone: tzinfo) -> list[datetime]:
    if values is None:
        return []
    if not isinstance(values, list):
        raise InvalidTimeRestriction("rtimes/extimes must be lists")
    return [parse_time(v, zone) for v in values]


def _frequency(rule_type: Any, long_names: bool) -> Frequency:
    name = rule_type if isinstance(rule_type, str) else ""
    if long_names and name.startswith("IceCube::") and name.endswith("Rule"):
        name = name[len("IceCube::"):-len("Rule")]
    if name not in FREQUENCIES:
        raise InvalidTimeRestriction(f"unknown rule_type {rule_type!r}")
    return FREQUENCIES[name]


def _limits(spec: Mapping[str, Any], validations: Mapping[str, Any], zone: tzinfo) -> dict[str, Any]:
    limits: dict[str, Any] = {}
    count = spec.get("count", validations.get("count"))
    if count is not None:
        limits["count"] = _positive_int(count, "count")
    until = spec.get("until", validations.get("until"))
    if until is not None:
        limits["until"] = parse_time(until, zone)
    return limits


def _by_rules(validations: Mapping[str, Any]) -> dict[str, Any]:
    by: dict[str, Any] = {}
    weekdays: list[rrule.weekday] = []
    if validations.get("day") is not None:
        weekdays += [rrule.weekday(_weekday_index(d)) for d in _as_list(validations["day"], "day")]
    if validations.get("day_of_week") is not None:
        weekdays += _nth_weekdays(validations["day_of_week"])
    if weekdays:
        by["byweekday"] = weekdays
    if validations.get("month_of_year") is not None:
        by["bymonth"] = [_month(m) for m in _as_list(validations["month_of_year"], "month_of_year")]
    for key, (keyword, allowed) in _RANGES.items():
        if validations.get(key) is not None:
            by[keyword] = [_in_range(v, allowed, key) for v in _as_list(validations[key], key)]
    return by


def _nth_weekdays(value: Any) -> list[rrule.weekday]:
    if not isinstance(value, Mapping):
        raise InvalidTimeRestriction("day_of_week must be an object")
    result = []
    for day, nths in value.items():
        index = _weekday_index(day)
        for n in _as_list(nths, "day_of_week"):
            n = _in_range(n, set(range(-5, 6)) - {0}, "day_of_week")
            result.append(rrule.weekday(index)(n))
    return result


def _weekday_index(value: Any) -> int:
    """ice_cube weekday (0 = Sunday, or a name) -> dateutil weekday index (0 = Monday)."""
    if isinstance(value, str) and value.strip().lower() in _DAY_NAMES:
        return (_DAY_NAMES.index(value.strip().lower()) + 6) % 7
    number = _in_range(value, set(range(7)), "weekday")
    return (number + 6) % 7


def _month(value: Any) -> int:
    if isinstance(value, str) and value.strip().lower() in _MONTH_NAMES:
        return _MONTH_NAMES.index(value.strip().lower()) + 1
    return _in_range(value, set(range(1, 13)), "month_of_year")


def _as_list(value: Any, name: str) -> list[Any]:
    if not isinstance(value, list):
        raise InvalidTimeRestriction(f"{name} must be a list")
    return value


def _in_range(value: Any, allowed: set[int], name: str) -> int:
    number = _int(value, name)
    if number not in allowed:
        raise InvalidTimeRestriction(f"{name} value {value!r} out of range")
    return number


def _positive_int(value: Any, name: str) -> int:
    number = _int(value, name)
    if number < 1:
        raise InvalidTimeRestriction(f"{name} must be at least 1")
    return number


def _int(value: Any, name: str) -> int:
    if isinstance(value, bool):
        raise InvalidTimeRestriction(f"{name}: {value!r} is not an integer")
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        return int(value.strip())
    raise InvalidTimeRestriction(f"{name}: {value!r} is not an integer")
