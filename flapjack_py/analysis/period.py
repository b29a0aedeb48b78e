"""The period of on-call analytics: `since`/`until` as people type them (issue 32). Pure.

`since` is a time (ISO 8601, unix time of 9 or more digits, `monday 09:00`, `3 days ago`) or a duration back from `until` (`7d`,
`36 hours`); `until` is a time, default now. The default period is the last 7 days; at most MAX_PERIOD long.
"""

from __future__ import annotations

from datetime import UTC, datetime

from flapjack_py import timeparse
from flapjack_py.errors import FlapjackError

DEFAULT_PERIOD = 7 * 86400
MAX_PERIOD = 92 * 86400
MAX_TEXT = 100


class BadPeriod(FlapjackError):
    """since/until cannot be read, or do not make a period (the message names the problem)."""


def period(since: str | None, until: str | None, now: int) -> tuple[int, int]:
    """(since, until) in unix seconds, both included."""
    end = now if not until else _time("until", until, now)
    if not since:
        start = end - DEFAULT_PERIOD
    else:
        back = _duration_back(since, end)
        start = _time("since", since, now) if back is None else back
    if start > end:
        raise BadPeriod(f"since ({_shown(start)}) is after until ({_shown(end)})")
    if end - start > MAX_PERIOD:
        raise BadPeriod(f"the period is longer than {MAX_PERIOD // 86400} days")
    return start, end


def _duration_back(text: str, end: int) -> int | None:
    if len(text) > MAX_TEXT:
        raise BadPeriod(f"since is longer than {MAX_TEXT} characters")
    if text.strip().isdigit() and len(text.strip()) >= 9:  # a unix time, not seconds back
        return None
    try:
        return end - timeparse.parse_duration(text)
    except (timeparse.TimeParseError, ValueError):
        return None


def _time(name: str, text: str, now: int) -> int:
    if len(text) > MAX_TEXT:
        raise BadPeriod(f"{name} is longer than {MAX_TEXT} characters")
    try:
        return int(timeparse.parse_time(text, datetime.fromtimestamp(now, UTC), "UTC").timestamp())
    except timeparse.TimeParseError as exc:
        raise BadPeriod(f"{name}: {exc}") from None


def _shown(ts: int) -> str:
    return datetime.fromtimestamp(ts, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
