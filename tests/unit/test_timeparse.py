"""Times and durations people type (flapjack_py.timeparse), the maintenance filters over them
(flapjack_py.tools.timespec), plus the table renderer. Pure."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from flapjack_py.timeparse import TimeParseError, parse_duration, parse_iso_duration, parse_time
from flapjack_py.tools.table import render_table
from flapjack_py.tools.timespec import duration_filter, time_filter

NOW = datetime.fromtimestamp(1_700_000_000, UTC)  # Tuesday 2023-11-14 22:13:20 UTC
T = 1_700_000_000


@pytest.mark.parametrize(("text", "expected"), [
    ("now", T),
    ("in 3 hours", T + 3 * 3600),
    ("90 minutes ago", T - 5400),
    ("2 days from now", T + 2 * 86400),
    ("tomorrow 9am", 1_700_038_800),
    ("tomorrow", 1_700_006_400),
    ("today 17:30", 1_699_983_000),
    ("next monday", 1_700_438_400),
    ("2024-01-05 10:00", 1_704_448_800),
    ("1700003600", T + 3600),
    ("2024-05-04T22:00:00+02:00", 1_714_852_800),
    ("2024-05-04T20:00:00Z", 1_714_852_800),
    ("in 90m", T + 5400),
    ("in 1h30m", T + 5400),
    ("tomorrow 02:00", 1_700_013_600),
    ("next sunday 01:30 Europe/Berlin", 1_700_353_800),  # 2023-11-19 01:30 CET = 00:30 UTC
    ("2024-07-07 01:30 Europe/Berlin", 1_720_308_600),  # summer: CEST, 23:30 UTC the day before
])
def test_parse_time(text, expected):
    assert parse_time(text, NOW).timestamp() == expected


def test_parse_time_reads_words_in_the_given_zone():
    assert parse_time("tomorrow 02:00", NOW, "Europe/Berlin").timestamp() == 1_700_010_000
    assert parse_time("tomorrow 02:00", NOW, "America/New_York").timestamp() == 1_700_031_600


@pytest.mark.parametrize(("text", "says"), [
    ("whenever", "could not read the time 'whenever'"),
    ("3 hours", "is a duration, not a time"),
    ("in a while", "could not read"),
    ("", "no time given"),
    ("42", "is a number, not a time"),
    ("01/02/2025", "ambiguous: 01/02/2025 could be day 1 of month 2 or day 2 of month 1"),
    ("2024-03-31 02:30 Europe/Berlin", "does not exist in Europe/Berlin"),
    ("2024-10-27 02:30 Europe/Berlin", "2024-10-27 02:30 CEST (2024-10-27 00:30 UTC) or 2024-10-27 02:30 CET"),
    ("tomorrow 02:00 Mars/Olympus", "unknown time zone 'Mars/Olympus'"),
    ("tomorrow at lunch", "understood 'tomorrow at' as 2023-11-15"),
    ("x" * 201, "longer than 200"),
])
def test_parse_time_rejects_saying_what_was_understood(text, says):
    with pytest.raises(TimeParseError) as error:
        parse_time(text, NOW)
    assert says in str(error.value)


@pytest.mark.parametrize(("text", "seconds"), [
    ("90m", 5400), ("1h30m", 5400), ("1 hour, 30 minutes", 5400), ("PT1H30M", 5400), ("P1W", 604800),
    ("3600", 3600), (3600, 3600), ("2 hours", 7200),
])
def test_parse_duration(text, seconds):
    assert parse_duration(text) == seconds


@pytest.mark.parametrize("text", ["soon", "0", "-5", "", "5 parsecs", "P"])
def test_parse_duration_rejects(text):
    with pytest.raises(TimeParseError):
        parse_duration(text)


def test_iso_durations_keep_days_apart_from_seconds():
    """A rotation of P1D is a calendar day (23 or 25 hours across DST), not 86400 seconds."""
    assert (parse_iso_duration("P1D").days, parse_iso_duration("P1D").seconds) == (1, 0)
    assert (parse_iso_duration("PT12H").days, parse_iso_duration("PT12H").seconds) == (0, 43200)
    assert parse_iso_duration("P1W").days == 7
    with pytest.raises(TimeParseError):
        parse_iso_duration("1 week")


@pytest.mark.parametrize(("spec", "inside", "outside"), [
    ("before now", T - 1, T + 1),
    ("after in 1 hour", T + 3601, T + 3599),
    ("less than 1 hour ago", T - 100, T - 4000),
    ("more than 1 hour ago", T - 4000, T - 100),
    ("less than 1 hour from now", T + 100, T + 4000),
    ("more than 1 hour from now", T + 4000, T + 100),
    ("between 1 and 3 hours ago", T - 7200, T - 100),
    ("between 3 hours ago and 1 hour from now", T, T + 7200),
    ("on tomorrow", T + 86400, T),
])
def test_time_filter(spec, inside, outside):
    test = time_filter(spec, NOW)
    assert test(inside) and not test(outside)


def test_time_filter_needs_a_known_prefix():
    with pytest.raises(TimeParseError, match="^Finish time must start with"):
        time_filter("tomorrow", NOW, "Finish")


@pytest.mark.parametrize(("spec", "inside", "outside"), [
    ("less than 1 hour", 3599, 3600),
    ("more than 1 hour", 3601, 3600),
    ("equal to 30 minutes", 1800, 1801),
    ("30 minutes", 1800, 1799),
    ("between 3 and 4 hours", 3 * 3600 + 1, 4 * 3600),
])
def test_duration_filter(spec, inside, outside):
    test = duration_filter(spec)
    assert test(inside) and not test(outside)


def test_render_table():
    assert render_table(("A", "Long name"), [("x", None), ("yyy", 12)]).splitlines() == [
        "+-----+-----------+",
        "| A   | Long name |",
        "+-----+-----------+",
        "| x   |           |",
        "| yyy | 12        |",
        "+-----+-----------+",
    ]
    assert render_table(("A",), []).splitlines() == ["+---+", "| A |", "+---+"]
