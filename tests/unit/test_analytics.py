"""The pure parts of on-call analytics (issue 32): hours, spreads, local time, incidents."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from flapjack_py.analysis import analytics
from flapjack_py.analysis.incidents import Ack, Facts, Page, failures, incidents
from flapjack_py.config.analytics import Hours, parse_hours


def utc(*parts: int) -> int:
    return int(datetime(*parts, tzinfo=UTC).timestamp())


def test_hours_parse_days_and_wrap_past_midnight() -> None:
    assert parse_hours("Mon-Fri 09:00-18:00") == Hours(frozenset(range(5)), 540, 1080)
    assert parse_hours("Sat,Sun 10:00-12:00").days == frozenset({5, 6})
    assert parse_hours("Fri-Mon 10:00-12:00").days == frozenset({4, 5, 6, 0})
    sleep = parse_hours("22:00-07:00")
    assert sleep.contains(0, 23 * 60) and sleep.contains(1, 6 * 60 + 59) and not sleep.contains(1, 7 * 60)
    friday_nights = parse_hours("Fri 22:00-07:00")
    assert friday_nights.contains(4, 23 * 60) and friday_nights.contains(5, 60) and not friday_nights.contains(4, 60)


@pytest.mark.parametrize("text", ["9-5", "Mon-Fri", "Funday 09:00-10:00", "10:00-10:00", "25:00-26:00"])
def test_bad_hours_are_refused(text: str) -> None:
    with pytest.raises(ValueError):
        parse_hours(text)


def test_spread_median_and_nearest_rank_p90() -> None:
    assert analytics.spread([]) == {"median": None, "p90": None, "count": 0}
    assert analytics.spread([5]) == {"median": 5, "p90": 5, "count": 1}
    assert analytics.spread([1, 2, 3, 4]) == {"median": 2.5, "p90": 4, "count": 4}
    assert analytics.spread(list(range(1, 21))) == {"median": 10.5, "p90": 18, "count": 20}


def test_local_minute_follows_the_zone_across_dst() -> None:
    assert analytics.local_minute(utc(2024, 11, 1, 13, 30), "America/New_York") == (4, 9 * 60 + 30)
    assert analytics.local_minute(utc(2024, 11, 4, 13, 30), "America/New_York") == (0, 8 * 60 + 30)
    assert analytics.local_minute(utc(2024, 3, 2, 23, 59), "Asia/Kolkata") == (6, 5 * 60 + 29)


def test_failures_and_incidents() -> None:
    assert failures([(10, "ok"), (20, "critical"), (30, "warning"), (40, "ok"), (50, "unknown")]) == [
        (20, 40), (50, None)]
    facts = Facts(0, 1000, [Page(50, "ada", "email", "a:b", "problem"), Page(52, "bob", "sms", "a:b", "problem"),
                            Page(500, "ada", "email", "a:b", "problem")],
                  {"a:b": [(20, "critical"), (100, "ok")]}, {"a:b": [Ack(60, "ada")]})
    first, orphan = incidents(facts)
    assert (first.start, first.end, first.pages, first.mtta, first.mttr) == (20, 100, 2, 10, 80)
    assert (orphan.start, orphan.end, orphan.ack) == (500, None, None)
