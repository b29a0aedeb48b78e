"""The event queue and its bookkeeping: in-flight lists, archive, rejects, counters, instances.

An executive moves events atomically from the queue onto its own in-flight list
(`events_processing:HOST:PID`) and removes them in the same MULTI that commits
their effects, so an event found in flight was never applied. A gone executive
(heartbeat key expired) has its in-flight events put back on the queue.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

import redis

from .. import keys, scripts
from ..processes import pid_alive

log = logging.getLogger(__name__)

COUNTER_FIELDS = ("all", "ok", "failure", "action", "invalid")
INSTANCE_TTL = 1_036_800  # 12 days, as Flapjack keeps executive_instance keys


def push_event(client: redis.Redis, event: Mapping[str, Any], queue: str = "events") -> None:
    """LPUSH one event (a dict, serialised as JSON) for the executive."""
    client.lpush(keys.events(queue), json.dumps(dict(event)))


def push_events(client: redis.Redis, events: Sequence[Mapping[str, Any]], queue: str = "events") -> None:
    """LPUSH several events in one command, in order (the first is processed first)."""
    if events:
        client.lpush(keys.events(queue), *(json.dumps(dict(event)) for event in events))


def utc_hour(now: float) -> str:
    """YYYYMMDDHH of a unix time in UTC."""
    return datetime.fromtimestamp(now, UTC).strftime("%Y%m%d%H")


class EventQueue:
    """One executive's view of the queue: take, commit, reject, recover."""

    def __init__(self, client: redis.Redis, queue: str, host: str, pid: int) -> None:
        self.client = client
        self.queue = keys.events(queue)
        self.host, self.pid = host, pid
        self.in_flight = keys.events_in_flight(host, pid)
        self.heartbeat_key = keys.executive_heartbeat(host, pid)
        self._take = client.register_script(scripts.TAKE_EVENTS)
        self._requeue = client.register_script(scripts.REQUEUE_ORPHANS)

    # --- taking ------------------------------------------------------------

    def take(self, most: int) -> list[bytes]:
        """Move up to `most` events onto the in-flight list without blocking; oldest first."""
        return list(self._take(keys=[self.queue, self.in_flight], args=[most]))

    def take_blocking(self, timeout: float) -> bytes | None:
        """Wait up to `timeout` s for one event and move it onto the in-flight list."""
        return self.client.blmove(self.queue, self.in_flight, timeout, "RIGHT", "LEFT")

    def in_flight_count(self) -> int:
        """Events taken and not yet committed."""
        return int(self.client.llen(self.in_flight))

    # --- committing (into the caller's MULTI) ------------------------------

    def commit(self, pipe: Any, count: int) -> None:
        """Drop the `count` oldest in-flight events: they are applied by the same MULTI."""
        if count:
            pipe.rpop(self.in_flight, count)

    def archive(self, pipe: Any, raw: bytes, now: float, maxage: int) -> None:
        """Keep a copy of a taken event in the hourly archive."""
        key = keys.events_archive(utc_hour(now))
        pipe.lpush(key, raw)
        pipe.sadd(keys.known_events_archive_keys(), key)
        pipe.expire(key, maxage)

    def reject(self, pipe: Any, raw: bytes, now: float) -> None:
        """File an invalid event's raw text on the hourly rejected list and count it."""
        pipe.lpush(keys.events_rejected(utc_hour(now)), raw)
        self.count(pipe, ("all", "invalid"))

    def count(self, pipe: Any, fields: tuple[str, ...]) -> None:
        """Increment counters in the global and the instance hash."""
        for key in (keys.event_counters(), keys.instance_event_counters(self.host, self.pid)):
            for name in fields:
                pipe.hincrby(key, name, 1)

    def touch_instance(self, pipe: Any) -> None:
        """Keep the instance keys for another 12 days."""
        pipe.expire(keys.executive_instance(self.host, self.pid), INSTANCE_TTL)
        pipe.expire(keys.instance_event_counters(self.host, self.pid), INSTANCE_TTL)

    # --- instance life -----------------------------------------------------

    def register(self, boot_time: int, heartbeat_ttl: int) -> None:
        """Boot: counters created if missing, instance keys written, heartbeat started."""
        with self.client.pipeline() as pipe:
            for name in COUNTER_FIELDS:
                pipe.hsetnx(keys.event_counters(), name, 0)
            pipe.hset(keys.executive_instance(self.host, self.pid), "boot_time", boot_time)
            pipe.hset(keys.instance_event_counters(self.host, self.pid), mapping=dict.fromkeys(COUNTER_FIELDS, 0))
            self.touch_instance(pipe)
            pipe.setex(self.heartbeat_key, heartbeat_ttl, boot_time)
            pipe.execute()

    def beat(self, heartbeat_ttl: int) -> None:
        """Tell other executives this one is alive."""
        self.client.setex(self.heartbeat_key, heartbeat_ttl, "1")

    def unregister(self) -> None:
        """Clean stop: give back anything still in flight, drop the heartbeat."""
        moved = self._requeue(keys=[self.in_flight, self.queue, self.heartbeat_key], args=["1"])
        if moved:
            log.info("put %d uncommitted events back on %s", moved, self.queue)

    def requeue_own(self) -> int:
        """Put this executive's uncommitted events back (after a lost connection)."""
        moved = int(self._requeue(keys=[self.in_flight, self.queue, self.heartbeat_key], args=["1"]))
        return moved

    def recover_orphans(self) -> int:
        """Requeue the in-flight events of executives whose heartbeat expired or whose process is gone."""
        moved = 0
        for key in self.client.scan_iter(match=keys.events_in_flight_pattern(), count=500):
            name = key.decode() if isinstance(key, bytes) else key
            host, _, pid_text = name.removeprefix("events_processing:").rpartition(":")
            if not pid_text.isdigit() or (host, int(pid_text)) == (self.host, self.pid):
                continue
            dead = host == self.host and not pid_alive(int(pid_text))
            n = int(self._requeue(keys=[name, self.queue, keys.executive_heartbeat(host, int(pid_text))],
                                  args=["1" if dead else "0"]))
            if n:
                log.warning("requeued %d in-flight events of gone executive %s:%s", n, host, pid_text)
            moved += n
        return moved


def drop_stale_archive_keys(client: redis.Redis) -> None:
    """Forget archive lists that have expired (called when the UTC hour changes)."""
    for key in client.smembers(keys.known_events_archive_keys()):
        if not client.exists(key):
            client.srem(keys.known_events_archive_keys(), key)
