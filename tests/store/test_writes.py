"""WriteBuffer: snapshot and restore (the executive redoes a batch's notifications with them)."""

from __future__ import annotations

from flapjack_py.store.plumbing.client import StrRedis
from flapjack_py.store.plumbing.writes import WriteBuffer


def test_restore_forgets_every_write_made_after_the_snapshot() -> None:
    writes = WriteBuffer()
    writes.hset("h", "a", 1)
    writes.rpush("l", 1)
    writes.lpush("x", 1)
    snapshot = writes.snapshot()
    writes.hset("h", "b", 2)
    writes.rpush("l", 2)
    writes.lpush("x", 2)
    writes.zadd("z", {"m": 1})
    writes.hincrby("c", "n", 1)
    writes.jobs.append({"id": "j"})
    writes.restore(snapshot)
    assert writes.hashes == {"h": {"a": 1}} and writes.lists == {"l": [1]}
    assert writes.calls == [("lpush", ("x", 1), {})]
    assert writes.zsets == {} and writes.incrs == {} and writes.jobs == []
    writes.hset("h", "c", 3)
    writes.restore(snapshot)  # a snapshot can be restored again
    assert writes.hashes == {"h": {"a": 1}}


def test_merged_writes_never_change_the_buffers_merged() -> None:
    first, second, merged = WriteBuffer(), WriteBuffer(), WriteBuffer()
    first.hset("h", "a", 1)
    first.zadd("z", {"m": 1})
    first.rpush("l", 1)
    first.hincrby("c", "n", 1)
    second.hset("h", "b", 2)
    second.zrem("z", "m")
    second.rpush("l", 2)
    second.hincrby("c", "n", 2)
    merged.merge(first)
    merged.merge(second)
    assert merged.hashes == {"h": {"a": 1, "b": 2}} and merged.zsets == {"z": {"m": None}}
    assert merged.lists == {"l": [1, 2]} and merged.incrs == {"c": {"n": 3}}
    assert first.hashes == {"h": {"a": 1}} and first.zsets == {"z": {"m": 1}}  # replayed again if the MULTI fails
    assert first.lists == {"l": [1]} and first.incrs == {"c": {"n": 1}}


def test_replayed_writes_set_values_and_ttls(s: StrRedis) -> None:
    writes = WriteBuffer()
    writes.set("plain", "1")
    writes.set("timed", "d", ex=60)
    writes.hset("h", mapping={"a": "1"})
    writes.zadd("z", {"m": 2})
    with s.pipeline(transaction=True) as pipe:
        writes.replay(pipe)
        pipe.execute()
    assert s.mget("plain", "timed") == ["1", "d"] and s.ttl("plain") == -1 and s.ttl("timed") == 60
    assert s.hgetall("h") == {"a": "1"} and s.zscore("z", "m") == 2


def test_replay_queues_what_the_redis_py_methods_queue() -> None:
    """Recorded calls replayed as raw commands queue exactly what redis-py's own methods would."""
    import redis

    writes = WriteBuffer()
    writes.set("s", "v", ex=60)
    writes.delete("a", "b")
    writes.lpush("l", "x", "y")
    writes.ltrim("l", 0, 9)
    writes.hdel("h", "f")
    writes.sadd("set", "m")
    writes.srem("set", "n")
    writes.lrem("l", 0, "x")
    writes.setex("t", 30, "v")
    writes.zremrangebyscore("z", 0, 10)
    replayed = redis.Redis().pipeline(transaction=True)
    replayed.multi()
    writes.replay(replayed)
    expected = redis.Redis().pipeline(transaction=True)
    expected.multi()
    for name, args, kwargs in writes.calls:
        getattr(expected, name)(*args, **kwargs)
    assert replayed.command_stack == expected.command_stack
    assert replayed.command_stack[0] == (("SET", "s", "v", "EX", 60), {})
