"""Issue 35: a maintenance series a user types cannot stall the API or the executive. Rules are evaluated
from near now (a year-1 start is refused at once), a rule must recur at most hourly and have an
occurrence within a year, a series may make at most MAX_WINDOWS windows ahead, and named checks must exist."""

from __future__ import annotations

import time

import pytest

from flapjack_py.store import maintenance_series as series_store

from .helpers import errors, post

pytestmark = pytest.mark.real
E = "web-01"
EVERY_SECOND = "FREQ=HOURLY;BYMINUTE=" + ",".join(map(str, range(60))) + ";BYSECOND=" + ",".join(map(str, range(60)))


@pytest.fixture(autouse=True)
def known_checks(send):
    for n in range(3):
        send(E, f"HTTP{n}", "ok")


def series(**over):
    return {"maintenance_series": [{"rrule": "FREQ=HOURLY", "duration": 60, "checks": [f"{E}:HTTP0"], **over}]}


def timed_post(client, body):
    began = time.monotonic()
    res = post(client, "/api/maintenance_series", body)
    return res, time.monotonic() - began


def test_a_start_in_the_year_1_is_answered_at_once(client, real_s):
    res, took = timed_post(client, series(start_time="0001-01-02T00:00:00Z"))
    assert "start_time must be within a year" in " ".join(errors(res, 422))
    assert took < 1.0
    assert real_s.smembers("maintenance_series") == set()


@pytest.mark.parametrize(("rrule", "says"), [
    (EVERY_SECOND, "at least 1 hour apart"),
    ("FREQ=DAILY;BYHOUR=3;BYMINUTE=0,30", "at least 1 hour apart"),
    ("FREQ=MINUTELY;INTERVAL=90", "FREQ must be one of"),
    ("FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30", "no occurrence within the next year"),
    ("FREQ=HOURLY;BYMONTH=2;BYMONTHDAY=30", "no occurrence within the next year"),
    ("FREQ=DAILY;UNTIL=20200101T000000Z", "no occurrence within the next year"),
])
def test_rules_that_recur_too_often_or_never_are_refused_quickly(client, real_s, rrule, says):
    res, took = timed_post(client, series(rrule=rrule))
    assert says in " ".join(errors(res, 422))
    assert took < 1.0
    assert real_s.dbsize() < 200  # nothing was materialised


def test_a_rule_every_two_hours_within_a_day_is_accepted(client, real_s):
    res, _ = timed_post(client, series(rrule="FREQ=DAILY;BYHOUR=1,3,5;BYMINUTE=0"))
    assert res.status_code == 201, res.get_data(as_text=True)


def test_phantom_checks_are_refused(client, real_s):
    res, _ = timed_post(client, series(checks=[f"{E}:HTTP0", "nowhere:NOTHING", "web-01:NOPE"]))
    assert "unknown checks: nowhere:NOTHING, web-01:NOPE" in " ".join(errors(res, 422))
    assert real_s.smembers("maintenance_series") == set()


def test_a_series_making_too_many_windows_is_refused(client, real_s, monkeypatch):
    monkeypatch.setattr(series_store, "MAX_WINDOWS", 2 * (14 * 24 + 1))  # two checks hourly, 14 days ahead
    res, _ = timed_post(client, series(checks=[f"{E}:HTTP0", f"{E}:HTTP1", f"{E}:HTTP2"]))
    assert "at most 674" in " ".join(errors(res, 422))
    ok, _ = timed_post(client, series(checks=[f"{E}:HTTP0", f"{E}:HTTP1"]))
    assert ok.status_code == 201


def test_an_hourly_series_is_materialised_in_one_go(client, real_s):
    res, took = timed_post(client, series(checks=[f"{E}:HTTP0", f"{E}:HTTP1"]))
    assert res.status_code == 201 and took < 2.0
    windows = real_s.zcard(f"{E}:HTTP1:scheduled_maintenances")
    assert 14 * 24 <= windows <= 14 * 24 + 1


def calendar(dtstart: str, rule: str) -> str:
    return ("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\nBEGIN:VEVENT\r\nUID:shift@test\r\n"
            f"DTSTAMP:20260101T000000Z\r\nDTSTART:{dtstart}\r\nDTEND:{dtstart[:-7]}010000Z\r\nRRULE:{rule}\r\n"
            "SUMMARY:ann\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n")


@pytest.mark.parametrize(("dtstart", "rule", "oncall"), [
    ("00010101T000000Z", "FREQ=HOURLY", ["ann"]),  # walked from the year 1: 41 s before
    ("20200101T000000Z", "FREQ=HOURLY;BYMONTH=2;BYMONTHDAY=30", []),  # never matches: 4 s before
])
def test_ical_layers_with_a_distant_or_impossible_rule_answer_at_once(client, dtstart, rule, oncall):
    ann = {"contacts": [{"id": "ann", "first_name": "Ann", "email": "ann@example.com"}]}
    assert post(client, "/api/contacts", ann).status_code == 201
    layers = [{"ical": calendar(dtstart, rule)}]
    res = post(client, "/api/schedules", {"schedules": [{"id": "night", "timezone": "UTC", "layers": layers}]})
    assert res.status_code == 201, res.get_data(as_text=True)
    began = time.monotonic()
    answer = client.get("/api/schedules/night/oncall")
    assert answer.status_code == 200 and answer.get_json()["oncall"] == oncall
    assert time.monotonic() - began < 1.0
