"""Natural-language times and the maintenance filters (pure), plus the table renderer."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from flapjack_py.tools.table import render_table
from flapjack_py.tools.timespec import TimeSpecError, duration_filter, parse_time, time_filter

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
])
def test_parse_time(text, expected):
    assert parse_time(text, NOW).timestamp() == expected


@pytest.mark.parametrize("text", ["whenever", "3 hours", "in a while", ""])
def test_parse_time_rejects(text):
    with pytest.raises(TimeSpecError):
        parse_time(text, NOW)


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
    with pytest.raises(TimeSpecError, match="^Finish time must start with"):
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
