"""On-call schedules (flapjack_py.oncall.schedules, schedule_data): rotations across DST in two zones, layer
precedence, restrictions, overrides, iCalendar layers with RRULE + EXDATE. Pure: time is passed in."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from flapjack_py.access import MASK, Role
from flapjack_py.oncall.schedule_data import schedule_from_json, schedule_shown_to, schedule_to_json
from flapjack_py.oncall.schedules import InvalidSchedule, Schedule, Shift, oncall_at, shifts

NOW = int(datetime(2024, 3, 1, tzinfo=UTC).timestamp())
KNOWN = {"ann": "ann", "bob": "bob", "cat": "cat", "bob@example.com": "bob"}


def utc(*parts: int) -> int:
    return int(datetime(*parts, tzinfo=UTC).timestamp())


def schedule(*layers: dict, zone: str = "Europe/Berlin", overrides: tuple = ()) -> Schedule:
    return schedule_from_json({"name": "ops", "timezone": zone, "layers": list(layers),
                               "overrides": list(overrides)}, NOW, "s1")


def daily(start: str = "2024-03-29T09:00", contacts: tuple = ("ann", "bob"), **over: object) -> dict:
    return {"start": start, "rotation": "P1D", "contacts": list(contacts), **over}


def test_a_daily_0900_handoff_stays_at_0900_local_across_dst_in_two_zones():
    berlin = schedule(daily())  # Europe/Berlin goes to CEST on Sunday 31 March 2024
    assert [(s.start, s.contacts) for s in shifts(berlin, utc(2024, 3, 29, 8), utc(2024, 4, 2, 7))] == [
        (utc(2024, 3, 29, 8), ("ann",)), (utc(2024, 3, 30, 8), ("bob",)), (utc(2024, 3, 31, 7), ("ann",)),
        (utc(2024, 4, 1, 7), ("bob",))]
    new_york = schedule(daily("2024-03-09T09:00"), zone="America/New_York")  # EDT from Sunday 10 March
    assert [s.start for s in shifts(new_york, utc(2024, 3, 9, 14), utc(2024, 3, 12, 13))] == [
        utc(2024, 3, 9, 14), utc(2024, 3, 10, 13), utc(2024, 3, 11, 13)]


def test_an_hourly_rotation_counts_elapsed_time_across_dst():
    halves = schedule({"start": "2024-03-31T00:00", "rotation": "PT12H", "contacts": ["ann", "bob"]})
    assert [s.start for s in shifts(halves, utc(2024, 3, 30, 23), utc(2024, 4, 1, 0))] == [
        utc(2024, 3, 30, 23), utc(2024, 3, 31, 11), utc(2024, 3, 31, 23)]  # 12 h apart: 13:00 CEST, not 12:00


def test_oncall_at_says_who_and_until_when_and_nobody_before_the_start():
    weekly = schedule({"start": "2024-03-04T09:00", "rotation": "P1W", "contacts": ["ann", "bob", "cat"]})
    assert oncall_at(weekly, utc(2024, 3, 12, 12)) == Shift(utc(2024, 3, 12, 12), utc(2024, 3, 18, 8), ("bob",))
    assert oncall_at(weekly, utc(2024, 3, 26, 12)).contacts == ("ann",)  # wrapped around
    assert oncall_at(weekly, utc(2024, 3, 1)) == Shift(utc(2024, 3, 1), utc(2024, 3, 4, 8), ())


def test_later_layers_win_where_they_cover_and_restrictions_limit_them():
    office = {"start": "2024-03-04T00:00", "rotation": "P1W", "contacts": ["cat"],
              "restrictions": [{"weekdays": ["mon", "tue", "wed", "thu", "fri"], "start": "09:00", "end": "17:00"}]}
    both = schedule(daily("2024-03-04T00:00", ("ann",)), office)
    monday = [(s.start, s.end, s.contacts) for s in shifts(both, utc(2024, 3, 4, 0), utc(2024, 3, 5, 0))]
    assert monday == [(utc(2024, 3, 4, 0), utc(2024, 3, 4, 8), ("ann",)), (utc(2024, 3, 4, 8), utc(2024, 3, 4, 16), ("cat",)),
                      (utc(2024, 3, 4, 16), utc(2024, 3, 5, 0), ("ann",))]
    assert oncall_at(both, utc(2024, 3, 9, 12)).contacts == ("ann",)  # Saturday: no restriction window
    overnight = schedule({**office, "restrictions": [{"weekdays": [1], "start": "22:00", "end": "06:00"}]})
    assert oncall_at(overnight, utc(2024, 3, 5, 4)).contacts == ("cat",)  # Tuesday 05:00 CET, from Monday night


def test_overrides_win_over_layers_and_the_last_override_wins():
    both = schedule(daily("2024-03-04T09:00"), overrides=(
        {"start": "2024-03-05T12:00", "end": "2024-03-05T14:00", "contact": "cat"},
        {"start": "2024-03-05T13:00", "end": "2024-03-05T13:30", "contact": "ann"}))
    found = [(s.start, s.contacts) for s in shifts(both, utc(2024, 3, 5, 10), utc(2024, 3, 5, 14))]
    assert found == [(utc(2024, 3, 5, 10), ("bob",)), (utc(2024, 3, 5, 11), ("cat",)), (utc(2024, 3, 5, 12), ("ann",)),
                     (utc(2024, 3, 5, 12, 30), ("cat",)), (utc(2024, 3, 5, 13), ("bob",))]


ICAL = """BEGIN:VCALENDAR
VERSION:2.0
PRODID:-//test//EN
BEGIN:VEVENT
UID:weekday-nights@test
DTSTART;TZID=Europe/Berlin:20240304T180000
DTEND;TZID=Europe/Berlin:20240305T080000
RRULE:FREQ=WEEKLY;BYDAY=MO,TU,WE
EXDATE;TZID=Europe/Berlin:20240312T180000
SUMMARY:ann
END:VEVENT
BEGIN:VEVENT
UID:weekend@test
DTSTART;TZID=Europe/Berlin:20240309T000000
DTEND;TZID=Europe/Berlin:20240311T000000
SUMMARY:Weekend cover
ATTENDEE:mailto:BOB@example.com
END:VEVENT
END:VCALENDAR
"""


def test_an_ical_layer_honours_rrule_and_exdate_and_names_contacts_by_id_or_email():
    cal = schedule({"ical": ICAL})
    nights = [s for s in shifts(cal, utc(2024, 3, 4), utc(2024, 3, 15), KNOWN) if s.contacts]
    assert [(s.start, s.end, s.contacts) for s in nights] == [
        (utc(2024, 3, 4, 17), utc(2024, 3, 5, 7), ("ann",)), (utc(2024, 3, 5, 17), utc(2024, 3, 6, 7), ("ann",)),
        (utc(2024, 3, 6, 17), utc(2024, 3, 7, 7), ("ann",)),
        (utc(2024, 3, 8, 23), utc(2024, 3, 10, 23), ("bob",)),
        (utc(2024, 3, 11, 17), utc(2024, 3, 12, 7), ("ann",)),  # Tuesday 12th excluded
        (utc(2024, 3, 13, 17), utc(2024, 3, 14, 7), ("ann",))]
    with_rotation = schedule(daily("2024-03-04T09:00", ("cat",)), {"ical": ICAL})
    assert oncall_at(with_rotation, utc(2024, 3, 4, 20), KNOWN).contacts == ("ann",)
    assert oncall_at(with_rotation, utc(2024, 3, 12, 20), KNOWN).contacts == ("cat",)


def test_json_round_trip():
    made = schedule(daily(restrictions=[{"weekdays": [1, 2], "start": "09:00", "end": "17:30"}]),
                    overrides=({"start": "2024-03-05T12:00", "end": "2024-03-05T14:00", "contact": "cat"},))
    again = schedule_from_json(schedule_to_json(made), NOW, "s1")
    assert again == made
    assert schedule_to_json(made)["layers"][0]["rotation"] == "P1D"


@pytest.mark.parametrize(("data", "says"), [
    ({"layers": []}, "at least one layer"),
    ({"layers": [daily()], "timezone": "Mars/Base"}, "unknown time zone"),
    ({"layers": [daily(rotation="weekly")]}, "ISO 8601"),
    ({"layers": [daily(contacts=())]}, "needs contacts"),
    ({"layers": [daily(start="whenever")]}, "start: could not read"),
    ({"layers": [daily(restrictions=[{"weekdays": [9]}])]}, "weekdays are 1"),
    ({"layers": [daily(restrictions=[{"start": "25:00"}])]}, "HH:MM"),
    ({"layers": [{"ical": "not a calendar"}]}, "not an iCalendar"),
    ({"layers": [daily()], "overrides": [{"start": "2024-03-05T14:00", "end": "2024-03-05T12:00", "contact": "a"}]},
     "end after it starts"),
])
def test_invalid_schedules_say_why(data, says):
    with pytest.raises(InvalidSchedule) as error:
        schedule_from_json(data, NOW, "s1")
    assert says in str(error.value)


@pytest.mark.parametrize(("url", "viewer_sees"), [
    ("https://u:pw@cal.example:8443/private-abc/basic.ics?token=t", f"https://cal.example:8443/{MASK}"),
    ("http://[2001:db8::1]/feed.ics", f"http://[2001:db8::1]/{MASK}"),
    ("http://[2001:db8::1/feed.ics", MASK),  # unparsable: nothing of it
    ("", None),  # a layer given as text: no ical_url
])
def test_below_admin_a_calendar_layer_shows_only_where_its_feed_points(url, viewer_sees):
    made = schedule(daily(), {"ical": ICAL, "ical_url": url})
    assert schedule_shown_to(Role.ADMIN, made) == schedule_to_json(made)
    for role in (Role.VIEWER, Role.RESPONDER):
        rotation, calendar = schedule_shown_to(role, made)["layers"]
        assert rotation == schedule_to_json(made)["layers"][0]
        assert calendar == ({"ical_url": viewer_sees} if viewer_sees else {})
