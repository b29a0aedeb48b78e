"""Reports over data made by real events through the executive (api-v1.md 11)."""

from __future__ import annotations

import pytest

from flapjack_py.store import entities as entity_store
from web.api.common import iso

from .helpers import body_of, errors, post

pytestmark = pytest.mark.real
E = "www.example.com"


@pytest.fixture
def history(send, client, real_r, clock, real_s):
    """SSH: ok at T, critical at T+100 ('refused'), critical at T+200 (still), ok at T+700; PING ok at T."""
    t = clock.now
    send(E, "SSH", "ok", "fine")
    send(E, "PING", "ok")
    clock.advance(100)
    send(E, "SSH", "critical", "refused", details="port 22")
    clock.advance(100)
    send(E, "SSH", "critical", "still")
    clock.advance(500)
    send(E, "SSH", "ok", "fine")
    eid = entity_store.entity_id(real_s, E)
    body = {"scheduled_maintenances": [{"start_time": iso(t + 300), "duration": 100, "summary": "patch"}]}
    assert post(client, f"/api/scheduled_maintenances/checks/{E}:SSH", body).status_code == 204
    return t, eid


def test_outage_report_by_check(client, history):
    t, eid = history
    res = client.get(f"/api/outage_report/checks/{E}:SSH?start_time={iso(t + 150)}&end_time={iso(t + 1000)}")
    assert res.status_code == 200
    assert body_of(res) == {
        "outage_reports": [{"outages": [{"state": "critical", "start_time": t + 150, "end_time": t + 700,
                                         "duration": 550, "summary": "refused", "details": "port 22"}],
                            "links": {"entity": [eid], "check": [f"{E}:SSH"]}}],
        "linked": {"entities": [{"id": eid, "name": E, "links": {"checks": [f"{E}:SSH"]}}],
                   "checks": [{"id": f"{E}:SSH", "name": "SSH"}]}}


def test_downtime_report_by_entity(client, history):
    t, eid = history
    res = client.get(f"/api/downtime_report/entities/{eid}?start_time={iso(t)}&end_time={iso(t + 1000)}")
    reports = body_of(res)["downtime_reports"]
    assert [r["links"]["check"] for r in reports] == [[f"{E}:PING"], [f"{E}:SSH"]]
    assert reports[0] == {"total_seconds": {}, "percentages": {}, "downtime": [],
                          "links": {"entity": [eid], "check": [f"{E}:PING"]}}
    ssh = reports[1]
    assert ssh["downtime"] == [
        {"state": "critical", "start_time": t + 100, "end_time": t + 300, "duration": 200,
         "summary": "refused [split start]"},
        {"state": "critical", "start_time": t + 400, "end_time": t + 700, "duration": 300,
         "summary": "refused [split finish]"}]
    assert ssh["total_seconds"] == {"critical": 500, "ok": 500}
    assert ssh["percentages"] == {"critical": 50.0, "ok": 50.0}


def test_maintenance_reports(client, history, drain, clock):
    t, eid = history
    res = client.get(f"/api/scheduled_maintenance_report/checks/{E}:SSH?start_time={iso(t + 350)}")
    assert body_of(res)["scheduled_maintenance_reports"][0]["scheduled_maintenances"] == [
        {"start_time": t + 300, "duration": 100, "summary": "patch", "end_time": t + 400}]
    res = client.get(f"/api/scheduled_maintenance_report/checks/{E}:SSH?start_time={iso(t + 401)}")
    assert body_of(res)["scheduled_maintenance_reports"][0]["scheduled_maintenances"] == []
    res = client.get(f"/api/unscheduled_maintenance_report/checks/{E}:SSH")
    assert body_of(res)["unscheduled_maintenance_reports"][0]["unscheduled_maintenances"] == []


def test_status_report(client, history, clock):
    t, eid = history
    body = body_of(client.get("/api/status_report/checks"))
    ssh = body["status_reports"][1]
    assert ssh["name"] == "SSH" and ssh["state"] == "ok" and ssh["enabled"] is True
    assert ssh["summary"] == "fine" and ssh["last_update"] == t + 700 and ssh["last_change"] == t + 700
    assert ssh["in_scheduled_maintenance"] is False and ssh["in_unscheduled_maintenance"] is False
    assert set(ssh) >= {"details", "perfdata", "initial_failure_delay", "repeat_failure_delay",
                        "last_problem_notification", "last_recovery_notification",
                        "last_acknowledgement_notification", "links"}
    assert [c["id"] for c in body["linked"]["checks"]] == [f"{E}:PING", f"{E}:SSH"]


def test_all_entities_include_ones_without_checks(client, history):
    post(client, "/api/entities", {"entities": [{"id": "zz", "name": "zz.example.com"}]})
    body = body_of(client.get("/api/outage_report/entities"))
    assert [e["name"] for e in body["linked"]["entities"]] == [E, "zz.example.com"]
    assert body["linked"]["entities"][1]["links"]["checks"] == []


def test_unseen_check_and_unbounded(client, history):
    t, eid = history
    body = body_of(client.get(f"/api/outage_report/checks/{E}:never,{E}:SSH?start_time=garbage"))
    assert body["outage_reports"][0]["outages"] == []
    assert body["outage_reports"][1]["outages"][0]["end_time"] == t + 700
    assert len(body["linked"]["entities"]) == 1


def test_report_errors(client, history):
    assert errors(client.get("/api/status_report/checks/nocolon"), 400) == ["Malformed check ID"]
    assert errors(client.get("/api/outage_report/checks/nope:SSH"), 404) == ["could not find entity check 'nope:SSH'"]
    assert errors(client.get("/api/downtime_report/entities/nope"), 404) == ["could not find entity 'nope'"]
    assert errors(client.get("/api/bogus_report/entities"), 404) == ["not routable"]


def test_report_query_times_may_be_words(client, history):
    """`start_time=10 minutes ago` reads like the ISO time it stands for (clock: T+700)."""
    t, _ = history
    by_iso = client.get(f"/api/outage_report/checks/{E}:SSH?start_time={iso(t + 100)}")
    by_words = client.get(f"/api/outage_report/checks/{E}:SSH?start_time=10 minutes ago")
    assert body_of(by_words) == body_of(by_iso)
    assert body_of(by_words)["outage_reports"][0]["outages"][0]["start_time"] == t + 100
