"""The executive's commit guard: WATCH its in-flight list and check its events are still on it, in one round trip.

redis-py's `pipe.watch(key)` then `pipe.llen(key)` are two round trips per batch; on a
small batch (an executive keeping up with a stream) every round trip is a visible part
of the push -> alert latency (issue 11). Here both commands go out in one write on the
pipeline's own connection and their replies are read with the pipeline's parser, so the
pipeline is left exactly as after `watch`: holding its connection, `watching` set, ready
for `multi()` (or for a packed MULTI on `pipe.connection`).
"""

from __future__ import annotations

from typing import Any

import redis

from .client import BytesRedis


def watch_list(client: BytesRedis, key: str, least: int) -> Any:
    """A transaction pipeline WATCHing list `key`, or None (nothing left watched) when the list holds
    fewer than `least` items. A lost connection is retried as redis-py retries a WATCH (the server
    drops a WATCH with its connection, so nothing is half done)."""
    pipe = client.pipeline(transaction=True)
    conn = pipe.connection = pipe.connection_pool.get_connection()

    def attempt() -> int:
        conn.send_packed_command(conn.pack_commands([("WATCH", key), ("LLEN", key)]))
        pipe.parse_response(conn, "WATCH")  # sets pipe.watching, as pipe.watch() does
        return int(pipe.parse_response(conn, "LLEN"))

    def failed(_error: Exception) -> None:
        conn.disconnect()
        pipe.watching = False

    try:
        length = conn.retry.call_with_retry(attempt, failed)
    except (redis.ConnectionError, redis.TimeoutError):
        pipe.reset()
        raise
    if length < least:
        pipe.reset()  # UNWATCH, connection back to the pool
        return None
    return pipe
