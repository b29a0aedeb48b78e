"""What receivers write: batches of events onto the queue, with their counters, in one MULTI.

Counters live in `receiver_counters:NAME` (read, pushed, rejected, rejected:REASON,
updated_at); the status page and metrics read them back with load_receiver_counters.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import cast

from flapjack_py import keys
from flapjack_py.store.plumbing.client import StrRedis

COUNTER_FIELDS = ("read", "pushed", "rejected")
REJECTED_PREFIX = "rejected:"


def push_batch(client: StrRedis, name: str, events: Sequence[str], counts: Mapping[str, int], now: float,
               queue: str = "events") -> None:
    """LPUSH `events` (JSON texts, oldest first) and add `counts` to NAME's counters, atomically.

    Raises redis.RedisError when Redis cannot be reached; nothing was then written, or (if the
    reply was lost) everything was: the caller retries, so an event may arrive twice but never not.
    """
    with client.pipeline(transaction=True) as pipe:
        if events:
            pipe.lpush(keys.events(queue), *events)
        key = keys.receiver_counters(name)
        for field, amount in counts.items():
            if amount:
                pipe.hincrby(key, field, amount)
        pipe.hset(key, "updated_at", str(int(now)))
        pipe.sadd(keys.receiver_names(), name)
        pipe.execute()


def load_receiver_counters(client: StrRedis) -> dict[str, dict[str, int]]:
    """NAME -> {read, pushed, rejected, rejected:REASON..., updated_at} of every receiver, by name."""
    names = sorted(cast(set[str], client.smembers(keys.receiver_names())))
    p = client.pipeline(transaction=False)
    for name in names:
        p.hgetall(keys.receiver_counters(name))
    found = {}
    for name, raw in zip(names, p.execute(), strict=True):
        counters = dict.fromkeys(COUNTER_FIELDS, 0)
        counters.update({k: int(v) for k, v in raw.items()})
        found[name] = counters
    return found


def rejected_reasons(counters: Mapping[str, int]) -> dict[str, int]:
    """REASON -> count from one receiver's counters."""
    return {k[len(REJECTED_PREFIX):]: v for k, v in counters.items() if k.startswith(REJECTED_PREFIX)}

