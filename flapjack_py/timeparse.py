"""Times and durations people type, everywhere one is entered (CLI, UI forms, API query strings, chat).

Times: ISO 8601, a unix timestamp, `now`, `in 2 hours`, `90 minutes ago`, `tomorrow 02:00`,
`next sunday 01:30 Europe/Berlin` (a trailing IANA zone name is the zone the words are read in).
Durations: seconds, `90m`, `1h30m`, `1 hour, 30 minutes`, ISO 8601 (`PT1H30M`, `P1W`).
Parsing is done by dateparser, dateutil and pydantic; this module only chooses which and checks the
answer. Pure: `now` is passed in. Errors say what was understood, so a person can correct the input.
"""

from __future__ import annotations

import logging
import re
from datetime import datetime, timedelta, tzinfo
from typing import cast
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from dateutil import tz as dateutil_tz

from flapjack_py.durations import parse_duration as parse_human_duration
from flapjack_py.errors import InvalidDuration

log = logging.getLogger(__name__)

MAX_INPUT = 200
"""Longest time or duration text read (characters); longer input is refused before parsing."""

_RELATIVE = re.compile(r"^(?:in\s+(?P<ahead>.+)|(?P<ago>.+?)\s+ago|(?P<later>.+?)\s+from\s+now)$")
_ZONE_NAME = re.compile(r"^[A-Za-z_]+(?:/[A-Za-z0-9_+\-]+)+$|^UTC$|^GMT$")
_DAY_FIRST_OR_MONTH = re.compile(r"\b(\d{1,2})[/.](\d{1,2})[/.](\d{2,4})\b")
_SETTINGS = {"PREFER_DATES_FROM": "future", "PREFER_DAY_OF_MONTH": "first", "RETURN_TIME_AS_PERIOD": True}


class TimeParseError(ValueError):
    """Raised when a time or duration cannot be read, or can be read more than one way."""


def parse_time(text: str, now: datetime, zone: str | tzinfo | None = None) -> datetime:
    """Read a time a person typed; return an aware datetime.

    `now` (aware) is the reference for relative words; `zone` (default: `now`'s zone) is the zone
    in which a time without an offset is read, unless the text ends in an IANA zone name.
    Raises TimeParseError naming what was understood.
    """
    words = _clean(text)
    words, named = _split_zone(words)
    where = named or _zone(zone) or now.tzinfo or ZoneInfo("UTC")
    local_now = now.astimezone(where)
    if words.lower() in ("now", "right now"):
        return local_now
    if words.isdigit():
        if len(words) < 9:
            raise TimeParseError(f"{words!r} is a number, not a time (a unix timestamp has 9 or more digits)")
        return datetime.fromtimestamp(int(words), where)
    for parse in (_iso, _relative):
        found = parse(words, local_now)
        if found is not None:
            return _in_zone(found, where, text)
    if _duration_or_none(words) is not None:
        raise TimeParseError(f"{text.strip()!r} is a duration, not a time (did you mean 'in {words}'?)")
    _refuse_ambiguous_date(words, text)
    return _in_zone(_natural(words, local_now, text), where, text)


def parse_duration(text: str | int) -> int:
    """Read a duration a person typed (`90m`, `1h30m`, `2 hours`, `PT1H30M`, `3600`); return seconds > 0.

    Raises TimeParseError.
    """
    words = str(text) if isinstance(text, int) and not isinstance(text, bool) else _clean(str(text))
    seconds = _duration_or_none(words)
    if seconds is None:
        raise TimeParseError(f"could not read the duration {words!r}; try '90m', '1h30m', '2 hours', "
                             f"'PT1H30M' or a number of seconds")
    if seconds <= 0:
        raise TimeParseError(f"the duration must be more than 0 seconds (understood {seconds}s)")
    return seconds


def parse_iso_duration(text: str) -> timedelta:
    """An ISO 8601 duration (`P1W`, `P1D`, `PT12H`) as a timedelta whose days stay apart from its seconds.

    Raises TimeParseError.
    """
    if not isinstance(text, str) or not text.strip().upper().startswith("P") or len(text) > MAX_INPUT:
        raise TimeParseError(f"not an ISO 8601 duration: {text!r} (e.g. P1W, P1D, PT12H)")
    from pydantic import TypeAdapter, ValidationError  # imported when used: it is slow to import

    try:
        value = TypeAdapter(timedelta).validate_python(text.strip().upper())
    except ValidationError:
        raise TimeParseError(f"not an ISO 8601 duration: {text!r} (e.g. P1W, P1D, PT12H)") from None
    if value <= timedelta(0):
        raise TimeParseError(f"the duration {text!r} must be more than 0")
    return value


def zone_named(name: str) -> ZoneInfo:
    """The IANA zone `name`; raises TimeParseError for an unknown one."""
    if not isinstance(name, str) or not name or len(name) > 64 or not _ZONE_NAME.match(name):
        raise TimeParseError(f"unknown time zone {name!r} (use an IANA name such as Europe/Berlin)")
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise TimeParseError(f"unknown time zone {name!r} (use an IANA name such as Europe/Berlin)") from None


def describe(moment: datetime) -> str:
    """`2024-03-31 01:30 CET (00:30 UTC)`: how a parsed time is shown back to the person who typed it."""
    utc = moment.astimezone(ZoneInfo("UTC"))
    local = moment.strftime("%Y-%m-%d %H:%M %Z")
    return local if moment.utcoffset() == timedelta(0) else f"{local} ({utc:%Y-%m-%d %H:%M} UTC)"


# --- helpers ----------------------------------------------------------------


def _clean(text: str) -> str:
    words = " ".join(str(text).split())
    if not words:
        raise TimeParseError("no time given")
    if len(words) > MAX_INPUT:
        raise TimeParseError(f"time text longer than {MAX_INPUT} characters")
    return words


def _zone(zone: str | tzinfo | None) -> tzinfo | None:
    return zone_named(zone) if isinstance(zone, str) else zone


def _split_zone(words: str) -> tuple[str, tzinfo | None]:
    """`next sunday 01:30 Europe/Berlin` -> (`next sunday 01:30`, Europe/Berlin)."""
    head, _, last = words.rpartition(" ")
    if head and _ZONE_NAME.match(last):
        return head, zone_named(last)
    return words, None


def _iso(words: str, now: datetime) -> datetime | None:
    text = words.replace("Z", "+00:00").replace("z", "+00:00")
    if not text[:4].isdigit():
        return None
    try:
        return datetime.fromisoformat(text)
    except ValueError:
        return None


def _relative(words: str, now: datetime) -> datetime | None:
    match = _RELATIVE.match(words.lower())
    if not match:
        return None
    ahead = match.group("ahead") or match.group("later")
    seconds = _duration_or_none(ahead or match.group("ago"))
    if seconds is None:
        return None
    return now + timedelta(seconds=seconds) if ahead else now - timedelta(seconds=seconds)


def _duration_or_none(words: str) -> int | None:
    try:
        return parse_human_duration(words)
    except InvalidDuration:
        pass
    try:
        return int(parse_iso_duration(words).total_seconds())
    except TimeParseError:
        return None


def _natural(words: str, now: datetime, original: str) -> datetime:
    from dateparser.date import DateDataParser  # imported when used: it is slow to import (every CLI start)

    # naive wall-clock reference in the zone: dateparser answers naive unless the text names an offset
    settings = {**_SETTINGS, "RELATIVE_BASE": now.replace(tzinfo=None)}
    data = DateDataParser(languages=["en"], settings=settings).get_date_data(words)
    found = data.date_obj
    if found is None:
        raise TimeParseError(_not_understood(words, now, settings, original))
    if data.period == "day":  # a day without a time of day ("tomorrow", "next monday") starts at midnight
        found = found.replace(hour=0, minute=0, second=0, microsecond=0)
    return cast(datetime, found)


def _wall(found: datetime, now: datetime) -> datetime:
    """A naive dateparser answer in `now`'s zone (an answer with an offset is kept)."""
    return found if found.tzinfo is not None else found.replace(tzinfo=now.tzinfo)


def _not_understood(words: str, now: datetime, settings: dict[str, object], original: str) -> str:
    """The error for unreadable text, naming the longest leading part that could be read."""
    import dateparser

    parts = words.split(" ")
    for cut in range(len(parts) - 1, 0, -1):
        head = " ".join(parts[:cut])
        found = dateparser.parse(head, languages=["en"], settings=settings)
        if found is not None:
            rest = " ".join(parts[cut:])
            return (f"could not read the time {original.strip()!r}: understood {head!r} as {describe(_wall(found, now))}, "
                    f"but not {rest!r}")
    return (f"could not read the time {original.strip()!r}; try ISO 8601 (2024-05-04T22:00:00+02:00), 'now', "
            f"'in 2 hours', 'tomorrow 02:00' or 'next sunday 01:30 Europe/Berlin'")


def _refuse_ambiguous_date(words: str, original: str) -> None:
    """`01/02/2025` is 1 February in most places and 2 January in others: ask for ISO 8601 instead."""
    match = _DAY_FIRST_OR_MONTH.search(words)
    if match:
        first, second = int(match.group(1)), int(match.group(2))
        if first != second and first <= 12 and second <= 12:
            raise TimeParseError(f"{original.strip()!r} is ambiguous: {match.group(0)} could be day {first} of "
                                 f"month {second} or day {second} of month {first}; write YYYY-MM-DD")


def _in_zone(moment: datetime, where: tzinfo, original: str) -> datetime:
    """Attach `where` to a time without offset, refusing wall times a DST change skips or repeats."""
    if moment.tzinfo is not None:
        return moment
    moment = moment.replace(tzinfo=where)
    if not dateutil_tz.datetime_exists(moment):
        raise TimeParseError(f"{original.strip()!r}: {moment:%Y-%m-%d %H:%M} does not exist in {_zone_key(where)} "
                             f"(the clocks skip it for daylight saving time)")
    if dateutil_tz.datetime_ambiguous(moment):
        first, second = moment.replace(fold=0), moment.replace(fold=1)
        raise TimeParseError(f"{original.strip()!r} is ambiguous in {_zone_key(where)}: {describe(first)} or "
                             f"{describe(second)} (the clocks go back); give an offset or a UTC time")
    return moment


def _zone_key(zone: tzinfo) -> str:
    key = getattr(zone, "key", None)
    if isinstance(key, str):
        return key
    name = zone.tzname(None)
    return name if name else "UTC"
