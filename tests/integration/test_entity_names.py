"""Names that fit the `ENTITY:CHECK` layout (issue 35 item 6), against a real Redis and a running `flapjack executive`.

Events whose entity holds ':' or whose names hold control characters are rejected with their reason, whichever
feeder produced them, and never make a check; Alertmanager's labels are rewritten (flapjack_py/model/names.py), so an
IPv6 `instance` becomes a check that can be listed, opened and acknowledged.
"""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
from executives import counted, in_flight, start_executives, stop, wait_registered

import web
from flapjack_py import keys
from flapjack_py.intake.httpbroker import event_for
from flapjack_py.intake.nagios import parse_nagios_line, parse_nsca_line
from flapjack_py.runtime.embedded_redis import EmbeddedRedis
from flapjack_py.store import checks as check_store
from flapjack_py.store import entities as entity_store
from flapjack_py.store import maintenance
from flapjack_py.store.plumbing.client import StrRedis
from tests.polling import wait_for

pytestmark = pytest.mark.real

CONFIG = {"executive": {"new_check_scheduled_maintenance_duration": 0}}
COLON = "entity name must not contain a colon (':' separates entity and check in check ids)"
NOW = 1_800_000_000


def service(entity: str, check: str, state: str = "critical") -> dict[str, Any]:
    return {"type": "service", "state": state, "entity": entity, "check": check, "summary": "from a test"}


@pytest.fixture
def executive(redis_server: EmbeddedRedis, real_r: redis.Redis, tmp_path: Path) -> Iterator[subprocess.Popen[bytes]]:
    """One `flapjack executive` process on the test server, stopped (by pid) after the test."""
    procs = start_executives(redis_server, CONFIG, tmp_path, 1)
    try:
        wait_registered(real_r, 1)
        yield procs[0]
    finally:
        stop(procs)


def processed(client: redis.Redis, n: int) -> None:
    """Wait until the executive has taken `n` events in all and holds none in flight (their writes are done)."""
    wait_for(lambda: counted(client) >= n and not in_flight(client) and not client.llen(keys.events()), 30,
             f"{n} events processed")


def rejected_reasons(client: redis.Redis) -> list[tuple[dict[str, Any], str]]:
    """(event as sent, reason) of every rejected event, oldest first."""
    found = []
    for key in client.scan_iter(match=keys.events_rejected_pattern()):
        hour = key.decode().rpartition(":")[2]
        raws = [json.loads(raw) for raw in client.lrange(key, 0, -1)]
        reasons = [json.loads(r)["reason"] for r in client.lrange(keys.events_rejected_reasons(hour), 0, -1)]
        found += list(zip(raws, reasons, strict=True))
    return found[::-1]


def test_names_that_do_not_fit_are_rejected_with_their_reason_from_every_feeder(
        executive: subprocess.Popen[bytes], real_r: redis.Redis, real_s: StrRedis) -> None:
    bad = [  # (what a feeder queues, the reason it is rejected for)
        (service("web:01", "HTTP"), COLON),  # JSON feed, the receiver's pipe, oneoff
        (service("db\x0001", "PING"), "entity name has a control character (U+0000 at offset 2)"),
        (service("db-01", "HT\nTP"), "check name has a control character (U+000A at offset 2)"),
        (service("db-01", "PING\x7f"), "check name has a control character (U+007F at offset 4)"),
        (parse_nagios_line(f"[SERVICEPERFDATA]\t{NOW}\tweb:02\tHTTP\tCRITICAL\t0.1\t0.0\tdown\t\n"), COLON),
        (parse_nsca_line(f"[{NOW}] PROCESS_SERVICE_CHECK_RESULT;db-02;Disk\x01;2;full"),
         "check name has a control character (U+0001 at offset 4)"),
        (event_for({"entity": "[::1]:80", "check": "HTTP", "type": "service", "state": "ok", "summary": "up",
                    "time": NOW, "ttl": 300}, NOW), COLON),  # httpbroker
    ]
    good = [service("web", "01:HTTP"), service("db-01", "PING")]  # `web` + `01:HTTP` is the check web:01 would hit
    for event in [event for event, _ in bad] + good:
        real_r.lpush(keys.events(), json.dumps(event))

    processed(real_r, len(bad) + len(good))

    assert rejected_reasons(real_r) == bad
    assert int(real_r.hget(keys.event_counters(), "invalid") or 0) == len(bad)
    assert check_store.all_check_ids(real_s) == ["db-01:PING", "web:01:HTTP"]
    assert entity_store.entity_check_names(real_s, "web") == ["01:HTTP"]  # only the good event's check
    assert sorted(entity_store.all_entity_names(real_s).values()) == ["db-01", "web"]
    written = [k.decode() for k in real_r.scan_iter() if not k.startswith((b"events_rejected", b"executive_",
                                                                           b"event_counters", b"heartbeats"))]
    assert not [k for k in written if re.search("web:0[23]|\\[|db-02|\x00|\n|\x7f", k)], written


def test_an_ipv6_instance_through_the_alertmanager_receiver_can_be_listed_opened_and_acknowledged(
        executive: subprocess.Popen[bytes], real_r: redis.Redis, real_s: StrRedis) -> None:
    app = web.create_app(redis=real_r, config=CONFIG)
    http = app.test_client()
    alerts = {"version": "4", "alerts": [
        {"status": "firing", "labels": {"alertname": "NodeDown", "instance": "[::1]:9100", "job": "node"}},
        {"status": "firing", "labels": {"alertname": "HTTP", "entity": "web:01", "severity": "warning"}}]}

    answer = http.post("/api/receivers/alertmanager", json=alerts)
    assert answer.status_code == 202, answer.get_data(as_text=True)
    processed(real_r, 2)

    listed = http.get("/api/checks").get_json()["checks"]
    assert sorted((c["id"], c["entity_name"], c["name"]) for c in listed) == [
        ("--1:node/NodeDown", "--1", "node/NodeDown"), ("web-01:HTTP", "web-01", "HTTP")]
    front = http.get("/").get_data(as_text=True)
    for path in ("/checks/--1/node/NodeDown", "/checks/web-01/HTTP"):
        assert f'href="{path}"' in front
        page = http.get(path)
        assert page.status_code == 200, path

    ack = http.post("/api/unscheduled_maintenances/checks/--1:node/NodeDown",
                    json={"unscheduled_maintenances": [{"duration": 3600, "summary": "on it"}]})
    assert ack.status_code == 204, ack.get_data(as_text=True)
    processed(real_r, 3)
    assert maintenance.in_force(real_s, "--1", "node/NodeDown", maintenance.UNSCHEDULED) is not None
    assert maintenance.in_force(real_s, "web-01", "HTTP", maintenance.UNSCHEDULED) is None
    assert rejected_reasons(real_r) == []
