"""Recurring maintenance series (flapjack_py.oncall.recurrence): occurrences on the zone's wall clock across DST,
validation, and the iCalendar export read back with icalendar + recurring-ical-events. Pure."""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import icalendar
import pytest
import recurring_ical_events

from flapjack_py.oncall.recurrence import (
    InvalidSeries,
    Series,
    new_series,
    next_occurrences,
    occurrences,
    to_ical,
    validated,
)

SUNDAY_2AM = "FREQ=WEEKLY;BYDAY=SU;BYHOUR=2;BYMINUTE=0"
NOW = int(datetime(2024, 3, 1, tzinfo=UTC).timestamp())  # Friday


def utc(*parts: int) -> int:
    return int(datetime(*parts, tzinfo=UTC).timestamp())


def series(**over: object) -> Series:
    fields = {"rrule": SUNDAY_2AM, "timezone": "Europe/Berlin", "duration": 3600, "checks": ["web:HTTP"],
              "start_time": "2024-03-01T00:00:00+01:00", **over}
    return new_series("s1", fields, NOW)


def test_a_weekly_window_stays_at_two_local_across_dst_in_two_zones():
    berlin = occurrences(series(), NOW, NOW + 42 * 86400)
    assert berlin == [utc(2024, 3, 3, 1), utc(2024, 3, 10, 1), utc(2024, 3, 17, 1), utc(2024, 3, 24, 1),
                      utc(2024, 3, 31, 1),  # 02:00 does not exist that night: the window opens at 03:00 CEST
                      utc(2024, 4, 7, 0)]  # 02:00 CEST
    new_york = occurrences(series(timezone="America/New_York", start_time="2024-03-01T00:00:00-05:00"),
                           NOW, NOW + 21 * 86400)
    assert new_york == [utc(2024, 3, 3, 7), utc(2024, 3, 10, 7), utc(2024, 3, 17, 6)]  # EST, then EDT


def test_occurrences_include_one_in_progress():
    in_window = utc(2024, 3, 3, 1, 30)
    assert occurrences(series(), in_window, in_window + 60) == [utc(2024, 3, 3, 1)]
    assert occurrences(series(), utc(2024, 3, 3, 2), utc(2024, 3, 3, 3)) == []


def test_next_occurrences_and_until():
    limited = series(rrule=SUNDAY_2AM + ";UNTIL=20240311T000000Z")
    assert next_occurrences(limited, NOW) == [utc(2024, 3, 3, 1), utc(2024, 3, 10, 1)]


def test_start_time_may_be_words_read_in_the_series_zone():
    made = series(start_time="next sunday 02:00", rrule="FREQ=DAILY")
    assert made.start == utc(2024, 3, 3, 1)
    assert next_occurrences(made, NOW, 2) == [utc(2024, 3, 3, 1), utc(2024, 3, 4, 1)]


@pytest.mark.parametrize(("over", "says"), [
    ({"rrule": "FREQ=MINUTELY"}, "FREQ must be one of"),
    ({"rrule": "FREQ=WEEKLY;BYDAY=XX"}, "not valid RFC 5545"),
    ({"rrule": ""}, "rrule must be"),
    ({"rrule": "FREQ=WEEKLY;UNTIL=20240311"}, "not valid RFC 5545"),
    ({"timezone": "Mars/Olympus"}, "unknown time zone"),
    ({"duration": "soon"}, "duration: could not read"),
    ({"duration": 0}, "more than 0"),
    ({"duration": 400 * 86400}, "duration must be"),
    ({"checks": ["no-colon"]}, "ENTITY:CHECK"),
    ({"checks": "web:HTTP"}, "must be a list"),
    ({"start_time": "whenever"}, "start_time: could not read"),
])
def test_invalid_series_say_why(over, says):
    with pytest.raises(InvalidSeries) as error:
        series(**over)
    assert says in str(error.value)


def test_ics_export_reads_back_with_the_same_occurrences():
    weekly = series(summary="patch window")
    daily = series(rrule="FREQ=DAILY;BYHOUR=23;BYMINUTE=30", timezone="America/New_York",
                   start_time="2024-03-01T00:00:00-05:00", duration=1800)
    daily = validated(Series(**{**daily.__dict__, "id": "s2"}))
    calendar = icalendar.Calendar.from_ical(to_ical([weekly, daily], NOW))
    events = calendar.walk("VEVENT")
    assert [str(e["uid"]) for e in events] == ["maintenance-series-s1@flapjack", "maintenance-series-s2@flapjack"]
    assert str(events[0]["summary"]) == "patch window" and "web:HTTP" in str(events[0]["description"])
    start, end = datetime(2024, 3, 1, tzinfo=UTC), datetime(2024, 4, 12, tzinfo=UTC)
    found = recurring_ical_events.of(calendar).between(start, end)
    by_uid: dict[str, list[int]] = {}
    for event in found:
        by_uid.setdefault(str(event["uid"]), []).append(int(event["dtstart"].dt.timestamp()))
        assert (event["dtend"].dt - event["dtstart"].dt).total_seconds() in (3600, 1800)
    assert sorted(by_uid["maintenance-series-s1@flapjack"]) == occurrences(weekly, NOW, int(end.timestamp()))
    assert sorted(by_uid["maintenance-series-s2@flapjack"]) == occurrences(daily, NOW, int(end.timestamp()))
    first = events[0]["dtstart"].dt
    assert first.astimezone(ZoneInfo("Europe/Berlin")).replace(tzinfo=None) == datetime(2024, 3, 3, 2)


@pytest.mark.parametrize(("rule", "never"), [
    ("FREQ=HOURLY;BYMONTH=2;BYMONTHDAY=30", True),
    ("FREQ=DAILY;BYMONTH=4;BYMONTHDAY=31", True),
    ("FREQ=WEEKLY;BYMONTH=2;BYMONTHDAY=30;BYDAY=MO", True),
    ("FREQ=HOURLY;BYSETPOS=1;BYMONTH=2;BYMONTHDAY=30", True),
    ("FREQ=HOURLY;BYMONTH=2;BYMONTHDAY=29", False),  # leap days: rare, not never
    ("FREQ=DAILY;BYDAY=FR;BYMONTHDAY=13", False),
    ("FREQ=HOURLY", False),
])
def test_days_that_never_match_are_told_by_the_yearly_probe(rule: str, never: bool) -> None:
    from dateutil.rrule import rrulestr

    from flapjack_py.oncall.recurrence import _never_matches

    assert _never_matches(rrulestr(rule, dtstart=datetime(2026, 11, 27, tzinfo=UTC))) is never
