"""Human durations and "time period in words" (engine.md section 0)."""

from __future__ import annotations

import pytest

from flapjack_py.durations import parse_duration, words
from flapjack_py.errors import InvalidDuration

YEAR = 31_557_600  # 365.25 days
MONTH = 30 * 86400


@pytest.mark.parametrize(("units", "seconds"), [
    (("s", "sec", "second", "seconds"), 1),
    (("m", "min", "minute", "minutes"), 60),
    (("h", "hr", "hour", "hours"), 3600),
    (("d", "day", "days"), 86400),
    (("w", "wk", "week", "weeks"), 7 * 86400),
    (("mo", "month", "months"), MONTH),
    (("y", "yr", "year", "years"), YEAR),
], ids=["seconds", "minutes", "hours", "days", "weeks", "months", "years"])
def test_every_unit_spelling(units: tuple[str, ...], seconds: int) -> None:
    for unit in units:
        assert parse_duration(f"3 {unit}") == 3 * seconds, unit
        assert parse_duration(f"3{unit}") == 3 * seconds, unit


@pytest.mark.parametrize(("text", "seconds"), [
    ("100 years", 3_155_760_000), ("4 hours", 14400), ("1 hour", 3600), ("45", 45), ("0", 0), ("1 year", YEAR),
    ("1 hour 30 minutes", 5400), ("1 hour, 30 minutes", 5400), ("2 Days", 172800), ("  10 min ", 600),
])
def test_strings(text: str, seconds: int) -> None:
    assert parse_duration(text) == seconds


@pytest.mark.parametrize(("value", "seconds"), [(0, 0), (45, 45), (3_155_760_000, 3_155_760_000)])
def test_integers_are_seconds(value: int, seconds: int) -> None:
    assert parse_duration(value) == seconds


@pytest.mark.parametrize("value", ["", "soon", "5 parsecs", "hours", "four hours", "-5", True])
def test_unparseable(value: object) -> None:
    with pytest.raises(InvalidDuration):
        parse_duration(value)  # type: ignore[arg-type]


@pytest.mark.parametrize(("seconds", "text"), [
    (14400, "4 hours"), (5400, "1 hour, 30 minutes"), (86402, "1 day, 2 seconds"), (1, "1 second"),
    (60, "1 minute"), (120, "2 minutes"), (90061, "1 day, 1 hour, 1 minute, 1 second"),
    (2 * 86400 + 2 * 3600 + 2 * 60 + 2, "2 days, 2 hours, 2 minutes, 2 seconds"), (0, "0 seconds"),
    (-5, "0 seconds"), (None, "0 seconds"),
])
def test_words(seconds: int | None, text: str) -> None:
    assert words(seconds) == text
