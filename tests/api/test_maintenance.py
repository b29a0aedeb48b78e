"""Scheduled/unscheduled maintenance and test notifications (api-v1.md 10)."""

from __future__ import annotations

import json

import pytest

from flapjack_py import keys
from flapjack_py.model.actors import Actor
from flapjack_py.model.checks import ack_hash
from flapjack_py.store import entities as entity_store
from flapjack_py.store import maintenance as store
from flapjack_py.store.maintenance import SCHEDULED, UNSCHEDULED, Window
from web.api.common import iso

from .helpers import errors, patch, post

API = Actor("anonymous", "api")
"""Who acts through the API in the open mode (no users, no tokens)."""

pytestmark = pytest.mark.real
E = "www.example.com"


@pytest.fixture
def eid(send, real_r, clock, real_s):
    send(E, "SSH", "critical", "down")
    send(E, "PING", "ok")
    return entity_store.entity_id(real_s, E)


def sm_body(start, duration=3600, summary="kernel"):
    return {"scheduled_maintenances": [{"start_time": iso(start), "duration": duration, "summary": summary}]}


def test_schedule_on_entity_covers_current_checks(client, real_r, eid, clock, real_s):
    res = post(client, f"/api/scheduled_maintenances/entities/{eid}", sm_body(clock.now - 10))
    assert res.status_code == 204 and res.data == b""
    for check in ("PING", "SSH"):
        assert store.list_windows(real_s, E, check, SCHEDULED) == [Window(clock.now - 10, 3600, "kernel", API)]
        assert store.in_force(real_s, E, check, SCHEDULED) == clock.now - 10
        assert store.remaining(real_s, E, check, SCHEDULED) == 3590


def test_schedule_same_start_replaces_and_delete(client, real_r, eid, clock, real_s):
    url = f"/api/scheduled_maintenances/checks/{E}:SSH"
    post(client, url, sm_body(clock.now + 100))
    post(client, url, {"scheduled_maintenances": [{"start_time": iso(clock.now + 100), "duration": "60"}]})
    assert store.list_windows(real_s, E, "SSH", SCHEDULED) == [Window(clock.now + 100, 60, "", API)]
    res = client.delete(f"{url}?start_time={iso(clock.now + 100)}")
    assert res.status_code == 204
    assert store.list_windows(real_s, E, "SSH", SCHEDULED) == []
    post(client, url, sm_body(clock.now - 100))
    client.delete(f"{url}?start_time={iso(clock.now - 100)}")
    assert store.list_windows(real_s, E, "SSH", SCHEDULED) == [Window(clock.now - 100, 100, "kernel", API)]
    assert store.in_force(real_s, E, "SSH", SCHEDULED) is None


@pytest.mark.parametrize(("body", "message"), [
    ({}, "No 'scheduled_maintenances' object received"),
    ({"scheduled_maintenances": 1}, "The received 'scheduled_maintenances'' object is not an Array"),
    ({"scheduled_maintenances": [{"duration": 60}]}, "start time must be provided"),
    ({"scheduled_maintenances": [{"start_time": "soon", "duration": 60}]}, "start time must be provided"),
    ({"scheduled_maintenances": [{"start_time": "2024-05-04T22:00:00+02:00"}]},
     "duration in seconds must be provided"),
    ({"scheduled_maintenances": [{"start_time": "2024-05-04T22:00:00Z", "duration": 0}]},
     "duration in seconds must be provided"),
])
def test_schedule_validation(client, real_r, eid, body, message, real_s):
    assert errors(post(client, f"/api/scheduled_maintenances/entities/{eid}", body), 403) == [message]
    assert store.list_windows(real_s, E, "SSH", SCHEDULED) == []


def test_not_found_and_malformed(client, eid, clock):
    body = sm_body(clock.now)
    assert errors(post(client, "/api/scheduled_maintenances/entities/nope", body), 404) == [
        "could not find entity 'nope'"]
    assert errors(post(client, "/api/scheduled_maintenances/checks/nope:SSH", body), 404) == [
        "could not find entity 'nope'"]
    assert errors(post(client, "/api/test_notifications/checks/bad", {}), 400) == ["Malformed check ID"]
    assert errors(client.delete("/api/scheduled_maintenances/entities/nope"), 403) == [
        "start time must be provided"]
    assert errors(client.delete(f"/api/scheduled_maintenances/entities/nope?start_time={iso(0)}"), 404) == [
        "could not find entity 'nope'"]


def test_acknowledge_queues_events_and_executive_applies(client, real_r, eid, drain, clock, real_s):
    res = post(client, f"/api/unscheduled_maintenances/checks/{E}:SSH",
               {"unscheduled_maintenances": [{"duration": 600, "summary": "looking"}]})
    assert res.status_code == 204
    assert json.loads(real_r.lindex(keys.events(), 0)) == {
        "type": "action", "state": "acknowledgement", "entity": E, "check": "SSH", "summary": "looking",
        "duration": 600, "time": clock.now, "acknowledgement_id": ack_hash(f"{E}:SSH"), "actor": "anonymous", "channel": "api"}
    drain()
    assert store.in_force(real_s, E, "SSH", UNSCHEDULED) == clock.now
    client.post(f"/api/unscheduled_maintenances/entities/{eid}")
    events = [json.loads(e) for e in real_r.lrange(keys.events(), 0, -1)]
    assert [(e["check"], e["duration"], "summary" in e) for e in events] == [("SSH", 14400, False),
                                                                              ("PING", 14400, False)]


def test_end_unscheduled(client, real_r, eid, drain, clock, real_s):
    post(client, f"/api/unscheduled_maintenances/checks/{E}:SSH", {})
    drain()
    start = clock.now
    clock.advance(300)
    url = f"/api/unscheduled_maintenances/checks/{E}:SSH,{E}:PING"
    ops = [{"op": "replace", "path": "/unscheduled_maintenances/0/end_time", "value": iso(clock.now + 60)}]
    assert patch(client, url, ops).status_code == 204
    assert store.in_force(real_s, E, "SSH", UNSCHEDULED) is None
    assert store.list_windows(real_s, E, "SSH", UNSCHEDULED) == [Window(start, 360, "", API)]
    assert store.list_windows(real_s, E, "PING", UNSCHEDULED) == []
    bad = [{"op": "replace", "path": "/unscheduled_maintenances/0/end_time", "value": "later"}]
    assert errors(patch(client, url, bad), 403) == ["end time must be provided"]
    assert errors(patch(client, url, {}), 400) == ["Invalid JSON-Patch request"]


def test_test_notifications(client, real_r, eid, clock):
    assert client.post(f"/api/test_notifications/entities/{eid}").status_code == 204
    res = post(client, f"/api/test_notifications/checks/{E}:SSH", {"test_notifications": [{"summary": "hi"}]})
    assert res.status_code == 204
    events = [json.loads(e) for e in reversed(real_r.lrange(keys.events(), 0, -1))]
    default = f"Testing notifications to all contacts interested in entity {E}"
    assert events == [
        {"type": "action", "state": "test_notifications", "entity": E, "check": c, "summary": s, "time": clock.now,
         "actor": "anonymous", "channel": "api"} for c, s in (("PING", default), ("SSH", default), ("SSH", "hi"))]
    res = post(client, f"/api/test_notifications/checks/{E}:SSH", {"test_notifications": "x"})
    assert errors(res, 403) == ["The received 'test_notifications'' object is not an Array"]
