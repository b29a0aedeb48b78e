"""Generic JSON webhooks (config receivers.webhooks.NAME, POST /api/receivers/webhook/NAME), over real Redis,
with the Uptime Kuma and Zabbix mappings config.example.yml documents."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import redis
import yaml
from flask.testing import FlaskClient

from flapjack_py import keys
from flapjack_py.config.settings import load_config
from flapjack_py.errors import ConfigError
from flapjack_py.executive import Executive
from flapjack_py.model.json_paths import MISSING, lookup, parse_path
from web import create_app

EXAMPLE = Path(__file__).resolve().parents[2] / "config.example.yml"
EXECUTIVE = {"executive": {"new_check_scheduled_maintenance_duration": 0}}


def documented_webhooks() -> dict[str, Any]:
    """The commented-out `webhooks:` example of config.example.yml, as YAML."""
    lines = EXAMPLE.read_text().splitlines()
    start = lines.index("  #webhooks:")
    block = []
    for line in lines[start:]:
        if not line.startswith("  #"):
            break
        block.append(line[3:])
    return yaml.safe_load("\n".join(block))["webhooks"]  # type: ignore[no-any-return]


def uptime_kuma(status: int, hostname: str | None = None, msg: str = "timeout of 48000ms exceeded") -> dict[str, Any]:
    """A payload as Uptime Kuma's webhook notification (JSON body) posts it."""
    return {"heartbeat": {"monitorID": 7, "status": status, "time": "2026-11-23 10:00:00.123", "msg": msg,
                          "important": True, "duration": 60, "ping": None, "timezone": "Europe/Berlin"},
            "monitor": {"id": 7, "name": "Shop frontend", "url": "https://shop.example.com", "hostname": hostname,
                        "port": None, "type": "http", "active": True},
            "msg": f"[Shop frontend] [{'✅ Up' if status == 1 else '🔴 Down'}] {msg}"}


def zabbix(status: str, severity: str, opdata: str = "") -> dict[str, Any]:
    """What the documented Zabbix media type script posts."""
    return {"event": {"host": "db-02", "name": "Free disk space is less than 10% on /var", "status": status,
                      "severity": severity, "opdata": opdata}}


@pytest.fixture
def http(real_r: redis.Redis) -> FlaskClient:
    config = {**EXECUTIVE, "receivers": {"webhooks": {
        **documented_webhooks(),
        "batch": {"alerts": "results", "entity": "node", "check": "probe.name", "state": "verdict",
                  "states": {"pass": "ok", "FAIL": "critical"}, "default_state": "unknown", "summary": "text"}}}}
    return create_app(redis=real_r, config=config).test_client()


def queued(r: redis.Redis) -> list[dict[str, Any]]:
    return [json.loads(raw) for raw in reversed(r.lrange(keys.events(), 0, -1))]


def test_the_documented_examples_load() -> None:
    webhooks = load_config({"receivers": {"webhooks": documented_webhooks()}}).receivers.webhooks
    assert set(webhooks) == {"uptime-kuma", "zabbix"}
    assert webhooks["zabbix"].state == ("event.status", "event.severity")
    assert webhooks["uptime-kuma"].states == {"0": "critical", "1": "ok", "2": "warning", "3": "ok"}


def test_uptime_kuma_down_then_up(http: FlaskClient, real_r: redis.Redis) -> None:
    executive = Executive(real_r, EXECUTIVE)
    answer = http.post("/api/receivers/webhook/uptime-kuma", json=uptime_kuma(0))
    assert answer.status_code == 202, answer.get_data(as_text=True)
    assert answer.get_json() == {"queued": 1}
    [event] = queued(real_r)
    assert {k: event[k] for k in ("type", "entity", "check", "state", "summary")} == {
        "type": "service", "entity": "uptime-kuma", "check": "Shop frontend", "state": "critical",
        "summary": "timeout of 48000ms exceeded"}  # no hostname (an HTTP monitor): default_entity
    executive.drain()
    assert real_r.hget(keys.check("uptime-kuma", "Shop frontend"), "state") == b"critical"
    assert http.post("/api/receivers/webhook/uptime-kuma", json=uptime_kuma(1, msg="200 - OK")).status_code == 202
    executive.drain()
    assert real_r.hget(keys.check("uptime-kuma", "Shop frontend"), "state") == b"ok"


def test_uptime_kuma_hostname_is_the_entity_fitted_to_the_layout(http: FlaskClient, real_r: redis.Redis) -> None:
    assert http.post("/api/receivers/webhook/uptime-kuma", json=uptime_kuma(2, hostname="fe80::1")).status_code == 202
    [event] = queued(real_r)
    assert (event["entity"], event["state"]) == ("fe80--1", "warning")


@pytest.mark.parametrize(("status", "severity", "state"), [
    ("PROBLEM", "High", "critical"), ("PROBLEM", "average", "warning"), ("PROBLEM", "Not classified", "unknown"),
    ("RESOLVED", "High", "ok"), ("PROBLEM", "Something new", "critical")])  # unmapped: default_state
def test_zabbix_status_then_severity_decide_the_state(http: FlaskClient, real_r: redis.Redis,
                                                      status: str, severity: str, state: str) -> None:
    answer = http.post("/api/receivers/webhook/zabbix", json=zabbix(status, severity, "Free: 7.2%"))
    assert answer.status_code == 202, answer.get_data(as_text=True)
    [event] = queued(real_r)
    assert (event["entity"], event["check"], event["state"], event["summary"]) == (
        "db-02", "Free disk space is less than 10% on /var", state, "Free: 7.2%")


def test_zabbix_problem_and_recovery_reach_the_check(http: FlaskClient, real_r: redis.Redis) -> None:
    executive = Executive(real_r, EXECUTIVE)
    check = keys.check("db-02", "Free disk space is less than 10% on /var")
    assert http.post("/api/receivers/webhook/zabbix", json=zabbix("PROBLEM", "Average")).status_code == 202
    executive.drain()
    assert real_r.hget(check, "state") == b"warning"
    assert queued(real_r) == []
    assert http.post("/api/receivers/webhook/zabbix", json=zabbix("RESOLVED", "Average")).status_code == 202
    [event] = queued(real_r)
    assert event["summary"] == "Free disk space is less than 10% on /var"  # empty opdata: the check name
    executive.drain()
    assert real_r.hget(check, "state") == b"ok"


def test_a_list_of_alerts_is_one_event_each(http: FlaskClient, real_r: redis.Redis) -> None:
    body = {"results": [{"node": "a", "probe": {"name": "dns"}, "verdict": "PASS", "text": "fine"},
                        {"node": "b", "probe": {"name": "dns"}, "verdict": "fail", "text": "SERVFAIL"},
                        {"node": "c", "probe": {"name": "dns"}, "verdict": "skipped", "text": "?"}]}
    answer = http.post("/api/receivers/webhook/batch", json=body)
    assert answer.get_json() == {"queued": 3}
    assert [(e["entity"], e["check"], e["state"], e["summary"]) for e in queued(real_r)] == [
        ("a", "dns", "ok", "fine"), ("b", "dns", "critical", "SERVFAIL"), ("c", "dns", "unknown", "?")]


def test_an_unknown_webhook_is_404(http: FlaskClient, real_r: redis.Redis) -> None:
    answer = http.post("/api/receivers/webhook/nagios-xi", json=zabbix("PROBLEM", "High"))
    assert answer.status_code == 404
    assert "no webhook 'nagios-xi'" in answer.get_json()["errors"][0]
    assert real_r.llen(keys.events()) == 0


@pytest.mark.parametrize(("name", "body", "message"), [
    ("zabbix", {"event": {"name": "x", "status": "PROBLEM"}}, "no value at `event.host` (entity)"),
    ("zabbix", {"event": {"host": "h", "status": "PROBLEM"}}, "no value at `event.name` (check)"),
    ("zabbix", {"event": {"host": "h", "name": "x"}}, "no value at `event.status`, `event.severity` (state)"),
    ("zabbix", {"event": {"host": {"ip": "10.0.0.1"}, "name": "x", "status": "OK"}},
     "`event.host` (entity) is an object, not a value"),
    ("uptime-kuma", {"heartbeat": None, "monitor": None, "msg": "Uptime Kuma test"},
     "no value at `monitor.name` (check)"),  # Uptime Kuma's "Test" button: refused, nothing queued
    ("batch", {"result": []}, "no value at `results` (alerts)"),
    ("batch", {"results": {"node": "a"}}, "`results` (alerts) is not a list"),
    ("batch", {"results": [{"node": "a", "probe": {"name": "x"}, "verdict": "pass"}, {"node": "b", "verdict": "x"}]},
     "alert 1: no value at `probe.name` (check)"),
])
def test_a_payload_without_the_mapped_fields_is_refused_naming_the_path(
        http: FlaskClient, real_r: redis.Redis, name: str, body: Any, message: str) -> None:
    answer = http.post(f"/api/receivers/webhook/{name}", json=body)
    assert answer.status_code == 422
    assert answer.get_json()["errors"] == [message]
    assert real_r.llen(keys.events()) == 0


def test_too_many_alerts_too_big_a_body_and_bad_json_are_refused(real_r: redis.Redis) -> None:
    config = {"web": {"max_content_length": 4096},
              "receivers": {"webhooks": {"batch": {"alerts": "a", "entity": "e", "check": "c"}}}}
    http = create_app(redis=real_r, config=config).test_client()
    assert http.post("/api/receivers/webhook/batch", json={"a": [{}] * 1001}).status_code == 413  # count
    assert http.post("/api/receivers/webhook/batch", json={"a": [{"e": "x" * 5000}]}).status_code == 413  # size
    assert http.post("/api/receivers/webhook/batch", data="{", content_type="application/json").status_code == 400
    assert http.post("/api/receivers/webhook/batch", data="{}", content_type="text/plain").status_code == 415
    assert http.post("/api/receivers/webhook/batch", json={"a": [{"e": "h", "c": "x"}]}).status_code == 202
    assert real_r.llen(keys.events()) == 1


def test_webhooks_need_a_responders_credentials_once_auth_is_on(real_r: redis.Redis) -> None:
    config = {"web": {"api_token": ["s3cret-token"]}, "receivers": {"webhooks": documented_webhooks()}}
    http = create_app(redis=real_r, config=config).test_client()
    assert http.post("/api/receivers/webhook/zabbix", json=zabbix("PROBLEM", "High")).status_code == 401
    assert http.post("/api/receivers/webhook/unknown", json={}).status_code == 401  # who asks comes first
    assert real_r.llen(keys.events()) == 0
    taken = http.post("/api/receivers/webhook/zabbix", json=zabbix("PROBLEM", "High"),
                      headers={"Authorization": "Bearer s3cret-token"})
    assert taken.status_code == 202
    assert real_r.llen(keys.events()) == 1


@pytest.mark.parametrize(("webhook", "message"), [
    ({"entity": "a..b", "check": "c"}, "receivers.webhooks.w.entity: empty segment in path 'a..b'"),
    ({"entity": "e"}, "receivers.webhooks.w: set `check` (a path) or `default_check`"),
    ({"entity": "e", "check": "c", "states": {"down": "bad"}}, "receivers.webhooks.w.states.down: Input should be"),
    ({"entity": "e", "check": "c", "states": {"OK": "ok", "ok": "ok"}},
     "receivers.webhooks.w.states: 'OK' and 'ok' are the same value"),
    ({"entity": "e", "check": "c", "state": ["a"] * 6}, "receivers.webhooks.w.state: Value should have at most 5 items"),
    ({"entity": "e", "check": "c", "sumary": "x"}, "receivers.webhooks.w.sumary: unknown setting"),
])
def test_a_bad_mapping_stops_startup_naming_the_key(webhook: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError) as raised:
        load_config({"receivers": {"webhooks": {"w": webhook}}})
    assert str(raised.value).startswith(message), str(raised.value)


def test_a_bad_webhook_name_stops_startup() -> None:
    with pytest.raises(ConfigError, match=r"receivers\.webhooks\.no/slash"):
        load_config({"receivers": {"webhooks": {"no/slash": {"entity": "e", "check": "c"}}}})


def test_paths_name_keys_and_list_items() -> None:
    data = {"items": [{"name": "first"}, {"name": "second"}], "alert": {"host": "h", "0": "zero"}}
    assert lookup(data, parse_path("items.1.name")) == "second"
    assert lookup(data, parse_path("alert.0")) == "zero"
    assert lookup(data, parse_path("items.2.name")) is MISSING
    assert lookup(data, parse_path("alert.host.x")) is MISSING
    assert lookup(data, parse_path("items.-1")) is MISSING
    for bad in ("", ".a", "a.", "a\tb", "a." * 20 + "a", "x" * 513):
        with pytest.raises(ValueError):
            parse_path(bad)
