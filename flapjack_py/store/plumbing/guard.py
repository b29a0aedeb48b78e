"""The executive's commit guard: WATCH its in-flight list, check its events are still on it and read what the
batch needs, in one round trip.

redis-py's `pipe.watch(key)` then `pipe.llen(key)` are two round trips, and the batch's
snapshot read a third; on a small batch (an executive keeping up with a stream) every
round trip is a visible part of the push -> alert latency (issue 11). Here WATCH, LLEN
and the read-only Lua calls go out in one write on the pipeline's own connection and
their replies are read with the pipeline's parser, so the pipeline is left exactly as
after `watch`: holding its connection, `watching` set, ready for `multi()` (or for a
packed MULTI on `pipe.connection`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from redis.exceptions import NoScriptError, ResponseError

from flapjack_py.store.plumbing.client import StrRedis, script_sha

Calls = Sequence[tuple[Sequence[Any], Sequence[Any]]]
"""(keys, args) of each call of one Lua script."""


def watch_list(client: StrRedis, key: str, least: int, script: str = "", calls: Calls = (),
               extra: Sequence[Sequence[Any]] = ()) -> tuple[Any, list[Any]]:
    """(a transaction pipeline WATCHing list `key`, the replies of the read-only Lua `script` called once per
    (keys, args) of `calls`, then those of the read commands `extra` (name, arguments ...)), all in one round
    trip; the pipeline is None (nothing left watched) when the list holds fewer than `least` items.

    A lost connection is retried as redis-py retries a WATCH (the server drops a WATCH with its
    connection, so nothing is half done); a script the server does not know is loaded and called again.
    """
    pipe = client.pipeline(transaction=True)
    conn = pipe.connection = pipe.connection_pool.get_connection()
    evals = [("EVALSHA", script_sha(script), len(keys), *keys, *args) for keys, args in calls]

    def attempt() -> tuple[int, list[Any]]:
        conn.send_packed_command(conn.pack_commands([("WATCH", key), ("LLEN", key), *evals, *extra]))
        pipe.parse_response(conn, "WATCH")  # sets pipe.watching, as pipe.watch() does
        length = int(pipe.parse_response(conn, "LLEN"))
        return length, [_reply(pipe, conn, str(command[0])) for command in (*evals, *extra)]

    def failed(_error: Exception) -> None:
        conn.disconnect()
        pipe.watching = False

    try:
        length, replies = conn.retry.call_with_retry(attempt, failed)
        if any(isinstance(reply, NoScriptError) for reply in replies):
            pipe.script_load(script)  # while watching, a pipeline runs commands at once
            replies = [_call(pipe, command) for command in evals] + replies[len(evals):]
        for reply in replies:
            if isinstance(reply, Exception):
                raise reply
    except Exception:
        pipe.reset()
        raise
    if length < least:
        pipe.reset()  # UNWATCH, connection back to the pool
        return None, replies
    return pipe, replies


def _reply(pipe: Any, conn: Any, command: str) -> Any:
    """The next reply on `conn`; a command's error reply as its exception (the replies after it still read)."""
    try:
        return pipe.parse_response(conn, command)
    except ResponseError as exc:
        return exc


def _call(pipe: Any, command: tuple[Any, ...]) -> Any:
    try:
        return pipe.execute_command(*command)
    except ResponseError as exc:
        return exc
