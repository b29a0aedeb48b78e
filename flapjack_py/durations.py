"""Human durations ("100 years", "1 hour, 30 minutes") and their words, as engine.md section 0 defines."""

from __future__ import annotations

import re

from flapjack_py.errors import InvalidDuration

MINUTE = 60
HOUR = 3600
DAY = 86400
WEEK = 7 * DAY
MONTH = 30 * DAY
YEAR = 31_557_600  # 365.25 days, as chronic_duration counts a year
MAX_DURATION = 1000 * YEAR
"""Longest duration accepted anywhere (config, events), in seconds: datetimes stay within year 9999."""

_UNITS = {
    "s": 1, "sec": 1, "secs": 1, "second": 1, "seconds": 1,
    "m": MINUTE, "min": MINUTE, "mins": MINUTE, "minute": MINUTE, "minutes": MINUTE,
    "h": HOUR, "hr": HOUR, "hrs": HOUR, "hour": HOUR, "hours": HOUR,
    "d": DAY, "day": DAY, "days": DAY,
    "w": WEEK, "wk": WEEK, "wks": WEEK, "week": WEEK, "weeks": WEEK,
    "mo": MONTH, "mos": MONTH, "month": MONTH, "months": MONTH,
    "y": YEAR, "yr": YEAR, "yrs": YEAR, "year": YEAR, "years": YEAR,
}
_PART = re.compile(r"(\d+(?:\.\d+)?)\s*([a-z]*)")


def parse_duration(value: int | float | str) -> int:
    """Return `value` in whole seconds; a bare number is seconds.

    Raises InvalidDuration for anything else ("soon", "", "5 parsecs", negatives).
    """
    if isinstance(value, bool):
        raise InvalidDuration(f"not a duration: {value!r}")
    if isinstance(value, (int, float)):
        if value < 0:
            raise InvalidDuration(f"negative duration: {value!r}")
        return int(value)
    text = str(value).strip().lower().replace(",", " ").replace(" and ", " ")
    if not text:
        raise InvalidDuration("empty duration")
    total = 0.0
    pos = 0
    for match in _PART.finditer(text):
        if text[pos:match.start()].strip():
            raise InvalidDuration(f"cannot parse duration {value!r}")
        number, unit = match.groups()
        if unit and unit not in _UNITS:
            raise InvalidDuration(f"unknown unit {unit!r} in duration {value!r}")
        total += float(number) * _UNITS.get(unit, 1)
        pos = match.end()
    if pos == 0 or text[pos:].strip():
        raise InvalidDuration(f"cannot parse duration {value!r}")
    return int(total)


def words(seconds: int | None) -> str:
    """Say a period in words: `4 hours`, `1 hour, 30 minutes`; non-positive -> `0 seconds`."""
    if not seconds or seconds <= 0:
        return "0 seconds"
    parts = []
    for name, size in (("day", DAY), ("hour", HOUR), ("minute", MINUTE), ("second", 1)):
        n, seconds = divmod(seconds, size)
        if n:
            parts.append(f"{n} {name}{'' if n == 1 else 's'}")
    return ", ".join(parts)
