"""The take script's check claims, hand-off lists and counter reservations, on a real Redis (issue 15, item 1).

Two EventQueues with different executive ids stand for two executives; events
are pushed as feeders do (LPUSH) and taken as the executive does.
"""

from __future__ import annotations

import json

import pytest
import redis

from flapjack_py import keys
from flapjack_py.errors import InvalidEvent
from flapjack_py.model.events import parse_event
from flapjack_py.runtime.connection import clients_for
from flapjack_py.store.events import TAKE_CHUNK, EventQueue

pytestmark = pytest.mark.real


def queue(client: redis.Redis, pid: int) -> EventQueue:
    """An EventQueue as executive `host:pid` composes it: str client for its bookkeeping, bytes for the events."""
    return EventQueue(clients_for(client).text, client, "events", "host", pid)


def ev(check: str, entity: str = "web", state: str = "ok") -> str:
    return json.dumps({"type": "service", "state": state, "entity": entity, "check": check})


def claim_of(client: redis.Redis, raw: str | bytes) -> str:
    client.delete("events", keys.event_claims())
    client.lpush("events", raw)
    q = queue(client, 1)
    taken = q.take(10)
    client.delete(q.in_flight)
    return taken.claims[0]


SAME_CHECK = [
    ('{"type":"service","state":"ok","entity":"Web","check":"c"}',
     '{"type":"service","state":"ok","entity":"web","check":"c"}'),
    ('{ "type" : "service" , "state":"ok", "entity" :  "web" ,"check":"c" }',
     '{"type":"service","state":"ok","entity":"web","check":"c"}'),
    ('{"type":"service","state":"ok","entity":"\\u0057eb","check":"c"}',
     '{"type":"service","state":"ok","entity":"web","check":"c"}'),
    ('{"type":"service","state":"ok","entity":"x","\\u0065ntity":"web","check":"c"}',  # the last key wins
     '{"type":"service","state":"ok","entity":"web","check":"c"}'),
    ('{"type":"service","state":"ok","entity":"x","entity":"web","check":"c"}',
     '{"type":"service","state":"ok","entity":"web","check":"c"}'),
    ('{"type":"service","state":"ok","summary":"entity","check":"check","entity":"web","check":"c"}',  # names as values, then repeated
     '{"type":"service","state":"ok","entity":"web","check":"c"}'),
    ('{"type":"service","state":"ok","summary":"entity","entity":"web","details":"check","check":"c"}',  # names as values first
     '{"type":"service","state":"ok","entity":"web","check":"c"}'),
    ('{"type":"service","state":"ok","entity":"\u212a","check":"c"}',  # KELVIN SIGN lower-cases to k
     '{"type":"service","state":"ok","entity":"k","check":"c"}'),
    ('{"type":"service","state":"ok","entity":"\u0130","check":"c"}',
     '{"type":"service","state":"ok","entity":"i\u0307","check":"c"}'),
    ('{"type":"service","state":"ok","entity":"a","check":"\\ud800"}',
     '{"type":"service","state":"ok","entity":"a","check":"?"}'),
    ('{"type":"service","state":"ok","entity":"a","check":"\\ud83d\\ude00 \\\\ud800"}',
     '{"type":"service","state":"ok","entity":"a","check":"\U0001F600 \\\\ud800"}'),
    ('{"type":"service","state":"ok","entity":"web","check":"say \\"hi\\""}',
     '{"type":"service","state":"ok","entity":"web","check":"say \\u0022hi\\u0022"}'),
]


@pytest.mark.parametrize(("one", "other"), SAME_CHECK)
def test_events_of_one_check_share_a_claim_key(real_r: redis.Redis, one: str | bytes, other: str) -> None:
    first, second = parse_event(one), parse_event(other)
    assert first is not None and second is not None and first.id == second.id  # the executive's view
    assert claim_of(real_r, one) == claim_of(real_r, other) != ""


def test_an_entity_with_a_colon_claims_the_check_it_would_hit_and_is_then_rejected(real_r: redis.Redis) -> None:
    """Claims are made before parsing: `a:b` + `c` waits behind `a` + `b:c` (the same id a:b:c), harmlessly, as
    parsing rejects it (issue 35: no ':' in entity names)."""
    one = '{"type":"service","state":"ok","entity":"a:b","check":"c"}'
    other = '{"type":"service","state":"ok","entity":"a","check":"b:c"}'
    assert claim_of(real_r, one) == claim_of(real_r, other) != ""
    with pytest.raises(InvalidEvent, match="entity name must not contain a colon"):
        parse_event(one)


def test_events_of_different_checks_get_different_claim_keys(real_r: redis.Redis) -> None:
    assert claim_of(real_r, ev("c1")) != claim_of(real_r, ev("c2"))
    assert claim_of(real_r, ev("c", "web-1")) != claim_of(real_r, ev("c", "web-2"))


@pytest.mark.parametrize("raw", ["not json", "[1, 2]", '{"type": "noop"}', '{"entity": 5, "check": "c"}'])
def test_an_event_without_string_entity_and_check_claims_nothing(real_r: redis.Redis, raw: str) -> None:
    assert claim_of(real_r, raw) == ""
    assert not real_r.exists(keys.event_claims())


def test_a_held_check_is_handed_to_its_holder_and_taken_before_the_queue(real_r: redis.Redis) -> None:
    a, b = queue(real_r, 1), queue(real_r, 2)
    real_r.lpush("events", ev("x", state="critical"))
    assert len(a.take(10)) == 1  # a holds web:x
    real_r.lpush("events", ev("x", state="ok"), ev("y"), ev("x", state="warning"))
    b.peers.add(a.id)
    taken_b = b.take(10)
    assert [json.loads(r)["check"] for r in taken_b.raws] == ["y"]
    assert real_r.llen(keys.events_handoff(a.id)) == 2
    real_r.lpush("events", ev("x", state="unknown"))
    taken_a = a.take(10)  # hand-off first, in queue order, then the queue
    assert [json.loads(r)["state"] for r in taken_a.raws] == ["ok", "warning", "unknown"]


def test_an_executive_takes_nothing_past_an_unknown_holder_until_it_knows_it(real_r: redis.Redis) -> None:
    a, b = queue(real_r, 1), queue(real_r, 2)
    real_r.lpush("events", ev("x"))
    a.take(10)
    real_r.lpush("events", ev("x"), ev("y"))
    taken = b._take_once(10)
    assert not taken and taken.unknown_owner == a.id and real_r.llen("events") == 2
    taken = b.take(10)  # learns the holder and retries
    assert [json.loads(r)["check"] for r in taken.raws] == ["y"]
    assert real_r.llen(keys.events_handoff(a.id)) == 1


def test_events_popped_after_an_unknown_holders_event_go_back_in_queue_order(real_r: redis.Redis) -> None:
    a, b = queue(real_r, 1), queue(real_r, 2)
    real_r.lpush("events", ev("x"))
    a.take(10)
    real_r.lpush("events", ev("y", state="critical"), ev("x"), ev("y"), ev("z"))  # one RPOP takes them all
    taken = b._take_once(10)
    assert [json.loads(r)["check"] for r in taken.raws] == ["y"] and taken.unknown_owner == a.id
    assert [json.loads(r)["check"] for r in reversed(real_r.lrange("events", 0, -1))] == ["x", "y", "z"]
    taken = b.take(10)
    assert [(json.loads(r)["check"], json.loads(r)["state"]) for r in taken.raws] == [("y", "ok"), ("z", "ok")]
    assert [json.loads(r)["check"] for r in real_r.lrange(keys.events_handoff(a.id), 0, -1)] == ["x"]


def test_a_commit_releases_its_claims_unless_more_events_of_the_check_wait(real_r: redis.Redis) -> None:
    a, b = queue(real_r, 1), queue(real_r, 2)
    b.peers.add(a.id)
    real_r.lpush("events", ev("x"), ev("y"))
    taken = a.take(10)
    real_r.lpush("events", ev("y"))
    assert not b.take(10)  # handed to a
    with real_r.pipeline() as pipe:
        a.commit(pipe, taken.claims)
        pipe.execute()
    a.committed()
    owners = {k.decode(): v.decode() for k, v in real_r.hgetall(keys.event_claims()).items()}
    assert owners == {"web:y": a.id}  # y stays a's while its handed-over event waits
    assert real_r.llen(a.in_flight) == 0


def test_counters_are_reserved_at_take_unique_and_given_back_on_requeue(real_r: redis.Redis) -> None:
    a, b = queue(real_r, 1), queue(real_r, 2)
    real_r.lpush("events", *(ev(f"c{i}") for i in range(5)))
    assert a.take(3).counter == 0
    assert b.take(2).counter == 3
    assert int(real_r.hget(keys.event_counters(), "all")) == 5
    assert b.requeue_own() == 2  # b's two events go back; their counters are given back
    assert int(real_r.hget(keys.event_counters(), "all")) == 3
    assert a.take(5).counter == 5  # never a counter given out before
    assert int(real_r.hget(keys.event_counters(), "all")) == 5


def test_a_take_moves_at_most_its_batch_size_to_other_executives(real_r: redis.Redis) -> None:
    a, b = queue(real_r, 1), queue(real_r, 2)
    b.peers.add(a.id)
    real_r.lpush("events", ev("x"))
    a.take(10)
    real_r.lpush("events", *(ev("x") for _ in range(25)))
    taken = b.take(10)
    assert not taken and taken.handed == 10 and taken.more  # the rest stays queued for whoever comes next
    assert real_r.llen(keys.events_handoff(a.id)) == 10 and real_r.llen("events") == 15


def test_a_large_take_runs_in_bounded_calls_and_keeps_queue_order_and_counters(real_r: redis.Redis) -> None:
    a = queue(real_r, 1)
    n = 2 * TAKE_CHUNK + 7
    assert not a.take(1)  # the script loaded
    real_r.lpush("events", *(ev(f"c{i}") for i in range(n)))
    slowlog = real_r.config_get("slowlog-*")
    real_r.config_set("slowlog-log-slower-than", 0)  # every command is logged (inside scripts too)
    real_r.config_set("slowlog-max-len", 10_000)
    real_r.slowlog_reset()
    taken = a.take(n + 5)
    calls = [entry["command"].split() for entry in real_r.slowlog_get(10_000)
             if entry["command"].startswith(b"EVALSHA")]
    sizes = [int(args[3 + int(args[2]) + 1]) for args in calls]  # EVALSHA sha numkeys KEYS... id size
    for name, value in slowlog.items():
        real_r.config_set(name, value)
    assert sorted(sizes) == [7 + 5, TAKE_CHUNK, TAKE_CHUNK]
    assert [json.loads(r)["check"] for r in taken.raws] == [f"c{i}" for i in range(n)]
    assert taken.counters == list(range(1, n + 1)) and taken.counter == 0
    assert real_r.llen(a.in_flight) == n and real_r.llen("events") == 0


def test_a_take_loads_its_script_when_the_server_lost_it(real_r: redis.Redis) -> None:
    a = queue(real_r, 1)
    real_r.lpush("events", ev("x"), ev("y"))
    real_r.script_flush()
    assert [json.loads(r)["check"] for r in a.take(10).raws] == ["x", "y"]


def test_recovery_finds_in_flight_lists_through_the_takers_set_without_scanning(real_r: redis.Redis) -> None:
    gone = queue(real_r, 999_999)  # no such process on this host: its lists are orphaned
    real_r.lpush("events", ev("x"), ev("y"))
    assert len(gone.take(10)) == 2
    assert real_r.smembers(keys.executives_taking()) == {gone.id.encode()}
    old = keys.events_in_flight("older.example.com", 7)  # left by an executive from before the set existed
    real_r.rpush(old, ev("z"))
    me = queue(real_r, 1)
    assert me.recover_orphans() == 3  # the first recovery scans the keyspace once, for lists like `old`
    assert sorted(real_r.lrange("events", 0, -1)) == sorted(e.encode() for e in (ev("x"), ev("y"), ev("z")))
    assert not real_r.exists(keys.event_claims()) and real_r.smembers(keys.executives_taking()) == set()

    real_r.lpush("events", ev("w"))
    assert len(gone.take(10)) == 4
    real_r.config_set("slowlog-log-slower-than", 0)
    real_r.slowlog_reset()
    try:
        assert me.recover_orphans() == 4
        commands = {entry["command"].split()[0].upper() for entry in real_r.slowlog_get(1000)}
    finally:
        real_r.config_set("slowlog-log-slower-than", 10_000)
    assert b"SCAN" not in commands
    assert real_r.llen("events") == 4 and real_r.llen(gone.in_flight) == 0
