"""Redis side of health: heartbeats, the queue head's age, recent delivery failures, watchdog state and lock.

Heartbeat keys (executive_heartbeat:*, gateway_heartbeat:*) hold a JSON
Heartbeat and expire; the `heartbeats` zset indexes them by the time of their
last beat, so health never SCANs the keyspace and still knows when the last
executive was seen after its key expired.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from redis.lock import Lock
from rq.registry import FailedJobRegistry

from flapjack_py import keys
from flapjack_py.model.delivery import BreakerState
from flapjack_py.model.heartbeat import Heartbeat, parse_heartbeat
from flapjack_py.store.breaker import load_breakers, waiting_alerts
from flapjack_py.store.plumbing.client import StrRedis, to_int

log = logging.getLogger(__name__)

HEARTBEAT_HISTORY = 12 * 86400
"""Seconds a process's last beat is remembered in the `heartbeats` zset (as its instance keys)."""
LOCK_TTL = 60
"""Seconds the watchdog lock lives if its holder dies while sending."""


@dataclass
class HealthInputs:
    """What the health computation reads from Redis."""

    executives: list[Heartbeat] = field(default_factory=list)  # heartbeat keys still alive
    last_executive_beat: int | None = None  # newest beat of any executive, alive or gone
    gateways: dict[str, list[Heartbeat]] = field(default_factory=dict)  # medium -> live workers
    queue_length: int = 0
    queue_age: int = 0  # seconds the event at the head of the queue has been there
    recent_failures: dict[str, int] = field(default_factory=dict)  # medium -> alerts failed in the window
    checks: int = 0
    breakers: dict[str, BreakerState] = field(default_factory=dict)  # medium -> its open circuit breaker
    waiting: dict[str, int] = field(default_factory=dict)  # medium with an open breaker -> jobs waiting


@dataclass
class WatchdogState:
    """What the watchdogs last announced: `ok` or `down`, since when, and why."""

    status: str = "ok"
    since: int = 0
    reasons: list[str] = field(default_factory=list)


# --- heartbeats --------------------------------------------------------------


def save_heartbeat(client: StrRedis, key: str, beat: Heartbeat, ttl: int, pipe: Any = None) -> None:
    """Write `beat` into `key` (expiring after `ttl` s) and index it; into `pipe` when given."""
    target = pipe if pipe is not None else client.pipeline(transaction=False)
    target.setex(key, ttl, beat.to_json())
    target.zadd(keys.heartbeats(), {key: beat.at})
    if pipe is None:
        target.execute()


def save_gateway_heartbeat(client: StrRedis, beat: Heartbeat, ttl: int) -> None:
    """Write a gateway worker's heartbeat (gateway_heartbeat:MEDIUM:HOST:PID)."""
    save_heartbeat(client, keys.gateway_heartbeat(beat.medium, beat.host, beat.pid), beat, ttl)


def remove_gateway_heartbeat(client: StrRedis, beat: Heartbeat) -> None:
    """A clean stop: the heartbeat key goes; its last beat stays in the index."""
    client.delete(keys.gateway_heartbeat(beat.medium, beat.host, beat.pid))


def load_heartbeats(client: StrRedis, now: int) -> list[tuple[str, int, Heartbeat | None]]:
    """(key, last beat, live heartbeat or None when its key expired) of every process seen recently."""
    client.zremrangebyscore(keys.heartbeats(), "-inf", now - HEARTBEAT_HISTORY)
    entries = client.zrange(keys.heartbeats(), 0, -1, withscores=True)
    if not entries:
        return []
    values = client.mget([key for key, _ in entries])
    return [(key, int(score), parse_heartbeat(value)) for (key, score), value in zip(entries, values, strict=True)]


# --- health inputs -----------------------------------------------------------


def load_health_inputs(client: StrRedis, queue: str, media: Iterable[str], now: int,
                       failure_window: int, failure_ttl: int) -> HealthInputs:
    """Read everything health needs; `media` are the enabled gateways. Raises redis.RedisError."""
    found, media = HealthInputs(), list(media)
    executive_prefix = keys.executive_heartbeat("", 0).split(":")[0] + ":"
    for key, last, beat in load_heartbeats(client, now):
        if key.startswith(executive_prefix):
            found.last_executive_beat = max(found.last_executive_beat or 0, last)
            if beat is not None:
                found.executives.append(beat)
        elif beat is not None and beat.role == "gateway":
            found.gateways.setdefault(beat.medium, []).append(beat)
    found.queue_length, found.queue_age = queue_head_age(client, queue, now)
    found.checks = int(client.zcard(keys.all_checks()))
    found.recent_failures = {medium: recent_failures(client, medium, now, failure_window, failure_ttl)
                             for medium in media}
    found.breakers = load_breakers(client, media)
    found.waiting = {medium: waiting_alerts(client, medium) for medium in found.breakers}
    return found


def queue_head_age(client: StrRedis, queue: str, now: int) -> tuple[int, int]:
    """(queue length, seconds the event at its head has waited as seen by health checks).

    The head is the oldest event (feeders LPUSH, executives take from the right).
    Its fingerprint (the event's digest and the processed-events counter) is
    remembered with the time it was first seen; while an executive takes events
    the fingerprint changes and the age starts again.
    """
    p = client.pipeline(transaction=False)
    p.llen(keys.events(queue))
    p.lindex(keys.events(queue), -1)
    p.hget(keys.event_counters(), "all")
    length, head, processed = p.execute()
    if not length or head is None:
        client.delete(keys.queue_head())
        return 0, 0
    fingerprint = f"{hashlib.sha1(str(head).encode()).hexdigest()}:{to_int(processed) or 0}"
    seen = client.hgetall(keys.queue_head())
    if seen.get("fingerprint") != fingerprint:
        client.hset(keys.queue_head(), mapping={"fingerprint": fingerprint, "since": now})
        return int(length), 0
    return int(length), max(now - (to_int(seen.get("since")) or now), 0)


def recent_failures(client: StrRedis, medium: str, now: int, window: int, failure_ttl: int) -> int:
    """Alerts of `medium` that failed for good in the last `window` s (rq scores a failed job now + failure_ttl)."""
    registry_key = FailedJobRegistry(medium, connection=client).key
    return int(client.zcount(registry_key, now + failure_ttl - window, "+inf"))


# --- watchdog ----------------------------------------------------------------


def watchdog_lock(client: StrRedis) -> Lock:
    """The lock a watchdog holds while it decides on and sends a down/back alert (not blocking)."""
    return client.lock(keys.watchdog_lock(), timeout=LOCK_TTL, blocking=False)


def load_watchdog_state(client: StrRedis) -> WatchdogState:
    """What was last announced (`ok` when nothing was)."""
    data = client.hgetall(keys.watchdog_state())
    try:
        reasons = [str(r) for r in json.loads(data.get("reasons") or "[]")]
    except ValueError:
        reasons = []
    return WatchdogState(data.get("status") or "ok", to_int(data.get("since")) or 0, reasons)


def save_watchdog_state(client: StrRedis, state: WatchdogState) -> None:
    """Record what was just announced."""
    client.hset(keys.watchdog_state(), mapping={
        "status": state.status, "since": state.since, "reasons": json.dumps(state.reasons)})


def claim_ping(client: StrRedis, interval: int) -> bool:
    """True for the one watchdog that should request the ping URL in this interval."""
    return bool(client.set(keys.watchdog_ping(), "1", nx=True, ex=max(interval, 1)))
