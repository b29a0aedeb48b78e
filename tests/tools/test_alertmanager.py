"""Alertmanager webhook receiver: payload -> events (pure), and POST /api/receivers/alertmanager."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from flapjack_py import keys
from flapjack_py.errors import InvalidEvent
from flapjack_py.executive import Executive
from flapjack_py.intake.alertmanager import LabelMapping, event_from_alert, events_from_payload
from flapjack_py.model.events import parse_event
from web import create_app

DATA = Path(__file__).parent / "data"
NOW = 1_800_000_000


def payload(name: str) -> dict:
    return json.loads((DATA / name).read_text())


def epoch(text: str) -> int:
    return int(datetime.fromisoformat(text).replace(tzinfo=UTC).timestamp())


def test_grouped_firing_alerts_become_one_event_each():
    first, second = events_from_payload(payload("alertmanager_firing_grouped.json"), now=NOW)
    assert first == {
        "type": "service", "entity": "web-01.example.com", "check": "node/HighLoad", "state": "warning",
        "summary": "load 7.2 on web-01", "time": epoch("2026-11-23T09:59:42"),
        "details": "15 min load average above 4 for 10 minutes\nrunbook: https://runbooks.example.com/load",
        "tags": ["team:web"],
    }
    assert second["entity"] == "2001-db8--7"  # IPv6 instance: port and brackets stripped, ':' -> '-' (names.py)
    assert second["state"] == "critical"
    assert second["summary"] == "15 min load average above 8"  # description when there is no summary
    assert "details" not in second


def test_resolved_alert_is_ok_at_its_end_time_and_entity_label_wins():
    [event] = events_from_payload(payload("alertmanager_resolved.json"), now=NOW)
    assert event["state"] == "ok"
    assert event["entity"] == "db-02"
    assert event["time"] == epoch("2026-11-23T08:30:15")
    assert event["tags"] == ["mountpoint:/var"]


def test_label_names_are_configurable():
    mapping = LabelMapping(entity_labels=("team",), check_label="alertname", job_label="nojob", severity_label="sev")
    first, _ = events_from_payload(payload("alertmanager_firing_grouped.json"), mapping, now=NOW)
    assert (first["entity"], first["check"], first["state"]) == ("web", "HighLoad", "critical")


@pytest.mark.parametrize(("labels", "entity"), [
    ({"instance": "[::1]:9100"}, "--1"),
    ({"instance": "[::1]"}, "--1"),
    ({"instance": "::1"}, "--1"),
    ({"instance": "10.0.0.5:9100"}, "10.0.0.5"),
    ({"instance": "web-01:9100", "entity": "web:01"}, "web-01"),  # the entity label wins, its ':' rewritten
    ({"entity": "web\n01"}, "web-01"),
    ({}, "prometheus"),
])
def test_entity_names_are_rewritten_to_fit_the_layout(labels, entity):
    event = event_from_alert({"labels": {"alertname": "Down", **labels}}, now=NOW)
    assert event["entity"] == entity
    assert parse_event(json.dumps(event)) is not None  # what the receiver queues is valid


def test_a_configured_default_entity_is_fitted_and_check_control_characters_rewritten():
    mapping = LabelMapping(entity_labels=(), default_entity="prom:eu")
    event = event_from_alert({"labels": {"alertname": "Disk\tFull: /var", "job": "node"}}, mapping, now=NOW)
    assert (event["entity"], event["check"]) == ("prom-eu", "node/Disk-Full: /var")


@pytest.mark.parametrize("bad", [{"alerts": "x"}, [], {"version": "3", "alerts": []},
                                 {"alerts": [{"labels": {"job": "x"}}]}])
def test_malformed_payloads_are_refused(bad):
    with pytest.raises(InvalidEvent):
        events_from_payload(bad, now=NOW)


def test_webhook_queues_events_the_executive_turns_into_states(r):
    app = create_app(redis=r, config={"executive": {"new_check_scheduled_maintenance_duration": 0}})
    http = app.test_client()
    answer = http.post("/api/receivers/alertmanager", json=payload("alertmanager_firing_grouped.json"))
    assert answer.status_code == 202, answer.get_data(as_text=True)
    assert answer.get_json() == {"queued": 2}
    assert r.llen(keys.events()) == 2
    Executive(r, {"executive": {"new_check_scheduled_maintenance_duration": 0}}).drain()
    assert r.hget(keys.check("web-01.example.com", "node/HighLoad"), "state") == b"warning"
    assert r.hget(keys.check("2001-db8--7", "node/HighLoad"), "state") == b"critical"


def test_webhook_refuses_what_is_not_a_payload(r):
    http = create_app(redis=r).test_client()
    assert http.post("/api/receivers/alertmanager", json={"alerts": 3}).status_code == 422
    assert http.post("/api/receivers/alertmanager", data="{", content_type="application/json").status_code == 400
    too_many = {"version": "4", "alerts": [{"labels": {"alertname": "x"}}] * 1001}
    assert http.post("/api/receivers/alertmanager", json=too_many).status_code == 413
    assert r.llen(keys.events()) == 0


def test_webhook_uses_the_configured_label_names(r):
    config = {"executive": {"new_check_scheduled_maintenance_duration": 0},
              "receivers": {"alertmanager": {"entity_labels": ["owner", "team"], "job_label": "",
                                             "severity_label": "sev", "default_entity": "unowned"}}}
    http = create_app(redis=r, config=config).test_client()
    data = payload("alertmanager_firing_grouped.json")
    del data["alerts"][1]["labels"]["team"]
    assert http.post("/api/receivers/alertmanager", json=data).status_code == 202
    first, second = (json.loads(raw) for raw in reversed(r.lrange(keys.events(), 0, -1)))
    assert (first["entity"], first["check"], first["state"]) == ("web", "HighLoad", "critical")  # no `sev` label
    assert (second["entity"], second["check"]) == ("unowned", "HighLoad")
    assert {"job:node", "instance:web-01.example.com:9100", "severity:warning"} <= set(first["tags"])
