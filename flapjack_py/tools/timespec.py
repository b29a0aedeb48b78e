"""The time and duration filters of `flapjack maintenance show|delete` ("before X", "between X and Y",
"less than 2 hours"): a thin grammar over flapjack_py.timeparse, which reads the times and durations
themselves. Pure: `now` is passed in.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable
from datetime import datetime, timedelta

from flapjack_py.timeparse import TimeParseError, parse_duration, parse_time

TimeSpecError = TimeParseError
"""The error of a filter expression that cannot be understood (a TimeParseError)."""

TIME_PREFIXES = ("more than", "less than", "on", "before", "after", "between")
_BETWEEN = re.compile(r"^between\s+(.+?)\s+and\s+(.+)$")
_DURATION_TESTS: tuple[tuple[str, Callable[[int, int], bool]], ...] = (
    ("less than", operator.lt), ("before", operator.lt), ("more than", operator.gt), ("after", operator.gt),
    ("equal to", operator.eq))


def day_span(text: str, now: datetime) -> tuple[datetime, datetime]:
    """[start, end) of the calendar day an expression falls on ("tomorrow", "2024-01-05")."""
    day = _midnight(parse_time(text, now))
    return day, day + timedelta(days=1)


def time_filter(spec: str, now: datetime, what: str = "Start") -> Callable[[int], bool]:
    """A predicate on unix times for `before X`, `after X`, `on DATE`, `less|more than X ago|from now`,
    `between X and Y`; raise TimeSpecError naming `what` for anything else."""
    words = " ".join(spec.lower().split())
    if not words.startswith(TIME_PREFIXES):
        raise TimeSpecError(f"{what} time must start with 'more than', 'less than', 'on', 'before', 'after' "
                            f"or 'between'")
    between = _BETWEEN.match(words)
    if between:
        low, high = sorted(_between_times(between.group(1), between.group(2), now))
        return lambda ts: low.timestamp() < ts < high.timestamp()
    if words.startswith("on "):
        start, end = day_span(words[3:], now)
        return lambda ts: start.timestamp() <= ts < end.timestamp()
    return _comparison(words, now)


def duration_filter(spec: str) -> Callable[[int], bool]:
    """A predicate on durations (s) for `less than D`, `more than D`, `between D1 and D2` or exact `D`."""
    words = " ".join(spec.lower().split())
    between = _BETWEEN.match(words)
    if between:
        first, last = _share_unit(between.group(1), between.group(2))
        low, high = sorted((_duration(first, spec), _duration(last, spec)))
        return lambda d: low < d < high
    for prefix, test in _DURATION_TESTS:
        if words.startswith(prefix):
            limit = _duration(words[len(prefix):], spec)
            return lambda d: bool(test(d, limit))
    limit = _duration(words, spec)
    return lambda d: d == limit


def stamp(ts: float) -> str:
    """A unix time in local time as Ruby's Time#to_s prints it: `2023-11-14 22:13:20 +0000`."""
    return datetime.fromtimestamp(ts).astimezone().strftime("%Y-%m-%d %H:%M:%S %z")


# --- helpers ----------------------------------------------------------------


def _duration(text: str, original: str) -> int:
    try:
        return parse_duration(text.strip())
    except TimeParseError as exc:
        raise TimeSpecError(f"Failed to parse {original.strip()!r}: {exc}") from None


def _midnight(moment: datetime) -> datetime:
    return moment.replace(hour=0, minute=0, second=0, microsecond=0)


def _between_times(first: str, last: str, now: datetime) -> tuple[datetime, datetime]:
    first, last = _share_unit(first, last)
    return _time_or_from_now(first, now), _time_or_from_now(last, now)


def _share_unit(first: str, last: str) -> tuple[str, str]:
    """`between 3 and 4 hours ago`: a one-word first part takes the rest of the second ("hours ago")."""
    if " " not in first.strip():
        _, _, suffix = last.strip().partition(" ")
        if suffix:
            first = f"{first.strip()} {suffix}"
    return first, last


def _time_or_from_now(text: str, now: datetime) -> datetime:
    try:
        return parse_time(text, now)
    except TimeSpecError:
        return parse_time(f"{text} from now", now)


def _comparison(words: str, now: datetime) -> Callable[[int], bool]:
    for prefix in ("less than", "more than", "before", "after"):
        if words.startswith(prefix):
            moment = _time_or_from_now(words[len(prefix):].strip(), now).timestamp()
            break
    else:  # pragma: no cover - time_filter checked the prefixes
        raise TimeSpecError(f"cannot understand {words!r}")
    past = moment < now.timestamp()
    # "less than 2 hours ago" is after that moment, "less than 2 hours from now" before it; "more than" the reverse
    earlier = {"before": True, "after": False, "less than": not past, "more than": past}[prefix]
    if earlier:
        return lambda ts: ts < moment
    return lambda ts: ts > moment
