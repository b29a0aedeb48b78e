"""Health and the watchdog on a real Redis: heartbeats, queue age, failures, one page for many watchdogs.

The last test runs a real `flapjack executive`, SIGKILLs it and watches
/api/health turn 503 with the reason within `watchdog.heartbeat_timeout`.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import redis
from pytest_httpserver import HTTPServer
from redis.backoff import NoBackoff
from redis.retry import Retry
from rq.registry import FailedJobRegistry

import web
from flapjack_py.config.settings import load_config
from flapjack_py.executive import Executive
from flapjack_py.model.heartbeat import Heartbeat
from flapjack_py.runtime.embedded_redis import EmbeddedRedis
from flapjack_py.runtime.health import check_health
from flapjack_py.runtime.watchdog import Announcement, Notice, Watchdog
from flapjack_py.store import health as health_store
from flapjack_py.store.events import push_event
from flapjack_py.store.plumbing.client import StrRedis
from flapjack_py.store.queues import FAILURE_TTL
from tests.polling import wait_for

pytestmark = pytest.mark.real

NOW = 1_700_000_000


def unreachable() -> redis.Redis:
    """A client of a port nobody listens on, without redis-py's retries (seconds of back-off)."""
    return redis.Redis(host="127.0.0.1", port=1, socket_connect_timeout=0.2, retry=Retry(NoBackoff(), 0))


def test_heartbeats_are_indexed_and_remembered_after_their_key_expires(real_r: redis.Redis, real_s: StrRedis) -> None:
    beat = Heartbeat(role="gateway", host="h1", pid=7, started=NOW - 10, medium="email", at=NOW)
    health_store.save_gateway_heartbeat(real_s, beat, 30)
    assert health_store.load_heartbeats(real_s, NOW) == [("gateway_heartbeat:email:h1:7", NOW, beat)]
    health_store.remove_gateway_heartbeat(real_s, beat)
    assert health_store.load_heartbeats(real_s, NOW + 5) == [("gateway_heartbeat:email:h1:7", NOW, None)]
    assert health_store.load_heartbeats(real_s, NOW + health_store.HEARTBEAT_HISTORY + 1) == []


def test_the_queue_head_age_grows_until_an_event_is_taken(real_r: redis.Redis, real_s: StrRedis) -> None:
    assert health_store.queue_head_age(real_s, "events", NOW) == (0, 0)
    push_event(real_s, {"type": "service", "entity": "a", "check": "b", "state": "ok"})
    push_event(real_s, {"type": "service", "entity": "a", "check": "b", "state": "ok"})
    assert health_store.queue_head_age(real_s, "events", NOW) == (2, 0)
    assert health_store.queue_head_age(real_s, "events", NOW + 61) == (2, 61)
    Executive(real_r, {}).queue.take(1)  # same text at the head, but the processed counter moved on
    real_r.hincrby("event_counters", "all", 1)
    assert health_store.queue_head_age(real_s, "events", NOW + 62) == (1, 0)


def test_failed_alerts_are_counted_within_the_window(real_r: redis.Redis, real_s: StrRedis) -> None:
    key = FailedJobRegistry("email", connection=real_r).key
    real_r.zadd(key, {"old": NOW - 400 + FAILURE_TTL, "new1": NOW - 10 + FAILURE_TTL, "new2": NOW + FAILURE_TTL})
    assert health_store.recent_failures(real_s, "email", NOW, 300, FAILURE_TTL) == 2


def test_check_health_reads_an_executive_that_just_ran(real_r: redis.Redis, real_s: StrRedis) -> None:
    config = load_config({})
    assert check_health(real_s, config, int(time.time())).reasons[0].startswith("No executive has run yet")
    Executive(real_r, {}).drain()
    health = check_health(real_s, config, int(time.time()))
    assert health.ok and health.executives == 1 and health.checks == 0


def test_unreachable_redis_is_a_failing_answer() -> None:
    health = check_health(unreachable(), load_config({}), NOW)
    assert not health.ok and health.reasons[0].startswith("Redis is unreachable (ConnectionError")


class Pager:
    """A Sender that keeps what it was asked to send."""

    def __init__(self) -> None:
        self.sent: list[Notice] = []

    def __call__(self, notice: Notice) -> None:
        self.sent.append(notice)


def test_two_watchdogs_page_once_when_down_and_once_when_back(real_r: redis.Redis, real_s: StrRedis) -> None:
    config = load_config({"watchdog": {"after": 60}})
    pager = Pager()
    dogs = [Watchdog(real_s, config, pager), Watchdog(real_s, config, pager)]
    start = time.time()
    for offset in (0, 30, 59):
        for dog in dogs:
            dog.tick(start + offset)
    assert pager.sent == []
    for offset in (60, 61, 90):
        for dog in dogs:
            dog.tick(start + offset)
    assert [n.kind for n in pager.sent] == [Announcement.DOWN]
    assert pager.sent[0].reasons[0].startswith("No executive has run yet") and pager.sent[0].since == int(start)
    Executive(real_r, {}).drain()  # an executive beats: healthy again
    for dog in dogs:
        dog.tick()
        dog.tick()
    assert [n.kind for n in pager.sent] == [Announcement.DOWN, Announcement.BACK]
    assert health_store.load_watchdog_state(real_s).status == "ok"


def test_a_watchdog_pages_alone_once_while_redis_is_unreachable() -> None:
    pager = Pager()
    dog = Watchdog(unreachable(), load_config({"watchdog": {"after": 0}}), pager)
    for _ in range(3):
        dog.tick()
    assert [n.kind for n in pager.sent] == [Announcement.DOWN]
    assert "Redis is unreachable" in pager.sent[0].reasons[0]


def test_the_ping_url_is_requested_once_per_interval_while_healthy(real_r: redis.Redis,
                                                                    httpserver: HTTPServer, real_s: StrRedis) -> None:
    httpserver.expect_request("/ping").respond_with_data("ok")
    config = load_config({"watchdog": {"ping_url": httpserver.url_for("/ping"), "ping_interval": 60}})
    dogs = [Watchdog(real_s, config, Pager()), Watchdog(real_s, config, Pager())]
    for dog in dogs:
        dog.tick()  # failing (no executive): no ping
    assert len(httpserver.log) == 0
    Executive(real_r, {}).drain()
    for dog in dogs * 2:
        dog.tick()
    assert len(httpserver.log) == 1


@pytest.mark.slow
def test_a_killed_executive_turns_api_health_503_within_the_timeout(redis_server: EmbeddedRedis,
                                                                    real_r: redis.Redis, tmp_path: Path) -> None:
    cfg = {"watchdog": {"heartbeat_timeout": 10}}
    config_file = tmp_path / "flapjack.yml"
    config_file.write_text(json.dumps(cfg))
    env = dict(os.environ, FLAPJACK_REDIS_URL=redis_server.url, FLAPJACK_CONFIG=str(config_file))
    proc = subprocess.Popen([sys.executable, "-c", "from flapjack_py.cli import main; main()", "executive"],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    http = web.create_app(redis=real_r, config=cfg).test_client()
    try:
        wait_for(lambda: http.get("/api/health").status_code == 200, timeout=20, what="health ok")
        assert http.get("/api/health").get_json(force=True)["status"] == "ok"
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    killed = time.monotonic()
    wait_for(lambda: http.get("/api/health").status_code == 503, timeout=20, what="health 503")
    took = time.monotonic() - killed
    body = http.get("/api/health").get_json(force=True)
    assert body["status"] == "failing"
    assert body["reasons"][0].startswith("No executive has processed events for"), body
    assert took <= 10 + 1, took  # the last beat was at most 5 s before the kill: 503 at most 10 s after it
