"""[addition] On-call schedules through the API: create/get/patch/delete, who is on call, shifts, the .ics
feeds (parsed back with icalendar and compared with the shifts), and a layer from an iCalendar URL."""

from __future__ import annotations

from datetime import UTC, datetime

import icalendar
import pytest

from web import create_app

from .helpers import body_of, errors, patch, post

pytestmark = pytest.mark.real
# clock: Tuesday 2023-11-14 22:13:20 UTC
CALENDAR = """BEGIN:VCALENDAR
VERSION:2.0
PRODID:-//test//EN
BEGIN:VEVENT
UID:nights@test
DTSTART;TZID=Europe/Berlin:20231113T180000
DTEND;TZID=Europe/Berlin:20231114T080000
RRULE:FREQ=DAILY
EXDATE;TZID=Europe/Berlin:20231115T180000
SUMMARY:cat@example.com
END:VEVENT
END:VCALENDAR
"""


def utc(*parts: int) -> str:
    return datetime(*parts, tzinfo=UTC).isoformat().replace("+00:00", "Z")


@pytest.fixture
def contacts(client):
    people = [{"id": name, "first_name": name.title(), "email": f"{name}@example.com"} for name in ("ann", "bob", "cat")]
    assert post(client, "/api/contacts", {"contacts": people}).status_code == 201


def ops_schedule(**over):
    return {"id": "ops", "name": "Ops", "timezone": "Europe/Berlin",
            "layers": [{"start": "2023-11-13T09:00:00+01:00", "rotation": "P1D", "contacts": ["ann", "bob"]}],
            "overrides": [{"start": "2023-11-15T12:00", "end": "2023-11-15T13:00", "contact": "cat"}], **over}


def test_create_get_oncall_and_shifts(client, contacts, clock):
    res = post(client, "/api/schedules", {"schedules": [ops_schedule()]})
    assert res.status_code == 201 and body_of(res) == ["ops"] and res.headers["Location"].endswith("/api/schedules/ops")
    [stored] = body_of(client.get("/api/schedules/ops"))["schedules"]
    assert stored["layers"][0] == {"start": utc(2023, 11, 13, 8), "rotation": "P1D", "contacts": ["ann", "bob"]}
    assert body_of(client.get("/api/schedules/ops/oncall")) == {"oncall": ["bob"], "until": utc(2023, 11, 15, 8)}
    at_noon = body_of(client.get("/api/schedules/ops/oncall?at=2023-11-15T11:30:00Z"))
    assert at_noon == {"oncall": ["cat"], "until": utc(2023, 11, 15, 12)}
    words = body_of(client.get("/api/schedules/ops/oncall?at=tomorrow 12:30 Europe/Berlin"))
    assert words["oncall"] == ["cat"]
    found = body_of(client.get("/api/schedules/ops/shifts?from=2023-11-15T00:00Z&to=2023-11-16T00:00Z"))["shifts"]
    assert found == [
        {"start": utc(2023, 11, 15), "end": utc(2023, 11, 15, 8), "oncall": ["bob"]},
        {"start": utc(2023, 11, 15, 8), "end": utc(2023, 11, 15, 11), "oncall": ["ann"]},
        {"start": utc(2023, 11, 15, 11), "end": utc(2023, 11, 15, 12), "oncall": ["cat"]},
        {"start": utc(2023, 11, 15, 12), "end": utc(2023, 11, 16), "oncall": ["ann"]}]
    assert "understood" in errors(client.get("/api/schedules/ops/oncall?at=tomorrow at lunch"), 400)[0]


def test_patch_and_delete(client, contacts, clock):
    post(client, "/api/schedules", {"schedules": [ops_schedule()]})
    ops = [{"op": "replace", "path": "/schedules/0/layers",
            "value": [{"start": "2023-11-13T09:00:00+01:00", "rotation": "P1W", "contacts": ["cat"]}]},
           {"op": "replace", "path": "/schedules/0/overrides", "value": []}]
    assert patch(client, "/api/schedules/ops", ops).status_code == 204
    assert body_of(client.get("/api/schedules/ops/oncall"))["oncall"] == ["cat"]
    bad = [{"op": "replace", "path": "/schedules/0/timezone", "value": "Mars/Base"}]
    assert "unknown time zone" in errors(patch(client, "/api/schedules/ops", bad), 422)[0]
    assert client.delete("/api/schedules/ops").status_code == 204
    assert errors(client.get("/api/schedules/ops"), 404) == ["could not find schedules 'ops'"]


@pytest.mark.parametrize(("over", "status", "says"), [
    ({"layers": [{"start": "2023-11-13T09:00", "rotation": "P1D", "contacts": ["nobody"]}]}, 422, "unknown contacts: nobody"),
    ({"layers": [{"start": "2023-11-13T09:00", "rotation": "daily", "contacts": ["ann"]}]}, 422, "ISO 8601"),
    ({"layers": [{"ical_url": "ftp://example.com/x.ics"}]}, 422, "http(s) URL"),
])
def test_bad_schedules_are_refused(client, contacts, clock, over, status, says):
    res = post(client, "/api/schedules", {"schedules": [ops_schedule(**over)]})
    assert says in errors(res, status)[0]


def test_duplicate_id_conflicts(client, contacts, clock):
    post(client, "/api/schedules", {"schedules": [ops_schedule()]})
    assert errors(post(client, "/api/schedules", {"schedules": [ops_schedule()]}), 409)


def ics_shifts(data: bytes) -> list[tuple[str, str, str]]:
    calendar = icalendar.Calendar.from_ical(data)
    return [(utc(*e["dtstart"].dt.astimezone(UTC).timetuple()[:6]), utc(*e["dtend"].dt.astimezone(UTC).timetuple()[:6]),
             str(e["summary"])) for e in calendar.walk("VEVENT")]


def test_ics_feeds_read_back_equal_the_shifts(client, contacts, clock):
    post(client, "/api/schedules", {"schedules": [ops_schedule()]})
    res = client.get("/api/schedules/ops.ics")
    assert res.status_code == 200 and res.mimetype == "text/calendar"
    from_feed = ics_shifts(res.data)
    end = datetime.fromtimestamp(clock.now + 6 * 7 * 86400, UTC)
    shifts = body_of(client.get(f"/api/schedules/ops/shifts?from=now&to={end.isoformat()}"))["shifts"]
    assert [(s, e) for s, e, _ in from_feed] == [(s["start"], s["end"]) for s in shifts]
    assert [who for _, _, who in from_feed] == [f"On call: {', '.join(s['oncall'])} (Ops)" for s in shifts]
    cat = ics_shifts(client.get("/api/contacts/cat/oncall.ics").data)
    assert cat == [(utc(2023, 11, 15, 11), utc(2023, 11, 15, 12), "On call: cat (Ops)")]
    assert client.get("/api/contacts/nobody/oncall.ics").status_code == 404


def test_a_layer_from_an_ical_url(real_r, contacts, clock, httpserver):
    client = create_app(redis=real_r, config={"schedules": {"allow_private_urls": True}}).test_client()  # loopback
    httpserver.expect_request("/oncall.ics").respond_with_data(CALENDAR, content_type="text/calendar")
    layers = [{"start": "2023-11-13T08:00", "rotation": "P1W", "contacts": ["ann"]},
              {"ical_url": httpserver.url_for("/oncall.ics")}]
    assert post(client, "/api/schedules", {"schedules": [ops_schedule(layers=layers, overrides=[])]}).status_code == 201
    assert body_of(client.get("/api/schedules/ops/oncall?at=2023-11-14T20:00Z"))["oncall"] == ["cat"]  # 21:00 CET
    assert body_of(client.get("/api/schedules/ops/oncall?at=2023-11-15T20:00Z"))["oncall"] == ["ann"]  # EXDATE
    assert body_of(client.get("/api/schedules/ops/oncall?at=2023-11-16T12:00Z"))["oncall"] == ["ann"]  # daytime
    assert body_of(client.get("/api/schedules/ops/oncall?at=2023-11-16T20:00Z"))["oncall"] == ["cat"]
