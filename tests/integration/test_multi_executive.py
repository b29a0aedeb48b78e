"""Several executive processes on one Redis produce what one executive would (issue 15, item 1).

Real `flapjack executive` processes share one real redis-server. Their batches
are kept small so that events of one check land in different executives'
batches. Outcomes that do not depend on the clock (counters, final states,
state-history lengths, entity ids, one alert per event and medium) are
compared with the stream; alert counts are compared where the test makes them
clock-independent (rounds separated by a second boundary).
"""

from __future__ import annotations

import json
import random
import signal
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import redis
from executives import (
    Outcome,
    add_contact_for_all,
    counted,
    expected,
    read_outcome,
    start_executives,
    stop,
    wait_processed,
    wait_registered,
)

from flapjack_py import keys
from flapjack_py.executive import Executive
from flapjack_py.runtime.embedded_redis import EmbeddedRedis
from flapjack_py.store.plumbing.client import StrRedis

pytestmark = [pytest.mark.real, pytest.mark.slow]

CHECKS = 20
SETTINGS = {"new_check_scheduled_maintenance_duration": 0, "batch_size": 3}
CONFIG = {"executive": SETTINGS, "gateways": {"email": {"enabled": True}},  # jobs queued, no worker
          "incidents": {"group_by": "none"}}  # one alert per check's state change: no incidents (issue 33)
DELAYS = {"initial_failure_delay": 0, "repeat_failure_delay": 3600}  # one problem alert per failure


def check_id(c: int) -> str:
    return f"host{c % 7}.example.com:check {c}"


def event(c: int, state: str, i: int, upper: bool = False) -> dict[str, Any]:
    entity, check = keys.split_check_id(check_id(c))
    return {"type": "service", "entity": entity.upper() if upper else entity, "check": check, "state": state,
            "summary": f"event {i}", **DELAYS}


def random_stream(n: int, seed: int) -> list[dict[str, Any]]:
    """Every check flips often; entity names arrive in both cases (the executive lower-cases them)."""
    rng = random.Random(seed)
    return [event(c, rng.choice(["ok", "ok", "critical", "warning"]), i, upper=rng.random() < 0.3)
            for i, c in enumerate(rng.randrange(CHECKS) for _ in range(n))]


def push(client: redis.Redis, stream: list[dict[str, Any]]) -> None:
    for i in range(0, len(stream), 2000):
        client.lpush("events", *(json.dumps(e) for e in stream[i:i + 2000]))


def assert_counters_unique(outcome: Outcome) -> None:
    """No two events got one event counter; no event was alerted twice on one contact medium."""
    assert len(outcome.state_counters) == len(set(outcome.state_counters))
    owners: dict[int, set[tuple[str, str]]] = {}
    for job in outcome.jobs:
        owners.setdefault(job["event_count"], set()).add((job["check"], job["type"]))
    assert {count: found for count, found in owners.items() if len(found) > 1} == {}
    sent = Counter((job["event_count"], job["contact"], job["media"]) for job in outcome.jobs)
    assert [k for k, n in sent.items() if n > 1] == []


def assert_same_as_stream(outcome: Outcome, stream: list[dict[str, Any]]) -> None:
    states, changes = expected(stream)
    assert outcome.counters["all"] == len(stream)
    assert outcome.counters["ok"] == sum(e["state"] == "ok" for e in stream)
    assert outcome.counters["failure"] == sum(e["state"] != "ok" for e in stream)
    assert {c: s for c, s in outcome.states.items() if c in states} == states
    assert {c: n for c, n in outcome.history.items() if c in changes} == changes
    entities = {keys.split_check_id(c)[0] for c in states}
    assert set(outcome.entity_ids) == entities  # one id per (lower-cased) entity name ...
    assert outcome.entity_names == len(entities)  # ... and no second id allocated for any


def run_executives(redis_server: EmbeddedRedis, client: redis.Redis, tmp_path: Path, n: int,
                   stream: list[dict[str, Any]]) -> Outcome:
    procs = start_executives(redis_server, CONFIG, tmp_path, n)
    try:
        wait_registered(client, n)
        push(client, stream)
        wait_processed(client, len(stream))
    finally:
        stop(procs)
    return read_outcome(client, {check_id(c) for c in range(CHECKS)})


def test_four_executives_apply_a_free_running_stream_like_one(redis_server: EmbeddedRedis, real_r: redis.Redis,
                                                              tmp_path: Path, real_s: StrRedis) -> None:
    add_contact_for_all(real_s, "alice", {"email": {"address": "alice@example.com", "interval": 3600}})
    stream = random_stream(6000, seed=3)
    outcome = run_executives(redis_server, real_r, tmp_path, 4, stream)
    assert_same_as_stream(outcome, stream)
    assert_counters_unique(outcome)
    assert list(real_r.scan_iter(match="event_claim*")) == []  # every claim released


def test_four_executives_send_one_alert_per_state_change(redis_server: EmbeddedRedis, real_r: redis.Redis,
                                                         tmp_path: Path, real_s: StrRedis) -> None:
    """Rounds of three same-state events per check back to back: critical, ok, critical, ok, critical, ok.

    One executive sends per check 3 problem and 3 recovery alerts and records 6 state changes.
    Rounds start in a new second so same-second tie rules (engine.md 3.0) cannot differ between runs.
    """
    add_contact_for_all(real_s, "alice", {"email": {"address": "alice@example.com", "interval": 3600}})
    procs = start_executives(redis_server, CONFIG, tmp_path, 4)
    stream: list[dict[str, Any]] = []
    try:
        wait_registered(real_r, 4)
        for state in ("critical", "ok") * 3:
            time.sleep(1 - time.time() % 1)
            rnd = [event(c, state, len(stream) + i) for c in range(CHECKS) for i in range(3)]
            stream += rnd
            push(real_r, rnd)
            wait_processed(real_r, len(stream))
    finally:
        stop(procs)
    outcome = read_outcome(real_r, {check_id(c) for c in range(CHECKS)})
    assert_same_as_stream(outcome, stream)
    per_check = {("problem", "", "critical"): 3, ("recovery", "", "ok"): 3}
    assert {cid: dict(alerts) for cid, alerts in outcome.alerts.items()} == {
        check_id(c): per_check for c in range(CHECKS)}
    assert_counters_unique(outcome)


def test_a_killed_executive_among_several_loses_and_repeats_nothing(redis_server: EmbeddedRedis,
                                                                    real_r: redis.Redis, tmp_path: Path, real_s: StrRedis) -> None:
    """kill -9 one of three executives mid-stream; a restarted one takes back its in-flight and hand-off events."""
    add_contact_for_all(real_s, "alice", {"email": {"address": "alice@example.com", "interval": 3600}})
    stream = random_stream(9000, seed=11)
    procs = start_executives(redis_server, CONFIG, tmp_path, 3)
    try:
        wait_registered(real_r, 3)
        push(real_r, stream)
        while counted(real_r) < len(stream) // 4:
            time.sleep(0.01)
        procs[0].send_signal(signal.SIGKILL)
        procs[0].wait()
        procs += start_executives(redis_server, CONFIG, tmp_path, 1)  # a restart recovers at boot
        wait_processed(real_r, len(stream))
    finally:
        stop(procs)
    outcome = read_outcome(real_r, {check_id(c) for c in range(CHECKS)})
    assert_same_as_stream(outcome, stream)
    assert_counters_unique(outcome)
    assert list(real_r.scan_iter(match="event_claim*")) == []
    assert list(real_r.scan_iter(match="events_handoff:*")) == []


def test_one_executive_alone_still_matches_the_stream(real_r: redis.Redis) -> None:
    """The reference the multi-executive tests compare with: one executive, whole batches."""
    stream = random_stream(3000, seed=3)
    push(real_r, stream)
    Executive(real_r, {"executive": {"new_check_scheduled_maintenance_duration": 0}}).drain()
    assert_same_as_stream(read_outcome(real_r, {check_id(c) for c in range(CHECKS)}), stream)


def test_two_executives_notifying_one_contact_keep_its_rollup_right(redis_server: EmbeddedRedis,
                                                                    real_r: redis.Redis, tmp_path: Path, real_s: StrRedis) -> None:
    """30 checks of one contact (email rollup threshold 3) fail, then recover, with two executives at once.

    One executive sends 2 problem alerts, then 1 rollup problem and holds back the rest while the
    drop_rollup key lives; on recovery it holds back until 2 checks are left alerting: 1 rollup
    recovery, then 2 recovery alerts. The alerting set ends empty.
    """
    add_contact_for_all(real_s, "alice", {"email": {"address": "alice@example.com", "interval": 3600,
                                                    "rollup_threshold": 3}})
    config = {**CONFIG, "executive": {**SETTINGS, "batch_size": 1}}
    procs = start_executives(redis_server, config, tmp_path, 2)
    rounds = {}
    try:
        wait_registered(real_r, 2)
        for state in ("critical", "ok"):
            time.sleep(1 - time.time() % 1)
            before = {a.decode() for a in real_r.zrange(keys.alerts(), 0, -1)}
            push(real_r, [event(c, state, c) for c in range(30)])
            wait_processed(real_r, 30 if state == "critical" else 60)
            rounds[state] = Counter(
                tuple(v.decode() for v in real_r.hmget(keys.alert(a.decode()), "type", "rollup"))
                for a in real_r.zrange(keys.alerts(), 0, -1) if a.decode() not in before)
    finally:
        stop(procs)
    assert rounds["critical"] == {("problem", ""): 2, ("problem", "problem"): 1}
    assert rounds["ok"] == {("recovery", "recovery"): 1, ("recovery", ""): 2}
    assert real_r.zcard(keys.contact_alerting_checks("alice", "email")) == 0


def test_a_rollup_set_changed_by_another_executive_meanwhile_is_decided_again(
        real_r: redis.Redis, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, real_s: StrRedis) -> None:
    """Between the notifier's read and the commit another executive alerts on a second check of the
    contact: the commit fails on the WATCHed alerting set and the notification is decided again
    (the notify log has the line of the committed decision only)."""
    add_contact_for_all(real_s, "alice", {"email": {"address": "alice@example.com", "interval": 3600,
                                                    "rollup_threshold": 2}})
    notify_log = tmp_path / "notify.log"
    executive = Executive(real_r, {**CONFIG, "executive": {**SETTINGS, "notification_log_file": str(notify_log)}})
    decide = executive.notifier.notify
    rounds: list[int] = []

    def decide_while_another_executive_alerts(*args: Any) -> None:
        decide(*args)
        rounds.append(len(rounds))
        if len(rounds) == 1:
            now = int(time.time())
            real_r.hset(keys.check("other", "disk"), mapping={"state": "critical", "last_change": now})
            real_r.zadd(keys.current_checks("other"), {"disk": now})
            real_r.zadd(keys.contact_alerting_checks("alice", "email"), {"other:disk": now})

    monkeypatch.setattr(executive.notifier, "notify", decide_while_another_executive_alerts)
    push(real_r, [event(0, "critical", 0)])
    assert executive.drain() == 1
    assert rounds == [0, 1]
    alerts = [tuple(v.decode() for v in real_r.hmget(keys.alert(a.decode()), "type", "rollup"))
              for a in real_r.zrange(keys.alerts(), 0, -1)]
    assert alerts == [("problem", "problem")]  # two alerting checks: the threshold is reached
    assert len(notify_log.read_text().splitlines()) == 1, notify_log.read_text()
    assert real_r.zcard(keys.contact_alerting_checks("alice", "email")) == 2
