"""`oncall_at` looks a day ahead before looking 90 days ahead, and `oncall_now` answers who without looking
for the shift's end: both must say exactly what the 90-day resolution says (schedules.shifts), at many
moments across DST changes, for rotations, restrictions, overrides, long shifts and iCalendar layers."""

from __future__ import annotations

import pytest

from flapjack_py.oncall import schedules
from flapjack_py.oncall.schedule_data import schedule_from_json
from flapjack_py.oncall.schedules import HORIZON, Shift, oncall_at, oncall_now, shifts

START = 1_709_251_200  # 2024-03-01 UTC: DST changes in March, October and November ahead
KNOWN = {name: name for name in ("ann", "bob", "cat", "eve", "gus")}
ICAL = "\r\n".join([
    "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//t//EN",
    "BEGIN:VEVENT", "UID:a@t", "DTSTART:20240304T090000Z", "DTEND:20240311T090000Z",
    "RRULE:FREQ=WEEKLY;INTERVAL=2", "EXDATE:20240318T090000Z", "SUMMARY:ann", "END:VEVENT",
    "BEGIN:VEVENT", "UID:b@t", "DTSTART:20240311T090000Z", "DTEND:20240318T090000Z",
    "RRULE:FREQ=WEEKLY;INTERVAL=2", "SUMMARY:bob", "END:VEVENT", "END:VCALENDAR", ""])
SHAPES = {
    "daily_berlin": {"timezone": "Europe/Berlin", "layers": [
        {"start": "2024-02-01T09:00", "rotation": "P1D", "contacts": ["ann", "bob", "cat"]}]},
    "restricted_and_overrides": {"timezone": "America/New_York", "layers": [
        {"start": "2024-02-01T09:00", "rotation": "P1W", "contacts": ["ann", "bob"]},
        {"start": "2024-02-01T09:00", "rotation": "P1D", "contacts": ["cat", "eve"],
         "restrictions": [{"weekdays": ["mon", "tue", "wed", "thu", "fri"], "start": "09:00", "end": "17:00"}]}],
        "overrides": [{"start": "2024-03-10T00:00Z", "end": "2024-03-12T00:00Z", "contact": "gus"}]},
    "month_long_shift": {"timezone": "UTC", "layers": [
        {"start": "2024-01-01T00:00Z", "rotation": "P30D", "contacts": ["ann", "bob"]}]},
    "one_person_forever": {"timezone": "UTC", "layers": [
        {"start": "2024-01-01T00:00Z", "rotation": "P1W", "contacts": ["ann"]}]},
    "twelve_hours": {"timezone": "Australia/Sydney", "layers": [
        {"start": "2024-02-01T08:00", "rotation": "PT12H", "contacts": ["ann", "bob"]}]},
    "ical": {"timezone": "UTC", "layers": [{"ical": ICAL}]},
}
MOMENTS = [START + i * 3 * 86_400 + i * 3_593 for i in range(100)]  # every 3 days over 10 months, any time of day


def reference(schedule: schedules.Schedule, at: int) -> Shift:
    """The 90-day resolution: the first of the shifts over [at, at + HORIZON)."""
    first = shifts(schedule, at, at + HORIZON, KNOWN)[0]
    return Shift(at, first.end, first.contacts)


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_oncall_at_and_oncall_now_say_what_the_90_day_resolution_says(shape: str) -> None:
    schedule = schedule_from_json(SHAPES[shape], START, shape)
    for at in MOMENTS:
        expected = reference(schedule, at)
        assert oncall_at(schedule, at, KNOWN) == expected, at
        assert oncall_now(schedule, at, KNOWN) == expected.contacts, at


def test_a_shift_longer_than_every_window_ends_at_the_horizon() -> None:
    schedule = schedule_from_json(SHAPES["one_person_forever"], START, "s")
    assert oncall_at(schedule, START, KNOWN) == Shift(START, START + HORIZON, ("ann",))


def test_a_calendar_is_parsed_once_however_often_it_is_resolved(monkeypatch: pytest.MonkeyPatch) -> None:
    import icalendar

    schedule = schedule_from_json(SHAPES["ical"], START, "s")
    schedules._query.cache_clear()
    parses: list[int] = []
    real = icalendar.Calendar.from_ical
    monkeypatch.setattr(icalendar.Calendar, "from_ical", lambda text: parses.append(1) or real(text))
    answers = {oncall_now(schedule, at, KNOWN) for at in MOMENTS[:20]}
    assert len(parses) == 1 and answers == {("ann",), ("bob",), ()}
