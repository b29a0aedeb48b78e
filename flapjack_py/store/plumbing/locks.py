"""Short-lived Redis locks (redis-py's `Lock`): one holder at a time across processes and hosts."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import redis
from redis.lock import Lock

from flapjack_py.store.plumbing.client import StrRedis


def try_lock(client: StrRedis, name: str, ttl: float) -> Lock | None:
    """The lock `name` (expiring after `ttl` s) if it was free, else None. Never waits."""
    lock = client.lock(name, timeout=ttl)
    return lock if lock.acquire(blocking=False) else None


def release(lock: Lock) -> None:
    """Give the lock back if it is still ours (a lock held past its ttl has expired: nothing to do)."""
    with contextlib.suppress(redis.exceptions.LockError):
        lock.release()


@contextlib.contextmanager
def held(client: StrRedis, name: str, ttl: float) -> Iterator[bool]:
    """Yield True holding the lock `name`, or False at once when another process holds it."""
    lock = try_lock(client, name, ttl)
    try:
        yield lock is not None
    finally:
        if lock is not None:
            release(lock)
