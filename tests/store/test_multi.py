"""The batch's MULTI run on its guard's connection with replies read off the parser (store/multi.py), against a
real server: the same outcomes as redis-py's transaction pipeline (`execute(raise_on_error=False)`)."""

from __future__ import annotations

from typing import Any

import pytest
import redis
from hiredis import pack_command

from flapjack_py.store.plumbing import multi
from flapjack_py.store.plumbing.client import StrRedis

pytestmark = pytest.mark.real


def watched(client: StrRedis, *keys: str) -> Any:
    """A pipeline WATCHing `keys`, in MULTI mode (as the executive's guard leaves it before a commit)."""
    pipe = client.pipeline(transaction=True)
    pipe.watch(*keys)
    pipe.multi()
    return pipe


def test_results_are_the_commands_replies_in_order(real_s: StrRedis) -> None:
    real_s.set("str", "x")
    pipe = watched(real_s, "guard")
    pipe.hset("h", mapping={"a": "1", "b": "2"})
    pipe.expire("h", 100)
    pipe.zadd("z", {"m": 1, "n": 2})
    pipe.rpush("l", "a", "b", "c")
    pipe.hincrby("str", "f", 1)  # WRONGTYPE: fails inside EXEC, alone
    pipe.get("str")
    results = multi.execute(pipe)
    pipe.reset()
    assert results[:4] == [2, 1, 2, 3] and results[5] == "x"
    assert isinstance(results[4], redis.ResponseError) and "WRONGTYPE" in str(results[4])
    assert real_s.hgetall("h") == {"a": "1", "b": "2"} and real_s.lrange("l", 0, -1) == ["a", "b", "c"]
    assert not pipe.watching and real_s.ping()


def test_a_changed_watched_key_applies_nothing(real_s: StrRedis) -> None:
    pipe = watched(real_s, "guard")
    pipe.set("written", "1")
    real_s.set("guard", "moved")  # another client
    with pytest.raises(redis.WatchError):
        multi.execute(pipe)
    pipe.reset()
    assert real_s.get("written") is None
    assert multi.execute(watched(real_s, "guard")) == []  # the connection is still good


def test_a_command_refused_while_queueing_aborts_all(real_s: StrRedis) -> None:
    pipe = watched(real_s, "guard")
    pipe.set("written", "1")
    pipe.execute_command("HSET", "h", "lonely-field")  # wrong number of arguments: refused at once
    with pytest.raises(redis.ResponseError, match=r"Command # 2 .*wrong number of arguments"):
        multi.execute(pipe)
    pipe.reset()
    assert real_s.get("written") is None


def test_a_lost_connection_is_a_watch_error_and_disconnects(real_s: StrRedis) -> None:
    pipe = watched(real_s, "guard")
    pipe.set("written", "1")
    watching = next(c for c in real_s.client_list() if c["cmd"] == "watch")
    real_s.client_kill_filter(_id=watching["id"])  # another client's connection kills the pipeline's
    with pytest.raises(redis.WatchError):
        multi.execute(pipe)
    assert pipe.connection._sock is None  # disconnected, as redis-py leaves it
    pipe.reset()
    assert real_s.get("written") is None and real_s.ping()


def test_a_commit_larger_than_the_socket_buffers(real_s: StrRedis) -> None:
    pipe = watched(real_s, "guard")
    for n in range(30_000):
        pipe.hset(f"big:{n}", mapping={"n": str(n), "pad": "x" * 100})
    results = multi.execute(pipe)
    pipe.reset()
    assert results == [2] * 30_000 and real_s.hget("big:29999", "n") == "29999"


def test_without_a_connection_of_its_own_redis_py_runs_it(real_s: StrRedis) -> None:
    pipe = real_s.pipeline(transaction=True)
    pipe.set("k", "v")
    pipe.expire("k", 10)
    assert multi.execute(pipe) == [True, True]  # redis-py's callbacks: it ran the transaction
    assert real_s.get("k") == "v"


def test_packed_as_redis_py_packs_commands(real_s: StrRedis) -> None:
    """Two-word command names are split (redis-py's packer does it); a value Redis cannot take is refused
    before anything is sent."""
    real_s.hset("h", "a", "1")
    pipe = watched(real_s, "guard")
    pipe.execute_command("OBJECT ENCODING", "h")
    pipe.set("n", 1.5)
    assert multi.execute(pipe) == ["listpack", "OK"]
    pipe.reset()
    pipe = watched(real_s, "guard")
    pipe.execute_command("SET", "k", None)
    with pytest.raises(redis.DataError):
        multi.execute(pipe)
    pipe.reset()
    assert real_s.get("k") is None and real_s.get("n") == "1.5"


def test_a_packed_command_is_sent_as_its_caller_packed_it(real_s: StrRedis) -> None:
    """queue_packed: `execute` sends the caller's packing; redis-py, running a pipeline itself, the arguments."""
    pipe = watched(real_s, "guard")
    multi.queue_packed(pipe, ("SET", "k", "from-args"), pack_command(("SET", "k", "from-packed")))
    assert multi.execute(pipe) == ["OK"]
    pipe.reset()
    assert real_s.get("k") == "from-packed"
    pipe = real_s.pipeline(transaction=True)  # no connection of its own: redis-py runs it
    multi.queue_packed(pipe, ("SET", "k", "from-args"), pack_command(("SET", "k", "from-packed")))
    assert multi.execute(pipe) == [True] and real_s.get("k") == "from-args"
