"""Executives killed with SIGKILL at random points lose no event and apply none twice."""

from __future__ import annotations

import json
import random
import signal
import time
from collections import Counter
from pathlib import Path

import pytest
import redis
from executives import expected, in_flight, start_executive
from rq.job import Job
from rq.serializers import JSONSerializer

from flapjack_py import keys
from flapjack_py.executive import Executive
from flapjack_py.runtime.embedded_redis import EmbeddedRedis
from flapjack_py.store import contacts as contact_store
from flapjack_py.store.plumbing.client import StrRedis

pytestmark = [pytest.mark.real, pytest.mark.slow]

EVENTS = 20_000
CHECKS = 50
CONFIG = {"executive": {"new_check_scheduled_maintenance_duration": 0, "batch_size": 200}}


def make_stream(n: int, seed: int = 7) -> list[dict[str, str]]:
    """A stream where every check flips state often, so each event's effect is visible."""
    rng = random.Random(seed)
    return [{"type": "service", "entity": f"host{c % 10}", "check": f"check{c}",
             "state": rng.choice(["ok", "ok", "critical", "warning"]), "summary": f"event {i}"}
            for i, c in enumerate(rng.randrange(CHECKS) for _ in range(n))]


def kill_repeatedly(server: EmbeddedRedis, client: redis.Redis, config_file: Path, rng: random.Random) -> int:
    """Start executives and SIGKILL each at a random point once it commits, until the queue is empty; return
    how many were killed. Booting takes from 0.3 s to seconds on a busy machine, so the kill waits for the
    first commit (its next batch is then taken, being processed or being committed)."""
    kills = 0
    deadline = time.monotonic() + 200
    while client.llen("events") and time.monotonic() < deadline:
        proc = start_executive(server, config_file)
        try:
            counted = client.hget(keys.event_counters(), "all")
            while client.hget(keys.event_counters(), "all") == counted and proc.poll() is None:
                time.sleep(0.005)
            time.sleep(rng.uniform(0, 0.3))
        finally:  # also when the test times out: a live executive would take later tests' events
            proc.send_signal(signal.SIGKILL)
            proc.wait()
        kills += 1
    return kills


@pytest.mark.timeout(300)
def test_sigkill_at_random_points_loses_and_repeats_nothing(redis_server: EmbeddedRedis, real_r: redis.Redis,
                                                            tmp_path: Path) -> None:
    stream = make_stream(EVENTS)
    for i in range(0, EVENTS, 5000):
        real_r.lpush("events", *(json.dumps(e) for e in stream[i:i + 5000]))
    config_file = tmp_path / "flapjack.yml"
    config_file.write_text(json.dumps(CONFIG))  # JSON is YAML
    kills = kill_repeatedly(redis_server, real_r, config_file, random.Random(42))
    print(f"{kills} executives killed")
    assert kills >= 3, "the stream was processed before enough executives were killed"
    # whatever the last killed executive held in flight is taken back by the next one
    Executive(real_r, CONFIG).drain()

    assert real_r.llen("events") == 0 and in_flight(real_r) == 0
    counters = {k.decode(): int(v) for k, v in real_r.hgetall(keys.event_counters()).items()}
    states = Counter(e["state"] for e in stream)
    assert counters["all"] == EVENTS
    assert counters["ok"] == states["ok"]
    assert counters["failure"] == states["critical"] + states["warning"]
    last_state, state_changes = expected(stream)
    for cid, changes in state_changes.items():
        entity, check = keys.split_check_id(cid)
        assert real_r.llen(keys.check_states(entity, check)) == changes, cid
    for cid, state in last_state.items():
        entity, check = keys.split_check_id(cid)
        assert real_r.hget(keys.check(entity, check), "state").decode() == state, cid


def test_events_taken_back_from_a_stalled_executive_are_applied_once(real_r: redis.Redis,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """A stalls after taking a batch; its heartbeat lapses; B takes the batch back. A must not apply it."""
    stream = make_stream(300)
    real_r.lpush("events", *(json.dumps(e) for e in stream))
    stalled = Executive(real_r, CONFIG)
    other = Executive(real_r, CONFIG)
    other.queue = other.queue.__class__(other.client, other.raw, "events", "other-host", 4242)
    guard_and_load = stalled._guard_and_load

    def stall_then_load(batch: object, events: list) -> None:
        real_r.delete(stalled.queue.heartbeat_key)  # the heartbeat lapsed during a long pause
        assert other.queue.recover_orphans() == len(events)
        guard_and_load(batch, events)

    monkeypatch.setattr(stalled, "_guard_and_load", stall_then_load)
    stalled._boot()
    stalled._process_batch(stalled.queue.take(100))
    assert int(real_r.hget(keys.event_counters(), "all") or 0) == 0  # nothing of the batch applied by A
    assert not real_r.exists(keys.event_claims())  # A's claims were dropped with its events
    monkeypatch.undo()
    other.drain()
    stalled.drain()
    assert int(real_r.hget(keys.event_counters(), "all")) == 300
    assert in_flight(real_r) == 0


def test_an_event_redis_refuses_is_rejected_and_the_rest_of_its_batch_applied(
        real_r: redis.Redis, monkeypatch: pytest.MonkeyPatch) -> None:
    import flapjack_py.executive.loop as executive_module

    original = executive_module.check_store.write_update

    def refused_for_poison(pipe, event, now, ifd, rfd):  # type: ignore[no-untyped-def]
        original(pipe, event, now, ifd, rfd)
        if event.check == "poison":
            pipe.set("unstorable", object())  # the client refuses to pack it at EXEC time

    monkeypatch.setattr(executive_module.check_store, "write_update", refused_for_poison)
    for check in ("a", "poison", "b"):
        real_r.lpush("events", json.dumps({"type": "service", "state": "ok", "entity": "e", "check": check}))
    assert Executive(real_r, CONFIG).drain() == 3
    assert real_r.hget(keys.check("e", "a"), "state") == b"ok"
    assert real_r.hget(keys.check("e", "b"), "state") == b"ok"
    assert not real_r.exists(keys.check("e", "poison"))
    rejected = [raw for key in real_r.scan_iter(match="events_rejected:*") for raw in real_r.lrange(key, 0, -1)]
    assert [json.loads(raw)["check"] for raw in rejected] == ["poison"]
    assert in_flight(real_r) == 0


def test_lone_surrogates_in_an_event_are_stored_as_question_marks(real_r: redis.Redis) -> None:
    real_r.lpush("events", '{"type":"service","state":"ok","entity":"e","check":"c","summary":"bad \\ud800 text"}')
    assert Executive(real_r, CONFIG).drain() == 1
    assert real_r.hget(keys.check("e", "c"), "summary") == b"bad ? text"


def test_a_command_redis_refuses_inside_exec_does_not_lose_or_repeat_the_batch(
        real_r: redis.Redis, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    """Redis applies the rest of a MULTI when one command fails at EXEC time (e.g. an expiry it refuses)."""
    import flapjack_py.executive.loop as executive_module

    original = executive_module.check_store.write_update

    def with_refused_expiry(pipe, event, now, ifd, rfd):  # type: ignore[no-untyped-def]
        original(pipe, event, now, ifd, rfd)
        if event.check == "odd":
            pipe.setex("odd-expiry", 10**30, "x")  # valid to send, refused by Redis inside EXEC

    monkeypatch.setattr(executive_module.check_store, "write_update", with_refused_expiry)
    for check in ("a", "odd", "b"):
        real_r.lpush("events", json.dumps({"type": "service", "state": "ok", "entity": "e", "check": check}))
    assert Executive(real_r, CONFIG).drain() == 3
    assert int(real_r.hget(keys.event_counters(), "all")) == 3  # applied exactly once
    assert [real_r.hget(keys.check("e", c), "state") for c in ("a", "odd", "b")] == [b"ok"] * 3
    assert in_flight(real_r) == 0 and real_r.llen("events") == 0
    assert "command #" in caplog.text and "failed" in caplog.text


# --- a storm: batches with alerts and rq jobs -------------------------------------------------------

STORM_CHECKS = 30
STORM_CONFIG = {"executive": {"new_check_scheduled_maintenance_duration": 0, "batch_size": 100},
                "incidents": {"group_by": "none"},  # alerts per check: no incidents (issue 33)
                "gateways": {"email": {"enabled": True}, "sms": {"enabled": True, "username": "u", "password": "p"}}}


def storm_stream(n: int, seed: int = 11) -> list[dict[str, object]]:
    """Checks failing and recovering together, so most batches carry many alerts."""
    rng = random.Random(seed)
    return [{"type": "service", "entity": f"host{c % 5}", "check": f"check{c}", "summary": f"event {i}",
             "state": rng.choice(["ok", "critical", "warning"]), "initial_failure_delay": 0,
             "repeat_failure_delay": 0} for i, c in enumerate(rng.randrange(STORM_CHECKS) for _ in range(n))]


def add_storm_contacts(client: redis.Redis) -> None:
    for cid in ("ada", "bob"):
        contact_store.create_contact(client, {"id": cid, "first_name": cid, "media": {"email": f"{cid}@x",
                                                                                      "sms": f"+{len(cid)}"}})
        client.sadd(keys.contacts_for(keys.ALL_ENTITIES_ID), cid)


def alert_outcome(client: redis.Redis) -> tuple[Counter[tuple[str, ...]], Counter[str]]:
    """(alert records as (check, contact, medium, type, state), rq job ids queued per alert id)."""
    records: Counter[tuple[str, ...]] = Counter()
    queued: Counter[str] = Counter()
    for record in alert_records(client):
        records[(record["check"], record["contact"], record["media"], record["type"], record["state"])] += 1
    for medium in ("email", "sms"):
        queued.update(i.decode() for i in client.lrange(f"rq:queue:{medium}", 0, -1))
    return records, queued


def alert_records(client: redis.Redis) -> list[dict[str, str]]:
    """Every alert record, with the event counter its rq job's payload carries (None: no job)."""
    records = [{k.decode(): v.decode() for k, v in client.hgetall(keys.alert(i.decode())).items()}
               for i in client.zrange(keys.alerts(), 0, -1)]
    jobs = Job.fetch_many([r["id"] for r in records], connection=client, serializer=JSONSerializer)
    for record, job in zip(records, jobs, strict=True):
        record["event_count"] = job.args[0]["event_count"] if job is not None else None
    return records


@pytest.mark.timeout(300)
def test_sigkill_during_a_storm_loses_no_event_and_repeats_no_alert(redis_server: EmbeddedRedis,
                                                                    real_r: redis.Redis, tmp_path: Path, real_s: StrRedis) -> None:
    """Which notifications a stream makes depends on how its events fall into seconds, so this checks what
    must hold whatever the timing: each notification alerts every contact medium once or (held back by the
    interval) not at all, recoveries always, and every queued alert record has exactly one rq job."""
    stream = storm_stream(3000)
    add_storm_contacts(real_s)
    real_r.lpush("events", *(json.dumps(e) for e in stream))
    config_file = tmp_path / "flapjack.yml"
    config_file.write_text(json.dumps(STORM_CONFIG))
    kills = kill_repeatedly(redis_server, real_r, config_file, random.Random(5))
    assert kills >= 3, "the storm was processed before enough executives were killed"
    Executive(real_r, STORM_CONFIG).drain()

    assert real_r.llen("events") == 0 and in_flight(real_r) == 0
    assert int(real_r.hget(keys.event_counters(), "all")) == len(stream)  # every event applied once
    records = alert_records(real_r)
    assert len(records) > 500
    per_notification = Counter((r["check"], r["event_count"], r["type"]) for r in records)
    assert set(per_notification.values()) == {4}  # ada and bob, email and sms: all or none, never twice
    pairs = Counter((r["check"], r["event_count"], r["contact"], r["media"]) for r in records)
    assert set(pairs.values()) == {1}
    for cid in {e["entity"] + ":" + e["check"] for e in stream}:  # type: ignore[operator]
        entity, check = keys.split_check_id(cid)
        recoveries = sum(n for (c, _, t), n in per_notification.items() if c == cid and t == "recovery")
        assert recoveries == 4 * real_r.llen(keys.notifications(entity, check, "recovery")), cid
        problems = sum(n for (c, _, t), n in per_notification.items() if c == cid and t == "problem")
        assert problems <= 4 * real_r.llen(keys.notifications(entity, check, "problem")), cid
    _, jobs = alert_outcome(real_r)
    assert set(jobs.values()) == {1} and set(jobs) == {r["id"] for r in records}


def test_a_poison_event_in_a_storm_is_rejected_and_the_rest_alerted(real_r: redis.Redis,
                                                                      monkeypatch: pytest.MonkeyPatch, real_s: StrRedis) -> None:
    import flapjack_py.executive.loop as executive_module

    original = executive_module.check_store.write_notification

    def refused_for_poison(pipe, entity, check, kinds, now):  # type: ignore[no-untyped-def]
        original(pipe, entity, check, kinds, now)
        if check == "poison":
            pipe.set("unstorable", object())  # the client refuses to pack it at EXEC time

    monkeypatch.setattr(executive_module.check_store, "write_notification", refused_for_poison)
    add_storm_contacts(real_s)
    for check in ("a", "poison", "b"):
        real_r.lpush("events", json.dumps({"type": "service", "state": "critical", "entity": "e", "check": check,
                                           "initial_failure_delay": 0}))
    assert Executive(real_r, STORM_CONFIG).drain() == 3
    records, jobs = alert_outcome(real_r)
    assert records == Counter({("e:" + c, cid, m, "problem", "critical"): 1
                               for c in ("a", "b") for cid in ("ada", "bob") for m in ("email", "sms")})
    assert len(jobs) == 8
    assert not real_r.exists(keys.check("e", "poison"))
    rejected = [raw for key in real_r.scan_iter(match="events_rejected:*") for raw in real_r.lrange(key, 0, -1)]
    assert [json.loads(raw)["check"] for raw in rejected] == ["poison"]
    assert in_flight(real_r) == 0
