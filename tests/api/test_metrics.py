"""Metrics (api-v1.md 12)."""

from __future__ import annotations

import os
import socket

import pytest

from .helpers import body_of

pytestmark = pytest.mark.real


@pytest.fixture
def data(send, client, clock):
    send("a.example.com", "PING", "ok")
    send("a.example.com", "SSH", "critical")
    clock.advance(100)
    send("b.example.com", "PING", "ok")
    client.post("/api/entities", json={"entities": [{"id": "x", "name": "idle"}]})


def test_metrics_all(client, data):
    body = body_of(client.get("/api/metrics"))
    assert body["fqdn"] == socket.getfqdn() and body["pid"] == os.getpid()
    assert isinstance(body["total_keys"], int)
    assert body["processed_events_all_time"]["all_time"]["all"] == 3
    assert body["event_queue_length"] == 0
    assert body["check_freshness"] == {"0": 1, "60": 2, "300": 0, "900": 0, "3600": 0}
    assert body["entities"] == {"all": 3, "enabled": 2, "failing": 1}
    assert body["checks"] == {"all": 3, "failing": 1}


def test_metrics_filter(client, data):
    assert list(body_of(client.get("/api/metrics?filter=pid,checks,nope"))) == ["pid", "checks"]
    assert len(body_of(client.get("/api/metrics?filter=pid,all"))) == 8


def test_sub_metrics(client, data):
    assert body_of(client.get("/api/metrics/check_freshness")) == {"check_freshness": {
        "from_0_to_60": 1, "from_60_to_300": 2, "from_300_to_900": 0, "from_900_to_3600": 0,
        "from_3600_to_∞": 0}}
    assert body_of(client.get("/api/metrics/entities")) == {"entities": {"all": 3, "enabled": 2, "failing": 1}}
    assert body_of(client.get("/api/metrics/checks")) == {"checks": {"all": 3, "failing": 1}}
    events = body_of(client.get("/api/metrics/events"))["events"]
    assert events["processed"]["all"] == 3 and events["queue"] == {"length": 0}
