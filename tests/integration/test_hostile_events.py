"""Events that cannot hurt (issue 17): each hostile event is rejected alone with its reason, the events behind it
are processed, and the executive (a real `flapjack executive` process on a real redis-server) never exits."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
from notifier_world import World

from flapjack_py import keys
from flapjack_py.executive import Executive
from flapjack_py.runtime.embedded_redis import EmbeddedRedis
from flapjack_py.store import checks as check_store
from flapjack_py.store.plumbing.client import StrRedis

pytestmark = pytest.mark.real

REDOS_ENTITY = "a" * 30 + "!"
GOOD = 200
SERVICE = {"type": "service", "state": "critical", "entity": "web-01", "check": "HTTP"}


def hostile_events() -> dict[str, bytes]:
    """Reason (a fragment of it) -> raw event."""
    head = json.dumps(SERVICE)[:-1]
    return {
        "more than the 65536 allowed": json.dumps({**SERVICE, "summary": "x" * 10_000_000}).encode(),
        "nested deeper than 16": (head + ', "details": ' + "[" * 30_000 + "]" * 30_000 + "}").encode(),
        "not UTF-8": head.encode() + b', "summary": "caf\xe9"}',
        "time must be between": json.dumps({**SERVICE, "time": "9" * 5000}).encode(),
        "duration must be between": json.dumps({**SERVICE, "type": "action", "state": "acknowledgement",
                                                "duration": 10**16}).encode(),
        "repeat_failure_delay must be between": json.dumps({**SERVICE, "repeat_failure_delay": "9" * 4400}).encode(),
    }


def good_event(i: int) -> bytes:
    return json.dumps({"type": "service", "state": "ok", "entity": f"host{i % 20}", "check": f"check{i}"}).encode()


def rejected_with_reasons(client: redis.Redis) -> list[tuple[int, str]]:
    """(length of the kept raw text, reason) of every rejected event, oldest first."""
    found = []
    for key in client.scan_iter(match=keys.events_rejected_pattern()):
        hour = key.decode().rpartition(":")[2]
        raws = client.lrange(key, 0, -1)
        reasons = [json.loads(r)["reason"] for r in client.lrange(keys.events_rejected_reasons(hour), 0, -1)]
        assert len(raws) == len(reasons)
        found += list(zip([len(r) for r in raws], reasons, strict=True))
    return found[::-1]


@pytest.fixture
def world(real_r: redis.Redis) -> World:
    """Ada is paged by email for entities matching `(a+)+$` (a catastrophic pattern for backtracking engines)."""
    world = World(real_r, clock=None)
    world.contact("ada", {"email": "ada@example.com"}, entities=(REDOS_ENTITY,),
                  rules=[{"regex_entities": ["(a+)+$"], "critical_media": ["email"]}])
    return world


@pytest.fixture
def executive_process(redis_server: EmbeddedRedis, tmp_path: Path) -> Iterator[subprocess.Popen[bytes]]:
    """A `flapjack executive` process on the test server (stopped by pid afterwards)."""
    config = tmp_path / "flapjack.yml"
    config.write_text(json.dumps({"executive": {"new_check_scheduled_maintenance_duration": 0, "batch_size": 50}}))
    env = dict(os.environ, FLAPJACK_REDIS_URL=redis_server.url, FLAPJACK_CONFIG=str(config))
    proc = subprocess.Popen([sys.executable, "-c", "from flapjack_py.cli import main; main()", "executive"],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    yield proc
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)


def wait_until_drained(client: redis.Redis, proc: subprocess.Popen[bytes], deadline: float = 90.0) -> None:
    end = time.monotonic() + deadline
    while time.monotonic() < end and proc.poll() is None:
        in_flight = sum(int(client.llen(k)) for k in client.scan_iter(match=keys.events_in_flight_pattern()))
        if client.llen("events") == 0 and in_flight == 0:
            return
        time.sleep(0.2)


def test_hostile_events_are_rejected_alone_and_the_executive_goes_on(
        world: World, real_r: redis.Redis, executive_process: subprocess.Popen[bytes], real_s: StrRedis) -> None:
    hostile = hostile_events()
    real_r.lpush("events", json.dumps({"type": "service", "state": "critical", "entity": REDOS_ENTITY,
                                       "check": "PING", "initial_failure_delay": 0}))
    for raw in hostile.values():
        real_r.lpush("events", raw)
    for i in range(GOOD):
        real_r.lpush("events", good_event(i))

    wait_until_drained(real_r, executive_process)

    assert executive_process.poll() is None, executive_process.stderr.read().decode()[-2000:]  # type: ignore[union-attr]
    rejected = rejected_with_reasons(real_r)
    assert [next(f for f in hostile if f in reason) for _, reason in rejected] == list(hostile)
    assert max(size for size, _ in rejected) == 65536  # of the 10 MB event only the beginning is kept
    assert all(check_store.check_state(real_s, f"host{i % 20}", f"check{i}") == "ok" for i in range(GOOD))
    assert [(a["contact"], a["media"], a["type"]) for a in world.alert_records()] == [("ada", "email", "problem")]


def test_a_successor_rejects_a_dead_executives_hostile_in_flight_events(
        real_r: redis.Redis, redis_server: EmbeddedRedis, tmp_path: Path, real_s: StrRedis) -> None:
    """The events a crashed executive held are taken by the next one, which rejects them instead of crashing."""
    dead = keys.events_in_flight("gone.example.com", 999_999)
    real_r.rpush(dead, *hostile_events().values(), good_event(1))
    env = dict(os.environ, FLAPJACK_REDIS_URL=redis_server.url)
    env.pop("FLAPJACK_CONFIG", None)

    done = subprocess.run([sys.executable, "-c", "from flapjack_py.cli import main; main()", "executive", "--burst"],
                          env=env, capture_output=True, text=True, timeout=120)

    assert done.returncode == 0, done.stderr[-2000:]
    assert len(rejected_with_reasons(real_r)) == len(hostile_events())
    assert check_store.check_state(real_s, "host1", "check1") == "ok"


def test_an_event_that_breaks_processing_is_rejected_alone(real_r: redis.Redis,
                                                           monkeypatch: pytest.MonkeyPatch, real_s: StrRedis) -> None:
    """Whatever still breaks (here: loading the check's state) costs that event only; its batch goes on."""
    real_read = check_store.snapshots_from

    def read(ids: list[tuple[str, str]], *args: Any) -> Any:
        if ("cursed", "HTTP") in ids:
            raise ValueError("corrupt check state")
        return real_read(ids, *args)

    monkeypatch.setattr(check_store, "snapshots_from", read)
    ex = Executive(real_r, {"executive": {"new_check_scheduled_maintenance_duration": 0}})
    for entity in ("before", "cursed", "after"):
        real_r.lpush("events", json.dumps({**SERVICE, "entity": entity, "state": "ok"}))

    assert ex.drain() == 3
    assert ex.drain() == 0  # nothing left in flight, nothing taken again

    assert [reason for _, reason in rejected_with_reasons(real_r)] == [
        "internal error: ValueError('corrupt check state')"]
    assert check_store.check_state(real_s, "before", "HTTP") == "ok"
    assert check_store.check_state(real_s, "after", "HTTP") == "ok"
