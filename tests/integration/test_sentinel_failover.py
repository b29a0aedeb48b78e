"""Sentinel failover with real processes: the primary is SIGKILLed under a steady stream of events.

A primary, a replica and three sentinels; a real `flapjack executive` and a real
email gateway worker configured with `redis.sentinels`; the web app built from
the same config. Processing resumes on the promoted replica within the
sentinels' failover time + 5 s, the gateway delivers and /api/health answers
through the new primary. Events the old primary acknowledged but had not
replicated are counted (none of those confirmed with WAIT may be lost).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import redis
import yaml
from rq import Queue, Worker

import web
from flapjack_py import keys
from flapjack_py.config.settings import load_config
from flapjack_py.runtime.connection import make_client
from flapjack_py.store.feeding import push_confirmed
from tests.alerting import enqueue_like_notifier
from tests.gateways.conftest import SmtpServer, make_alert
from tests.integration.sentinel_cluster import SentinelCluster, sentinel_mode_missing
from tests.polling import wait_for

pytestmark = [pytest.mark.real, pytest.mark.slow,
              pytest.mark.skipif(bool(sentinel_mode_missing()), reason=sentinel_mode_missing() or "")]

FLAPJACK = [sys.executable, "-c", "from flapjack_py.cli import main; main()"]


class Feeder(threading.Thread):
    """Pushes numbered events every few ms through the Sentinel client, each confirmed with WAIT 1."""

    def __init__(self, client: redis.Redis) -> None:
        super().__init__(daemon=True)
        self.client = client
        self.acked: dict[int, float] = {}  # event number -> when the primary acknowledged it
        self.confirmed: set[int] = set()  # ... and a replica had it (WAIT)
        self.errors = 0
        self.stop = threading.Event()

    def run(self) -> None:
        n = 0
        while not self.stop.wait(0.005):
            n += 1
            event = {"type": "service", "entity": "feed", "check": f"c{n % 20}", "state": "ok", "summary": str(n)}
            try:
                if push_confirmed(self.client, event, timeout_ms=200):
                    self.confirmed.add(n)
                self.acked[n] = time.monotonic()
            except redis.RedisError:
                self.errors += 1  # not acknowledged: a real feeder sends it again
                time.sleep(0.05)


def applied(client: redis.Redis) -> list[int]:
    """Numbers of the events the executive applied (its archive is written in the same MULTI)."""
    found: list[int] = []
    for key in client.scan_iter(match=keys.events_archive_pattern()):
        found += [int(json.loads(raw)["summary"]) for raw in client.lrange(key, 0, -1)]
    return found


def start(args: list[str], config_path: Path) -> subprocess.Popen[bytes]:
    env = dict(os.environ, FLAPJACK_CONFIG=str(config_path))
    env.pop("FLAPJACK_REDIS_URL", None)
    with open(config_path.parent / f"{args[-1]}.log", "ab") as log:  # read it when the test fails
        return subprocess.Popen([*FLAPJACK, *args], env=env, stdin=subprocess.DEVNULL, stderr=log)


def test_processing_follows_a_failover(tmp_path: Path) -> None:
    cluster = SentinelCluster(tmp_path).start()
    smtp = SmtpServer().start()
    raw = {"redis": {"sentinels": cluster.sentinels, "master_name": "mymaster", "url": "redis:///0"},
           "executive": {"archive_events": True, "new_check_scheduled_maintenance_duration": 0},
           "gateways": {"email": {"enabled": True, "retry_intervals": [1],
                                  "smtp_config": {"host": "127.0.0.1", "port": smtp.port}}}}
    config_path = tmp_path / "flapjack.yml"
    config_path.write_text(yaml.safe_dump(raw))
    config = load_config(raw)
    client = make_client(config.redis, decode_responses=True)
    parts = [start(["executive"], config_path), start(["gateway", "email"], config_path)]
    http = web.create_app(config=raw).test_client()
    feeder = Feeder(make_client(config.redis))
    try:
        feeder.start()
        wait_for(lambda: len(applied(client)) >= 200, 30, "events processed before the failover")
        wait_for(lambda: http.get("/api/health").status_code == 200, 30, "both processes beat (health ok)")
        wait_for(lambda: Worker.all(queue=Queue("email", connection=make_client(config.redis))), 30,
                 "the email rq worker is registered")

        cluster.kill_primary()
        killed = time.monotonic()
        wait_for(lambda: cluster.master_port() == cluster.replica_port, 30, "the sentinels promote the replica")
        failover = time.monotonic() - killed
        wait_for(lambda: any(feeder.acked.get(n, 0) > killed for n in applied(client)), failover + 10,
                 "an event sent after the kill is processed")
        resumed = time.monotonic() - killed
        assert resumed <= failover + 5, (resumed, failover)

        alert = enqueue_like_notifier(make_client(config.redis), config, make_alert(address="ops@example.com"))
        wait_for(lambda: smtp.messages, 60, "the gateway delivers through the new primary")
        assert smtp.messages[0]["To"] == "ops@example.com" and alert["id"]
        health = http.get("/api/health").get_json(force=True)
        assert health["status"] == "ok", health
        assert http.get("/").status_code == 200

        feeder.stop.set()
        feeder.join(5)
        queue = keys.events("events")
        wait_for(lambda: client.llen(queue) == 0 and not list(client.scan_iter(match="events_processing:*")), 30,
                 "the queue drained")
        done = set(applied(client))
        lost = sorted(set(feeder.acked) - done)
        print(f"\nfailover {failover:.1f}s, processing resumed {resumed:.1f}s after the kill; "
              f"{len(feeder.acked)} events acknowledged, {len(feeder.confirmed)} confirmed by WAIT, "
              f"{len(lost)} acknowledged but lost, {len(feeder.confirmed & set(lost))} confirmed and lost, "
              f"{feeder.errors} pushes refused during the failover")
        assert not feeder.confirmed & set(lost), "an event a replica had confirmed was lost"
    finally:
        feeder.stop.set()
        for proc in parts:
            proc.send_signal(signal.SIGTERM)
        for proc in parts:
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
        smtp.stop()
        cluster.stop()
