"""The executive's per-batch round trips on a real server: the commit guard (WATCH + LLEN in one write) and
read-only Lua called by EVALSHA without SCRIPT EXISTS (store/guard.py, store/client.call_read_script)."""

from __future__ import annotations

import pytest
import redis

from flapjack_py.store import checks as check_store
from flapjack_py.store.plumbing import scripts
from flapjack_py.store.plumbing.client import StrRedis, call_read_script, load_scripts, script_sha
from flapjack_py.store.plumbing.guard import watch_list
from tests.sent import Sent

pytestmark = pytest.mark.real


def test_the_guard_watches_and_reads_in_one_round_trip_and_exec_fails_when_the_list_moves(
        real_s: StrRedis, monkeypatch: pytest.MonkeyPatch) -> None:
    real_s.rpush("in-flight", "a", "b")
    load_scripts(real_s, [scripts.LOAD_SNAPSHOTS])
    ids = [("web", "ok")]
    sent = Sent(monkeypatch)
    pipe, replies = watch_list(real_s, "in-flight", 2, scripts.LOAD_SNAPSHOTS, check_store.snapshot_calls(ids))
    assert pipe is not None and pipe.watching
    assert sent.writes == [["WATCH", "LLEN", "EVALSHA"]]
    assert check_store.snapshots_from(ids, replies)[ids[0]] == check_store.load_snapshots(real_s, ids)[ids[0]]
    real_s.lpop("in-flight")  # another executive takes one back
    pipe.multi()
    pipe.set("applied", 1)
    with pytest.raises(redis.WatchError):
        pipe.execute()
    pipe.reset()
    assert real_s.get("applied") is None


def test_the_guard_commits_when_nothing_moved(real_s: StrRedis) -> None:
    real_s.rpush("in-flight", "a")
    pipe, replies = watch_list(real_s, "in-flight", 1)
    assert pipe is not None and replies == []
    pipe.multi()
    pipe.set("applied", 1)
    assert pipe.execute() == [True]
    pipe.reset()
    assert real_s.get("applied") == "1"


def test_a_shorter_list_gives_no_guard_and_leaves_nothing_watched(real_s: StrRedis) -> None:
    real_s.rpush("in-flight", "a")
    assert watch_list(real_s, "in-flight", 2)[0] is None
    assert real_s.connection_pool._in_use_connections == set()  # the connection went back, unwatched
    pipe = real_s.pipeline(transaction=True)
    real_s.rpush("in-flight", "b")
    pipe.set("applied", 1)
    assert pipe.execute() == [True]  # a later MULTI on the pooled connection is not aborted by a stale WATCH


def test_the_guard_loads_a_script_the_server_forgot_and_stays_watching(real_s: StrRedis) -> None:
    real_s.rpush("in-flight", "a")
    real_s.script_flush()
    source = "return {KEYS[1], ARGV[1]}"
    pipe, replies = watch_list(real_s, "in-flight", 1, source, [(["k1"], ["a1"]), (["k2"], ["a2"])])
    assert replies == [["k1", "a1"], ["k2", "a2"]] and pipe.watching
    real_s.rpush("in-flight", "b")
    pipe.multi()
    pipe.set("applied", 1)
    with pytest.raises(redis.WatchError):
        pipe.execute()
    pipe.reset()


def test_a_failing_script_in_the_guard_raises_and_leaves_nothing_watched(real_s: StrRedis) -> None:
    real_s.rpush("in-flight", "a")
    with pytest.raises(redis.ResponseError, match="boom"):
        watch_list(real_s, "in-flight", 1, "return redis.error_reply('boom')", [([], [])])
    assert real_s.connection_pool._in_use_connections == set()


def test_read_scripts_go_out_as_evalsha_in_one_round_trip(real_s: StrRedis, monkeypatch: pytest.MonkeyPatch) -> None:
    load_scripts(real_s, [scripts.LOAD_SNAPSHOTS])
    sent = Sent(monkeypatch)
    check_store.load_snapshots(real_s, [("web", f"check-{i}") for i in range(150)])  # two chunks
    assert sent.writes == [["EVALSHA", "EVALSHA"]]


def test_a_script_the_server_forgot_is_loaded_and_called_again(real_s: StrRedis) -> None:
    real_s.script_flush()
    source = "return {KEYS[1], ARGV[1]}"
    assert call_read_script(real_s, source, [(["k1"], ["a1"]), (["k2"], ["a2"])]) == [["k1", "a1"], ["k2", "a2"]]
    assert real_s.script_exists(script_sha(source)) == [True]


def test_a_failing_read_script_raises(real_s: StrRedis) -> None:
    with pytest.raises(redis.ResponseError, match="boom"):
        call_read_script(real_s, "return redis.error_reply('boom')", [([], [])])
