"""Several real `flapjack executive` processes on one real Redis, and what they leave behind.

Used by tests/integration/test_multi_executive.py and test_crash_safety.py: start N executives, push a
stream, wait until every event is counted, stop them, and read per-check
outcomes (state, history length, alerts) to compare with one executive's run.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import redis
from rq import Queue
from rq.serializers import JSONSerializer

from flapjack_py import keys
from flapjack_py.runtime.embedded_redis import EmbeddedRedis
from flapjack_py.store import contacts as contact_store
from flapjack_py.store import entities as entity_store
from tests.polling import wait_for


def start_executives(server: EmbeddedRedis, config: dict[str, Any], tmp_path: Path,
                     n: int) -> list[subprocess.Popen[bytes]]:
    """Start `n` `flapjack executive` processes with `config` (written as a file) on `server`."""
    config_file = tmp_path / "flapjack.yml"
    config_file.write_text(json.dumps(config))  # JSON is YAML
    return [start_executive(server, config_file) for _ in range(n)]


def start_executive(server: EmbeddedRedis, config_file: Path) -> subprocess.Popen[bytes]:
    """Start one `flapjack executive` process on `server` reading `config_file`."""
    env = dict(os.environ, FLAPJACK_REDIS_URL=server.url, FLAPJACK_CONFIG=str(config_file))
    return subprocess.Popen([sys.executable, "-c", "from flapjack_py.cli import main; main()", "executive"],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def expected(stream: Iterable[dict[str, Any]]) -> tuple[dict[str, str], dict[str, int]]:
    """(final state, number of state changes including the first state) per E:C (entity lower-cased) of a
    stream of service events, in stream order: what the executive must leave behind."""
    last: dict[str, str] = {}
    changes: Counter[str] = Counter()
    for e in stream:
        cid = f"{e['entity'].lower()}:{e['check']}"
        if last.get(cid) != e["state"]:
            changes[cid] += 1
            last[cid] = e["state"]
    return last, dict(changes)


def wait_registered(client: redis.Redis, n: int) -> None:
    """Wait until `n` executives have booted (their heartbeat keys exist)."""
    wait_for(lambda: len(list(client.scan_iter(match="executive_heartbeat:*"))) >= n, 30, "executives booted")


def stop(procs: Iterable[subprocess.Popen[bytes]]) -> None:
    """SIGTERM every process still running and wait for it."""
    for proc in procs:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
    for proc in procs:
        proc.wait(timeout=30)


def counted(client: redis.Redis) -> int:
    """event_counters all."""
    return int(client.hget(keys.event_counters(), "all") or 0)


def in_flight(client: redis.Redis) -> int:
    """Events on any executive's in-flight list."""
    return sum(int(client.llen(k)) for k in client.scan_iter(match=keys.events_in_flight_pattern()))


def wait_processed(client: redis.Redis, total: int, timeout: float = 60) -> None:
    """Wait until `total` events are counted and nothing is queued or in flight."""
    wait_for(lambda: counted(client) >= total and client.llen("events") == 0 and in_flight(client) == 0,
             timeout, f"{total} events processed")


def add_contact_for_all(client: redis.Redis, cid: str, media: dict[str, Any]) -> None:
    """A contact registered for every entity (contacts_for:ALL), with its automatic general rule."""
    contact_store.create_contact(client, {"id": cid, "first_name": cid.title(), "media": media})
    entity_store.add_entity_contacts(client, keys.ALL_ENTITIES_ID, [cid])


@dataclass
class Outcome:
    """What a run left: counters, per-check state / history length / alerts, entity ids."""

    counters: dict[str, int]
    states: dict[str, str]
    history: dict[str, int]
    alerts: dict[str, Counter[tuple[str, str, str]]]  # E:C -> (type, rollup, state) -> count
    entity_ids: dict[str, str]
    entity_names: int  # fields of all_entity_names_by_id
    jobs: list[dict[str, Any]]  # the alerts queued for the email gateway (no worker runs)
    state_counters: list[str]  # the event counter of every state change kept (E:C:<ts>:count)


def read_outcome(client: redis.Redis, check_ids: Iterable[str]) -> Outcome:
    """Read back what the executives wrote for `check_ids`."""
    def text(value: bytes) -> str:
        return value.decode()

    states, history, alerts = {}, {}, {}
    for cid in check_ids:
        entity, check = keys.split_check_id(cid)
        states[cid] = text(client.hget(keys.check(entity, check), "state") or b"")
        history[cid] = int(client.llen(keys.check_states(entity, check)))
        alerts[cid] = Counter()
    for alert_id in client.zrange(keys.alerts(), 0, -1):
        record = {text(k): text(v) for k, v in client.hgetall(keys.alert(text(alert_id))).items()}
        alerts.setdefault(record["check"], Counter())[(record["type"], record["rollup"], record["state"])] += 1
    return Outcome(
        counters={text(k): int(v) for k, v in client.hgetall(keys.event_counters()).items()},
        states=states, history=history, alerts=alerts,
        entity_ids={text(k): text(v) for k, v in client.hgetall(keys.entity_ids_by_name()).items()},
        entity_names=int(client.hlen(keys.entity_names_by_id())),
        jobs=[job.args[0] for job in Queue("email", connection=client, serializer=JSONSerializer).get_jobs()],
        state_counters=[text(client.get(k) or b"") for k in client.scan_iter(match="*:count", count=1000)],
    )
