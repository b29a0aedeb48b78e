"""[addition] Recurring scheduled maintenance through the API: POST with an rrule on checks and entities,
the maintenance_series resource (list, JSON-Patch, delete) and the GET /api/maintenances.ics feed."""

from __future__ import annotations

from datetime import UTC, datetime

import icalendar
import pytest
import recurring_ical_events

from flapjack_py.store import entities as entity_store
from flapjack_py.store import maintenance as store
from flapjack_py.store.maintenance import SCHEDULED

from .helpers import body_of, errors, patch, post

pytestmark = pytest.mark.real
E = "www.example.com"
WEEKLY = "FREQ=WEEKLY;BYDAY=SU;BYHOUR=2;BYMINUTE=0"
# clock: Tuesday 2023-11-14 22:13:20 UTC; Sunday 02:00 in Berlin (CET) is 01:00 UTC
SUNDAYS = [int(datetime(2023, 11, d, 1, tzinfo=UTC).timestamp()) for d in (19, 26)]


@pytest.fixture(autouse=True)
def known_check(send, clock):
    send(E, "SSH", "ok")


def recurring(**over):
    return {"scheduled_maintenances": [{"rrule": WEEKLY, "timezone": "Europe/Berlin", "duration": "1h",
                                        "summary": "patch", **over}]}


def series_id(response) -> str:
    return response.headers["Location"].rsplit("/", 1)[1]


def test_post_with_an_rrule_on_a_check_makes_a_series(client, real_r, clock, real_s):
    res = post(client, f"/api/scheduled_maintenances/checks/{E}:SSH", recurring(id="patch-sunday"))
    assert res.status_code == 204 and res.headers["Location"].endswith("/api/maintenance_series/patch-sunday")
    assert store.load_windows(real_s, E, "SSH", SCHEDULED) == {SUNDAYS[0]: 3600, SUNDAYS[1]: 3600}
    [listed] = body_of(client.get("/api/maintenance_series/patch-sunday"))["maintenance_series"]
    assert listed["rrule"] == WEEKLY and listed["timezone"] == "Europe/Berlin" and listed["duration"] == 3600
    assert listed["next_occurrences"][:2] == ["2023-11-19T01:00:00Z", "2023-11-26T01:00:00Z"]
    assert listed["links"] == {"checks": [f"{E}:SSH"], "entities": [], "tags": []}


def test_post_with_an_rrule_on_an_entity_covers_its_checks(client, real_r, send, clock, real_s):
    send(E, "PING", "ok")
    eid = entity_store.entity_id(real_s, E)
    assert post(client, f"/api/scheduled_maintenances/entities/{eid}", recurring()).status_code == 204
    for check in ("SSH", "PING"):
        assert SUNDAYS[0] in store.load_windows(real_s, E, check, SCHEDULED)


@pytest.mark.parametrize(("over", "message"), [
    ({"rrule": "FREQ=SECONDLY"}, "rrule FREQ must be one of HOURLY, DAILY, WEEKLY, MONTHLY, YEARLY"),
    ({"timezone": "Nowhere/Land"}, "unknown time zone 'Nowhere/Land'"),
    ({"duration": "a while"}, "duration: could not read the duration 'a while'"),
    ({"start_time": "01/02/2024"}, "ambiguous"),
])
def test_bad_series_are_refused_like_other_scheduled_maintenance(client, real_r, clock, over, message, real_s):
    res = post(client, f"/api/scheduled_maintenances/checks/{E}:SSH", recurring(**over))
    assert any(message in m for m in errors(res, 403))
    assert store.load_windows(real_s, E, "SSH", SCHEDULED) == {}


def test_series_resource_with_tags_patch_and_delete(client, real_r, clock, real_s):
    real_r.sadd("check_tag:db", f"{E}:MYSQL")
    body = {"maintenance_series": [{"id": "db", "rrule": "FREQ=DAILY;BYHOUR=3;BYMINUTE=0", "duration": 600,
                                    "links": {"tags": ["db"]}}]}
    res = post(client, "/api/maintenance_series", body)
    assert res.status_code == 201 and body_of(res) == ["db"]
    daily = store.load_windows(real_s, E, "MYSQL", SCHEDULED)
    assert len(daily) == 14 and set(daily.values()) == {600}
    ops = [{"op": "replace", "path": "/maintenance_series/0/duration", "value": "20m"},
           {"op": "add", "path": "/maintenance_series/0/links/checks", "value": f"{E}:SSH"}]
    assert patch(client, "/api/maintenance_series/db", ops).status_code == 204
    assert set(store.load_windows(real_s, E, "MYSQL", SCHEDULED).values()) == {1200}
    assert len(store.load_windows(real_s, E, "SSH", SCHEDULED)) == 14
    bad = patch(client, "/api/maintenance_series/db", [{"op": "replace", "path": "/maintenance_series/0/rrule",
                                                        "value": "FREQ=NEVER"}])
    assert errors(bad, 422)
    assert client.delete("/api/maintenance_series/db").status_code == 204
    assert store.load_windows(real_s, E, "MYSQL", SCHEDULED) == {}  # all of them were still to come
    assert body_of(client.get("/api/maintenance_series"))["maintenance_series"] == []
    assert errors(client.get("/api/maintenance_series/db"), 404) == ["could not find maintenance_series 'db'"]


def test_maintenances_ics_reads_back(client, clock):
    post(client, f"/api/scheduled_maintenances/checks/{E}:SSH", recurring(id="w"))
    res = client.get("/api/maintenances.ics")
    assert res.status_code == 200 and res.mimetype == "text/calendar"
    calendar = icalendar.Calendar.from_ical(res.data)
    start = datetime.fromtimestamp(clock.now, UTC)
    found = recurring_ical_events.of(calendar).between(start, datetime(2023, 11, 28, tzinfo=UTC))
    assert [int(e["dtstart"].dt.timestamp()) for e in found] == SUNDAYS
    assert {str(e["summary"]) for e in found} == {"patch"}
