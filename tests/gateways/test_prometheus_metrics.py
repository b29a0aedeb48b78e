"""`/metrics`: parsed with prometheus_client's own parser, counters move by exactly what a scripted
event stream and its delivery through a real SMTP server did."""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
import time

import pytest
import requests
import yaml
from prometheus_client.parser import text_string_to_metric_families

from flapjack_py import keys
from flapjack_py.executive import Executive
from flapjack_py.store import contacts as contact_store
from flapjack_py.store import media as media_store
from flapjack_py.store.events import push_event
from flapjack_py.store.receivers import push_batch
from web import create_app

from .conftest import free_port

pytestmark = pytest.mark.real


def scrape(app) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    response = app.test_client().get("/metrics")
    assert response.status_code == 200
    assert response.content_type.startswith("text/plain")
    samples = {}
    for family in text_string_to_metric_families(response.get_data(as_text=True)):
        for sample in family.samples:
            samples[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return samples


def config_for(redis_server, smtp_server) -> dict:
    return {"redis": {"url": redis_server.url},
            "executive": {"new_check_scheduled_maintenance_duration": 0, "initial_failure_delay": 0,
                          "repeat_failure_delay": 0},
            "incidents": {"group_by": "none"},  # counts one alert per check's change (no incidents, issue 33)
            "gateways": {"email": {"enabled": True, "retry_intervals": [0],
                                   "smtp_config": {"host": "127.0.0.1", "port": smtp_server.port,
                                                   "from": "flapjack@example.net"}}}}


def test_counters_follow_events_and_deliveries(redis_server, smtp_server, real_r, burst, real_s):
    cfg = config_for(redis_server, smtp_server)
    app = create_app(redis=real_r, config=cfg)
    before = scrape(app)
    assert before[("flapjack_events_processed_total", ())] == 0
    contact_store.create_contact(real_s, {"id": "c1", "first_name": "Ada", "last_name": "L"})
    media_store.set_medium(real_s, "c1", "email", "ada@example.com", 0)
    real_r.hset(keys.entity_ids_by_name(), "web-1", "e1")
    real_r.hset(keys.entity_names_by_id(), "e1", "web-1")
    real_r.sadd(keys.contacts_for("e1"), "c1")
    stream = [("web-1", "http", "critical"), ("web-1", "disk", "ok"), ("web-1", "load", "warning"),
              ("web-1", "http", "ok")]
    for entity, check, state in stream:
        push_event(real_s, {"type": "service", "entity": entity, "check": check, "state": state,
                            "time": int(time.time())})
    real_r.lpush(keys.events(), b"{not json")
    Executive(real_r, cfg).drain()

    queued = scrape(app)
    assert queued[("flapjack_events_processed_total", ())] == 5  # the malformed one is counted too
    assert queued[("flapjack_events_rejected_total", (("reason", "not valid json"),))] == 1
    assert queued[("flapjack_checks", (("state", "ok"),))] == 2
    assert queued[("flapjack_checks", (("state", "warning"),))] == 1
    assert queued[("flapjack_checks_unhandled", ())] == 1
    # http problem, load problem (warning), http recovery
    assert queued[("flapjack_alerts_total", (("medium", "email"), ("status", "queued"), ("type", "problem")))] == 2
    assert queued[("flapjack_alerts_total", (("medium", "email"), ("status", "queued"), ("type", "recovery")))] == 1
    assert ("flapjack_alerts_total", (("medium", "email"), ("status", "delivered"), ("type", "problem"))) not in queued
    assert queued[("flapjack_executive_batch_seconds_count", ())] >= 1
    assert any(n == "flapjack_up" and dict(labels)["role"] == "executive" for n, labels in queued)

    assert burst("email", app.extensions["flapjack"].config) == 0  # exit status
    assert len(smtp_server.messages) == 3
    delivered = scrape(app)
    assert delivered[("flapjack_alerts_total", (("medium", "email"), ("status", "delivered"),
                                                ("type", "problem")))] == 2
    assert delivered[("flapjack_alerts_total", (("medium", "email"), ("status", "delivered"),
                                                ("type", "recovery")))] == 1
    assert delivered[("flapjack_alert_delivery_seconds_count", (("medium", "email"),))] == 3
    assert delivered[("flapjack_alert_delivery_seconds_bucket", (("le", "+Inf"), ("medium", "email")))] == 3
    assert delivered[("flapjack_gateway_failed_jobs", (("medium", "email"),))] == 0


def test_oldest_queued_age_and_queue_length(real_r, real_s):
    app = create_app(redis=real_r)
    push_event(real_s, {"type": "service", "entity": "a", "check": "b", "state": "ok", "time": int(time.time()) - 120})
    push_event(real_s, {"type": "service", "entity": "a", "check": "b", "state": "ok", "time": int(time.time())})
    samples = scrape(app)
    assert samples[("flapjack_events_queue_length", ())] == 2
    assert 119 <= samples[("flapjack_events_oldest_queued_age_seconds", ())] <= 130


def test_receiver_counters(real_r, real_s):
    push_batch(real_s, "nagios", ['{"n": 1}'], {"read": 4, "pushed": 1, "rejected": 3, "rejected:timestamp": 3},
               time.time())
    samples = scrape(create_app(redis=real_r))
    assert samples[("flapjack_receiver_lines_read_total", (("receiver", "nagios"),))] == 4
    assert samples[("flapjack_receiver_events_pushed_total", (("receiver", "nagios"),))] == 1
    assert samples[("flapjack_receiver_lines_rejected_total", (("reason", "timestamp"), ("receiver", "nagios")))] == 3


def test_executive_serves_metrics_on_its_own_port(tmp_path, redis_server, real_r, real_s):
    port = free_port()
    config_path = tmp_path / "flapjack.yml"
    config_path.write_text(yaml.safe_dump({"redis": {"url": redis_server.url}}))
    proc = subprocess.Popen([sys.executable, "-c", "from flapjack_py.cli import main; main()", "-c", str(config_path),
                             "executive", "--metrics-port", str(port)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        push_event(real_s, {"type": "service", "entity": "a", "check": "b", "state": "ok"})
        deadline, body = time.monotonic() + 20, ""
        while time.monotonic() < deadline and "flapjack_events_processed_total 1.0" not in body:
            try:
                body = requests.get(f"http://127.0.0.1:{port}/metrics", timeout=2).text
            except requests.ConnectionError:
                pass
            time.sleep(0.1)
        assert "flapjack_events_processed_total 1.0" in body
        assert f'instance="{socket.getfqdn()}:{proc.pid}"' in body
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=20)
