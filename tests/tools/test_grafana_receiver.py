"""Grafana unified alerting webhook: payload -> events (pure), and POST /api/receivers/grafana over real Redis."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import redis

from flapjack_py import keys
from flapjack_py.errors import InvalidEvent
from flapjack_py.executive import Executive
from flapjack_py.intake.grafana import events_from_payload
from flapjack_py.model.events import parse_event
from web import create_app

DATA = Path(__file__).parent / "data"
NOW = 1_800_000_000
EXECUTIVE = {"executive": {"new_check_scheduled_maintenance_duration": 0}}


def payload(name: str) -> dict[str, Any]:
    return json.loads((DATA / name).read_text())


def epoch(text: str) -> int:
    return int(datetime.fromisoformat(text).replace(tzinfo=UTC).timestamp())


def test_grouped_firing_alerts_become_one_event_each_mapped_as_alertmanager_alerts() -> None:
    first, second, nodata = events_from_payload(payload("grafana_firing_grouped.json"), now=NOW)
    assert first == {
        "type": "service", "entity": "web-01.example.com", "check": "High memory usage", "state": "warning",
        "summary": "memory 91% on web-01", "time": epoch("2026-11-23T09:59:42"),  # +01:00 in the payload
        "details": "The system has high memory usage\nrunbook: https://runbooks.example.com/memory\n"
                   "values: B=91.2346, C=1\ndashboard: https://grafana.example.com/d/node01\n"
                   "panel: https://grafana.example.com/d/node01?viewPanel=3",
        "tags": ["grafana_folder:Infra", "team:web"],
    }
    assert (second["entity"], second["state"], second["summary"]) == ("2001-db8--7", "critical", "memory above 95%")
    assert "details" not in second  # no values, empty links
    for event in (first, second, nodata):
        assert parse_event(json.dumps(event)) is not None


def test_a_rules_no_data_alert_is_the_rules_check_in_state_unknown() -> None:
    *_, nodata = events_from_payload(payload("grafana_firing_grouped.json"), now=NOW)
    assert (nodata["entity"], nodata["check"], nodata["state"]) == ("db-02", "Disk almost full", "unknown")
    assert nodata["summary"] == "DatasourceNoData for rule Disk almost full"
    assert nodata["tags"] == ["datasource_uid:prom01", "grafana_folder:Infra"]


def test_resolved_alert_is_ok_at_its_end_time() -> None:
    [event] = events_from_payload(payload("grafana_resolved.json"), now=NOW)
    assert (event["entity"], event["check"], event["state"]) == ("web-01.example.com", "High memory usage", "ok")
    assert event["time"] == epoch("2026-11-23T10:30:15")
    assert event["details"] == "values: B=62, C=0\ndashboard: https://grafana.example.com/d/node01"


@pytest.mark.parametrize("bad", [{"alerts": "x"}, [], {"version": "4", "alerts": []},
                                 {"version": "1", "alerts": [{"labels": {"job": "x"}}]}])
def test_malformed_payloads_are_refused(bad: Any) -> None:
    with pytest.raises(InvalidEvent):
        events_from_payload(bad, now=NOW)


def test_webhook_firing_then_resolved_changes_the_checks(real_r: redis.Redis) -> None:
    http = create_app(redis=real_r, config=EXECUTIVE).test_client()
    executive = Executive(real_r, EXECUTIVE)
    answer = http.post("/api/receivers/grafana", json=payload("grafana_firing_grouped.json"))
    assert answer.status_code == 202, answer.get_data(as_text=True)
    assert answer.get_json() == {"queued": 3}
    executive.drain()
    assert real_r.hget(keys.check("web-01.example.com", "High memory usage"), "state") == b"warning"
    assert real_r.hget(keys.check("2001-db8--7", "High memory usage"), "state") == b"critical"
    assert real_r.hget(keys.check("db-02", "Disk almost full"), "state") == b"unknown"
    assert http.post("/api/receivers/grafana", json=payload("grafana_resolved.json")).status_code == 202
    executive.drain()
    assert real_r.hget(keys.check("web-01.example.com", "High memory usage"), "state") == b"ok"


def test_webhook_refuses_what_is_not_a_grafana_payload(real_r: redis.Redis) -> None:
    http = create_app(redis=real_r).test_client()
    wrong_version = http.post("/api/receivers/grafana", json={**payload("grafana_resolved.json"), "version": "4"})
    assert wrong_version.status_code == 422
    assert "unsupported Grafana webhook version '4'" in wrong_version.get_json()["errors"][0]
    assert http.post("/api/receivers/grafana", json={"alerts": 3}).status_code == 422
    assert http.post("/api/receivers/grafana", data="{", content_type="application/json").status_code == 400
    assert http.post("/api/receivers/grafana", data="{}", content_type="text/plain").status_code == 415
    too_many = {"version": "1", "alerts": [{"labels": {"alertname": "x"}}] * 1001}
    assert http.post("/api/receivers/grafana", json=too_many).status_code == 413
    assert real_r.llen(keys.events()) == 0


def test_webhook_uses_the_grafana_label_names(real_r: redis.Redis) -> None:
    config = {"receivers": {"grafana": {"entity_labels": ["team"], "severity_label": "sev"}}}
    http = create_app(redis=real_r, config=config).test_client()
    assert http.post("/api/receivers/grafana", json=payload("grafana_resolved.json")).status_code == 202
    [event] = [json.loads(raw) for raw in real_r.lrange(keys.events(), 0, -1)]
    assert (event["entity"], event["check"]) == ("web", "High memory usage")
    bare = http.post("/api/receivers/grafana", json={"version": "1", "alerts": [{"labels": {"alertname": "Up"}}]})
    assert bare.status_code == 202
    assert json.loads(real_r.lindex(keys.events(), 0) or b"{}")["entity"] == "grafana"  # default_entity


def test_webhook_needs_a_responders_credentials_once_auth_is_on(real_r: redis.Redis) -> None:
    http = create_app(redis=real_r, config={"web": {"api_token": ["s3cret-token"]}}).test_client()
    refused = http.post("/api/receivers/grafana", json=payload("grafana_resolved.json"))
    assert refused.status_code == 401
    wrong = http.post("/api/receivers/grafana", json=payload("grafana_resolved.json"),
                      headers={"Authorization": "Bearer nope"})
    assert wrong.status_code == 401
    assert real_r.llen(keys.events()) == 0
    taken = http.post("/api/receivers/grafana", json=payload("grafana_resolved.json"),
                      headers={"Authorization": "Bearer s3cret-token"})
    assert taken.status_code == 202
    assert real_r.llen(keys.events()) == 1
