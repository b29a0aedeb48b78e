"""What the benchmark scripts share: a private Redis, an executive as they run it, queueing events, server CPU.

Imported by name (`from lab import ...`): a benchmark runs as a script, its directory first on sys.path.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

import redis

from flapjack_py import keys
from flapjack_py.executive import Executive
from flapjack_py.runtime.embedded_redis import EmbeddedRedis

CHUNK = 5000
"""Events per LPUSH when queueing."""


@contextmanager
def private_redis() -> Iterator[EmbeddedRedis]:
    """A private redis/valkey server (persistence off) in a temporary directory, stopped and removed after."""
    with tempfile.TemporaryDirectory(prefix="fj-bench-") as tmp, EmbeddedRedis(tmp, persistent=False) as server:
        yield server


def executive(client: redis.Redis, **settings: Any) -> Executive:
    """An in-process executive with `settings`, new-check scheduled maintenance off (it would hold back
    every new check's first alerts)."""
    return Executive(client, {"executive": {"new_check_scheduled_maintenance_duration": 0, **settings}})


def queue_events(client: redis.Redis, events: Iterable[str | dict[str, Any]], chunk: int = CHUNK) -> None:
    """LPUSH `events` (JSON text, or dicts dumped here) on the events queue, `chunk` per command."""
    batch: list[str] = []
    for event in events:
        batch.append(event if isinstance(event, str) else json.dumps(event))
        if len(batch) == chunk:
            client.lpush(keys.events(), *batch)
            batch = []
    if batch:
        client.lpush(keys.events(), *batch)


def server_cpu(client: redis.Redis) -> float:
    """Seconds of CPU the Redis server has used (user + system)."""
    info = client.info("cpu")
    return float(info["used_cpu_user"]) + float(info["used_cpu_sys"])
