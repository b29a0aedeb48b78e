"""The receivers' buffer: batches with counters, retries while Redis is down, blocks when full."""

from __future__ import annotations

import json
import logging
import threading

import fakeredis
import pytest
import redis

from flapjack_py.intake import buffer as intake_module
from flapjack_py.intake.buffer import Intake, RejectSampler
from flapjack_py.store.receivers import load_receiver_counters, rejected_reasons


class FlakyRedis(fakeredis.FakeRedis):
    """A fakeredis whose transactions fail while `down` is set (like a Redis being restarted)."""

    down = threading.Event()

    def pipeline(self, transaction=True, shard_hint=None):
        if self.down.is_set():
            raise redis.ConnectionError("Connection refused")
        return super().pipeline(transaction, shard_hint)


@pytest.fixture
def flaky(monkeypatch):
    monkeypatch.setattr(intake_module, "BACKOFF_START", 0.01)
    monkeypatch.setattr(intake_module, "BACKOFF_MAX", 0.05)
    client = FlakyRedis(decode_responses=True)  # the str client receivers push through
    FlakyRedis.down = threading.Event()
    yield client
    client.flushall()


def events(client):
    return [json.loads(raw) for raw in reversed(client.lrange("events", 0, -1))]


def test_events_and_counters_arrive_together(flaky):
    feed = Intake(flaky, "nagios").start()
    for n in range(3):
        feed.add({"entity": "e", "check": f"c{n}"})
    feed.reject("timestamp", "bad line")
    assert feed.close() == 0
    assert [e["check"] for e in events(flaky)] == ["c0", "c1", "c2"]
    counters = load_receiver_counters(flaky)["nagios"]
    assert (counters["read"], counters["pushed"], counters["rejected"]) == (4, 3, 1)
    assert rejected_reasons(counters) == {"timestamp": 1}


def test_redis_outage_holds_events_logs_once_and_sends_them_after(flaky, caplog):
    caplog.set_level(logging.WARNING, logger=intake_module.__name__)
    FlakyRedis.down.set()
    feed = Intake(flaky, "nsca").start()
    for n in range(50):
        feed.add({"n": n})
    threading.Timer(0.3, FlakyRedis.down.clear).start()
    assert feed.close(timeout=5) == 0
    assert [e["n"] for e in events(flaky)] == list(range(50))
    messages = [r.getMessage() for r in caplog.records]
    assert sum("Redis unreachable" in m for m in messages) == 1
    assert sum("Redis reachable again" in m for m in messages) == 1


def test_a_full_buffer_blocks_the_reader_instead_of_dropping(flaky):
    FlakyRedis.down.set()
    feed = Intake(flaky, "nagios", capacity=2).start()
    reader = threading.Thread(target=lambda: [feed.add({"n": n}) for n in range(10)], daemon=True)
    reader.start()
    reader.join(0.5)
    assert reader.is_alive()  # blocked: the pipe is no longer read
    assert feed.waiting == 2
    FlakyRedis.down.clear()
    reader.join(5)
    assert not reader.is_alive()
    feed.close()
    assert [e["n"] for e in events(flaky)] == list(range(10))


def test_closing_while_redis_stays_down_reports_what_was_not_sent(flaky, monkeypatch):
    FlakyRedis.down.set()
    feed = Intake(flaky, "nagios").start()
    feed.add({"n": 1})
    assert feed.close(timeout=2) == 1


def test_rejections_are_sampled_into_the_log(caplog):
    caplog.set_level(logging.WARNING, logger=intake_module.__name__)
    sampler = RejectSampler("nagios")
    for now in (0.0, 1.0, 2.0, 61.0):
        sampler.note("timestamp", f"line at {now}", now)
    sampler.note("fields", "other", 3.0)
    assert [r.getMessage() for r in caplog.records] == [
        "nagios: rejected line (timestamp): line at 0.0",
        "nagios: rejected line (timestamp), 2 more since the last one logged: line at 61.0",
        "nagios: rejected line (fields): other",
    ]
