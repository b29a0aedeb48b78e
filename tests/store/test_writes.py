"""WriteBuffer: snapshot and restore (the executive redoes a batch's notifications with them)."""

from __future__ import annotations

from flapjack_py.store.writes import WriteBuffer


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
