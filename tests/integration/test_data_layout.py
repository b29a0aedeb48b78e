"""After a scripted stream of events, every key seed 004 documents for it exists with the right type and content.

Key names, types and fields: seed 004_c6cd2ed0b27a8dd4 plus engine.md section 11 note 3
(checks_by_hash, check_hashes_by_id, test notification keys, extra check hash fields).
"""

from __future__ import annotations

import json
import os
import socket
import uuid
from collections.abc import Callable
from typing import Any

import fakeredis
import pytest
import redis

from flapjack_py.executive import Executive
from flapjack_py.store import maintenance
from flapjack_py.store.plumbing.client import StrRedis

pytestmark = [pytest.mark.real, pytest.mark.usefixtures("notifications", "clock")]

T0 = 1_700_000_000
E = "web-01.example.com"
C = "Disk / Util"  # spaces in a check name
EC = f"{E}:{C}"
E2, C2 = "db-01", "MySQL: replication"  # ':' in a check name
E2C2 = f"{E2}:{C2}"


def b(value: object) -> bytes:
    return str(value).encode()


def zset(client: redis.Redis, key: str) -> dict[bytes, int]:
    return {m: int(s) for m, s in client.zrange(key, 0, -1, withscores=True)}


@pytest.fixture
def scripted(real_r: redis.Redis, clock: Any, make_executive: Callable[..., Executive],
             push: Callable[..., None], real_s: StrRedis) -> redis.Redis:
    """Run the script below; return the client to inspect."""
    ex = make_executive(new_check_scheduled_maintenance_duration=0)

    def send(t: int, **over: Any) -> None:
        clock.advance(t - clock.now)
        push(**over)
        assert ex.drain() == 1

    send(T0, entity=E, check=C, state="ok", summary="fine", perfdata="time=0.48s;;;0 size=909B;;;0",
         tags=["web"])
    send(T0 + 10, entity=E, check=C, state="critical", summary="disk full", details="/var at 100%",
         initial_failure_delay=20, repeat_failure_delay=120)
    send(T0 + 30, entity=E, check=C, state="critical", summary="disk full", details="/var at 100%",
         initial_failure_delay=20, repeat_failure_delay=120)  # problem
    send(T0 + 40, entity=E, check=C, type="action", state="acknowledgement", summary="on it", duration=600)
    send(T0 + 50, entity=E, check=C, state="ok", summary="cleaned")  # recovery, ends the ack's maintenance
    send(T0 + 60, entity=E, check=C, type="action", state="test_notifications")
    maintenance.create_scheduled(real_s, E, C, T0 + 100, 3600, "patching", clock.now)
    send(T0 + 110, entity=E, check=C, state="ok", summary="fine")  # activates the window
    send(T0 + 120, entity=E2, check=C2, state="warning", summary="lagging")
    return real_r


def test_check_state_hash(scripted: redis.Redis) -> None:
    assert scripted.type(f"check:{EC}") == b"hash"
    assert scripted.hgetall(f"check:{EC}") == {
        b"state": b"ok", b"last_change": b(T0 + 50), b"last_update": b(T0 + 110), b"summary": b"fine",
        b"details": b"", b"initial_failure_delay": b"30", b"repeat_failure_delay": b"60",
        b"perfdata": json.dumps([{"key": "time", "value": "0.48s"}, {"key": "size", "value": "909B"}]).encode(),
        b"interval": b"24",  # flapjack-py addition: the learned interval between its results (staleness.py)
        b"ack_closed": b(T0 + 50),  # flapjack-py addition: its last recovery closes ack codes (store/ack_codes.py)
    }
    assert scripted.hgetall(f"check:{E2C2}") == {
        b"state": b"warning", b"last_change": b(T0 + 120), b"last_update": b(T0 + 120), b"summary": b"lagging",
        b"details": b"", b"initial_failure_delay": b"30", b"repeat_failure_delay": b"60"}


def test_state_history(scripted: redis.Redis) -> None:
    changes = [T0, T0 + 10, T0 + 50]
    assert scripted.type(f"{EC}:states") == b"list"
    assert scripted.lrange(f"{EC}:states", 0, -1) == [b(t) for t in changes]
    assert scripted.type(f"{EC}:sorted_state_timestamps") == b"zset"
    assert zset(scripted, f"{EC}:sorted_state_timestamps") == {b(t): t for t in changes}
    expected = {
        T0: {"state": "ok", "summary": "fine", "count": "1"},
        T0 + 10: {"state": "critical", "summary": "disk full", "details": "/var at 100%", "count": "2"},
        T0 + 50: {"state": "ok", "summary": "cleaned", "count": "5"},
    }
    for ts, fields in expected.items():
        for name in ("state", "summary", "details", "count"):
            key = f"{EC}:{ts}:{name}"
            if name in fields:
                assert scripted.type(key) == b"string", key
                assert scripted.get(key) == fields[name].encode(), key
            else:
                assert scripted.exists(key) == 0, key
    assert list(scripted.scan_iter(f"{EC}:*:check_latency")) == []


def test_failed_current_and_all_checks(scripted: redis.Redis) -> None:
    assert scripted.type("failed_checks") == b"zset"
    assert zset(scripted, "failed_checks") == {E2C2.encode(): T0 + 120}
    assert zset(scripted, f"current_checks:{E}") == {C.encode(): T0 + 110}
    assert zset(scripted, f"current_checks:{E2}") == {C2.encode(): T0 + 120}
    assert zset(scripted, "current_entities") == {E.encode(): T0 + 110, E2.encode(): T0 + 120}
    assert zset(scripted, "all_checks") == {EC.encode(): T0 + 110, E2C2.encode(): T0 + 120}
    assert zset(scripted, f"all_checks:{E}") == {C.encode(): T0 + 110}
    assert zset(scripted, f"all_checks:{E2}") == {C2.encode(): T0 + 120}
    for key in ("current_checks:" + E, "current_entities", "all_checks", "all_checks:" + E):
        assert scripted.type(key) == b"zset", key


def test_entity_ids(scripted: redis.Redis) -> None:
    assert scripted.type("all_entity_ids_by_name") == b"hash"
    assert scripted.type("all_entity_names_by_id") == b"hash"
    ids = {k.decode(): v.decode() for k, v in scripted.hgetall("all_entity_ids_by_name").items()}
    assert set(ids) == {E, E2}
    for name, entity_id in ids.items():
        assert str(uuid.UUID(entity_id)) == entity_id
        assert scripted.hget("all_entity_names_by_id", entity_id) == name.encode()
    assert scripted.hlen("all_entity_names_by_id") == 2


def test_ack_hashes(scripted: redis.Redis) -> None:
    # first 8 hex of sha1: `printf %s 'web-01.example.com:Disk / Util' | sha1sum`
    hashes = {EC: "d4896410", E2C2: "371912f9"}
    assert scripted.type("checks_by_hash") == b"hash"
    assert scripted.hgetall("check_hashes_by_id") == {k.encode(): v.encode() for k, v in hashes.items()}
    assert scripted.hgetall("checks_by_hash") == {v.encode(): k.encode() for k, v in hashes.items()}


def test_maintenance_keys(scripted: redis.Redis) -> None:
    assert scripted.type(f"{EC}:scheduled_maintenance") == b"string"
    assert scripted.get(f"{EC}:scheduled_maintenance") == b(T0 + 100)
    assert scripted.ttl(f"{EC}:scheduled_maintenance") == 3600 - 20  # window [T0+100, T0+3700), now T0+120
    assert zset(scripted, f"{EC}:scheduled_maintenances") == {b(T0 + 100): 3600}
    assert scripted.get(f"{EC}:{T0 + 100}:scheduled_maintenance:summary") == b"patching"
    assert zset(scripted, f"{EC}:sorted_scheduled_maintenance_timestamps") == {b(T0 + 100): T0 + 100}

    assert scripted.exists(f"{EC}:unscheduled_maintenance") == 0  # ended by the ok
    assert scripted.type(f"{EC}:unscheduled_maintenances") == b"zset"
    assert zset(scripted, f"{EC}:unscheduled_maintenances") == {b(T0 + 40): 10}
    assert scripted.get(f"{EC}:{T0 + 40}:unscheduled_maintenance:summary") == b"on it"
    assert zset(scripted, f"{EC}:sorted_unscheduled_maintenance_timestamps") == {b(T0 + 40): T0 + 40}


def test_notification_keys(scripted: redis.Redis) -> None:
    expected = {"problem": T0 + 30, "critical": T0 + 30, "acknowledgement": T0 + 40, "recovery": T0 + 50,
                "test": T0 + 60}
    for kind, ts in expected.items():
        assert scripted.type(f"{EC}:last_{kind}_notification") == b"string", kind
        assert scripted.get(f"{EC}:last_{kind}_notification") == b(ts), kind
        assert scripted.type(f"{EC}:{kind}_notifications") == b"list", kind
        assert scripted.lrange(f"{EC}:{kind}_notifications", 0, -1) == [b(ts)], kind
    for kind in ("warning", "unknown"):
        assert scripted.exists(f"{EC}:last_{kind}_notification", f"{EC}:{kind}_notifications") == 0
    assert list(scripted.scan_iter(f"{E2C2}:*notification*")) == []


def test_actions_hash(scripted: redis.Redis) -> None:
    assert scripted.type(f"{EC}:actions") == b"hash"
    assert scripted.hgetall(f"{EC}:actions") == {b(T0 + 40): b"acknowledgement", b(T0 + 60): b"test_notifications"}


def test_counters_and_instance_keys(scripted: redis.Redis) -> None:
    counters = {b"all": b"8", b"ok": b"3", b"failure": b"3", b"action": b"2", b"invalid": b"0"}
    host, pid = socket.getfqdn(), os.getpid()
    assert scripted.type("event_counters") == b"hash"
    assert scripted.hgetall("event_counters") == counters
    assert scripted.hgetall(f"event_counters:{host}:{pid}") == counters
    assert scripted.hgetall(f"executive_instance:{host}:{pid}") == {b"boot_time": b(T0)}
    for key in (f"event_counters:{host}:{pid}", f"executive_instance:{host}:{pid}"):
        assert scripted.type(key) == b"hash"
        assert scripted.ttl(key) == 1_036_800  # refreshed by the last event


def test_queue_is_empty(scripted: redis.Redis) -> None:
    assert scripted.llen("events") == 0
    assert [k for k in scripted.scan_iter("events_processing:*") if scripted.llen(k)] == []
    assert list(scripted.scan_iter("events_rejected:*")) == []


# --- plain and decoding clients --------------------------------------------------------


@pytest.mark.parametrize("decode_responses", [False, True], ids=["bytes", "decode_responses"])
def test_executive_works_with_bytes_and_decoding_clients(decode_responses: bool, clock: Any) -> None:
    server = fakeredis.FakeServer()
    client = fakeredis.FakeRedis(server=server, decode_responses=decode_responses)
    check = fakeredis.FakeRedis(server=server, decode_responses=True)
    ex = Executive(client, {"executive": {"new_check_scheduled_maintenance_duration": 0}})
    event = {"type": "service", "entity": "Web-01", "check": "HTTP"}

    for t, state in ((T0, "ok"), (T0 + 10, "critical"), (T0 + 40, "critical"), (T0 + 50, "ok")):
        clock.advance(t - clock.now)
        client.lpush("events", json.dumps({**event, "state": state}))
        client.lpush("events", "garbage")
        assert ex.drain() == 2

    assert check.hgetall("check:web-01:HTTP")["state"] == "ok"
    assert check.lrange("web-01:HTTP:problem_notifications", 0, -1) == [str(T0 + 40)]
    assert check.lrange("web-01:HTTP:recovery_notifications", 0, -1) == [str(T0 + 50)]
    assert check.hgetall("event_counters") == {"all": "8", "ok": "2", "failure": "2", "action": "0",
                                               "invalid": "4"}
    assert check.lrange("events_rejected:2023111422", 0, -1) == ["garbage"] * 4
