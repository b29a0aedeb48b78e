"""The event queue and its bookkeeping: in-flight lists, claims, hand-off, archive, rejects, counters, instances.

An executive moves events atomically from the queue onto its own in-flight list
(`events_processing:HOST:PID`) and removes them in the same MULTI that commits
their effects, so an event found in flight was never applied. Several
executives share one queue: taking an event claims its check for the taker
until the event is committed, and an event whose check another executive holds
is handed over to that executive (`events_handoff:HOST:PID`), so one check's
events are applied in queue order, one executive at a time (README
"Architecture"). A gone executive (heartbeat key expired, or its process dead)
has its in-flight and hand-off events put back on the queue and its claims dropped.

Taken events are read through the bytes client, as they were queued (an event that
is not UTF-8 is refused, and archived or rejected byte for byte); everything else
through the str client.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from redis.exceptions import NoScriptError

from flapjack_py import keys
from flapjack_py.model.heartbeat import Heartbeat
from flapjack_py.store.health import save_heartbeat
from flapjack_py.store.plumbing import scripts
from flapjack_py.store.plumbing.client import BytesRedis, StrRedis, text, to_int
from flapjack_py.store.plumbing.processes import pid_alive

log = logging.getLogger(__name__)

COUNTER_FIELDS = ("all", "ok", "failure", "action", "invalid")
INSTANCE_TTL = 1_036_800  # 12 days, as Flapjack keeps executive_instance keys
TAKE_CHUNK = 100
"""Events per TAKE_EVENTS call (a take pipelines several): bounds how long one call holds Redis."""


def push_event(client: StrRedis, event: Mapping[str, Any], queue: str = "events") -> None:
    """LPUSH one event (a dict, serialised as JSON) for the executive."""
    client.lpush(keys.events(queue), json.dumps(dict(event)))


def push_events(client: StrRedis, events: Sequence[Mapping[str, Any]], queue: str = "events") -> None:
    """LPUSH several events in one command, in order (the first is processed first)."""
    if events:
        client.lpush(keys.events(queue), *(json.dumps(dict(event)) for event in events))


def queue_length(client: StrRedis, queue: str = "events") -> int:
    """Events waiting on the queue."""
    return int(client.llen(keys.events(queue)))


def events_processed(client: StrRedis) -> int:
    """The global `all` event counter: events the executives have taken."""
    return to_int(client.hget(keys.event_counters(), "all")) or 0


def utc_hour(now: float) -> str:
    """YYYYMMDDHH of a unix time in UTC."""
    return datetime.fromtimestamp(now, UTC).strftime("%Y%m%d%H")


@dataclass
class Taken:
    """Events taken in one call: raw texts, their claim keys ('' = none), each one's event counter."""

    raws: list[bytes] = field(default_factory=list)
    claims: list[str] = field(default_factory=list)
    counters: list[int] = field(default_factory=list)  # reserved when taken; chunks may interleave with others'
    unknown_owner: str | None = None  # an executive holding a queued event's check, not yet known to the taker
    handed: int = 0  # events handed over to the executives holding their checks

    @property
    def counter(self) -> int:
        """The event counter before the first taken event (0 when nothing was taken)."""
        return self.counters[0] - 1 if self.counters else 0

    @property
    def more(self) -> bool:
        """Nothing taken, but the queue may still have events for this executive: take again at once."""
        return not self.raws and (self.unknown_owner is not None or self.handed > 0)

    def add(self, reply: list[Any]) -> None:
        """Append one TAKE_EVENTS reply (a chunk taken after those already added)."""
        raws = reply[3::2]
        self.raws += raws
        self.claims += [text(k) for k in reply[4::2]]
        self.counters += range(int(reply[0]) + 1, int(reply[0]) + 1 + len(raws))
        if reply[1] is not None and self.unknown_owner is None:
            self.unknown_owner = text(reply[1])
        self.handed += int(reply[2])

    def __len__(self) -> int:
        return len(self.raws)

    def __bool__(self) -> bool:
        return bool(self.raws)


class EventQueue:
    """One executive's view of the queue: take, commit, reject, recover."""

    def __init__(self, client: StrRedis, raw: BytesRedis, queue: str, host: str, pid: int) -> None:
        self.client, self.raw = client, raw  # raw: the taken events, byte for byte
        self.queue = keys.events(queue)
        self.host, self.pid = host, pid
        self.id = f"{host}:{pid}"
        self.in_flight = keys.events_in_flight(host, pid)
        self.handoff = keys.events_handoff(self.id)
        self.heartbeat_key = keys.executive_heartbeat(host, pid)
        self.peers: set[str] = set()  # executives that may hold claims (their hand-off lists are passed to take)
        self._holding: Counter[str] = Counter()  # claim key -> this executive's taken, uncommitted events
        self._committing: Counter[str] = Counter()  # what _holding becomes when the pending commit succeeds
        self._take_sha = hashlib.sha1(scripts.TAKE_EVENTS.encode()).hexdigest()  # EVALSHA; loaded on NOSCRIPT
        self._requeue = client.register_script(scripts.REQUEUE_ORPHANS)

    # --- taking ------------------------------------------------------------

    def take(self, most: int) -> Taken:
        """Move up to `most` events (hand-off list first, then the queue) onto the in-flight list; oldest first."""
        taken = self._take_once(most)
        if taken.unknown_owner is not None:
            self.peers.add(taken.unknown_owner)
            if not taken:
                taken = self._take_once(most)
        return taken

    def _take_once(self, most: int) -> Taken:
        """One round trip: TAKE_EVENTS once per TAKE_CHUNK events, pipelined, so no call holds Redis for long.

        Each call is atomic and does what a take of its size alone would; taking a chunk after another is
        what consecutive takes do, so the events stay in queue order per check (and exactly-once).
        """
        peers = sorted(self.peers - {self.id})
        script_keys = [self.queue, self.in_flight, self.handoff, keys.event_claims(), keys.event_counters(),
                       keys.event_counter_sequence(), keys.executives_taking(),
                       *(keys.events_handoff(p) for p in peers)]
        sizes = [min(TAKE_CHUNK, most - first) for first in range(0, most, TAKE_CHUNK)]
        taken = Taken()
        for _attempt in range(2):  # again once the script is loaded, if the server did not know it
            pipe = self.raw.pipeline(transaction=False)
            for size in sizes:
                pipe.evalsha(self._take_sha, len(script_keys), *script_keys, self.id, size, *peers)
            missing = self._add_replies(taken, pipe.execute(raise_on_error=False))
            if not missing or taken:
                break
        self._holding.update(c for c in taken.claims if c)
        return taken

    def _add_replies(self, taken: Taken, replies: list[Any]) -> bool:
        """Add the chunks taken, in order; load the script if a call did not find it (that call took nothing).

        A call that failed otherwise took nothing either: raised when no call took anything, else logged
        (the events the others took are in flight and must be processed).
        """
        failed = [r for r in replies if isinstance(r, Exception) and not isinstance(r, NoScriptError)]
        for reply in replies:
            if not isinstance(reply, Exception):
                taken.add(reply)
        missing = any(isinstance(r, NoScriptError) for r in replies)
        if missing:
            self._take_sha = self.client.script_load(scripts.TAKE_EVENTS)
        if failed and not taken:
            raise failed[0]
        for error in failed:
            log.error("a take call failed after others took events: %s", error)
        return missing

    def wait(self, timeout: float) -> bool:
        """Block up to `timeout` s until the queue has an event, without taking it (BLMOVE onto itself)."""
        return self.client.blmove(self.queue, self.queue, timeout, "RIGHT", "RIGHT") is not None

    def in_flight_count(self) -> int:
        """Events taken and not yet committed."""
        return int(self.client.llen(self.in_flight))

    # --- committing (into the caller's MULTI) ------------------------------

    def commit(self, pipe: Any, claims: list[str]) -> None:
        """Drop the oldest in-flight events (one per claim key given, '' = unclaimed) and release the claims
        no other taken event of this executive needs (nor one on its hand-off list).

        They are applied by the same MULTI, so a check is free for other executives exactly when its
        events' effects are visible. Call `committed` once the MULTI succeeded.
        """
        if not claims:
            return
        pipe.ltrim(self.in_flight, 0, -len(claims) - 1)  # RPOP with a count would send them all back
        left = self._holding - Counter(c for c in claims if c)
        free = sorted(set(self._holding) - set(left))
        if free:
            pipe.eval(scripts.RELEASE_CLAIMS, 2, keys.event_claims(), self.handoff, *free)
        self._committing = left

    def committed(self) -> None:
        """The MULTI of the last `commit` succeeded: forget the claims it released."""
        self._holding = self._committing

    def forget_claims(self) -> None:
        """The in-flight events were taken back (and the claims dropped) by another executive or requeued."""
        self._holding = Counter()

    def archive(self, pipe: Any, raw: bytes, now: float, maxage: int) -> None:
        """Keep a copy of a taken event in the hourly archive."""
        key = keys.events_archive(utc_hour(now))
        pipe.lpush(key, raw)
        pipe.sadd(keys.known_events_archive_keys(), key)
        pipe.expire(key, maxage)

    def reject(self, pipe: Any, raw: bytes, now: float, reason: str = "", size: int | None = None) -> None:
        """File an invalid event's raw text on the hourly rejected list, its reason alongside, and count it.

        `size` is the event's original length when `raw` is only its beginning (an oversized event).
        """
        hour = utc_hour(now)
        pipe.lpush(keys.events_rejected(hour), raw)
        record = {"reason": reason, "bytes": len(raw) if size is None else size, "time": int(now)}
        pipe.lpush(keys.events_rejected_reasons(hour), json.dumps(record))
        self.count(pipe, ("all", "invalid"))

    def count(self, pipe: Any, fields: tuple[str, ...]) -> None:
        """Increment counters in the instance hash and (but `all`, reserved when taken) the global hash."""
        for name in fields:
            if name != "all":
                pipe.hincrby(keys.event_counters(), name, 1)
            pipe.hincrby(keys.instance_event_counters(self.host, self.pid), name, 1)

    def uncount(self, pipe: Any) -> None:
        """Give back the global `all` a taken event reserved (a noop is not counted)."""
        pipe.hincrby(keys.event_counters(), "all", -1)

    def touch_instance(self, pipe: Any) -> None:
        """Keep the instance keys for another 12 days."""
        pipe.expire(keys.executive_instance(self.host, self.pid), INSTANCE_TTL)
        pipe.expire(keys.instance_event_counters(self.host, self.pid), INSTANCE_TTL)

    # --- instance life -----------------------------------------------------

    def register(self, boot_time: int, heartbeat_ttl: int, heartbeat: Heartbeat) -> None:
        """Boot: counters created if missing, instance keys written, heartbeat started."""
        with self.client.pipeline() as pipe:
            for name in COUNTER_FIELDS:
                pipe.hsetnx(keys.event_counters(), name, 0)
            pipe.hset(keys.executive_instance(self.host, self.pid), "boot_time", boot_time)
            pipe.hset(keys.instance_event_counters(self.host, self.pid), mapping=dict.fromkeys(COUNTER_FIELDS, 0))
            self.touch_instance(pipe)
            save_heartbeat(self.client, self.heartbeat_key, heartbeat, heartbeat_ttl, pipe)
            pipe.execute()

    def beat(self, heartbeat_ttl: int, heartbeat: Heartbeat) -> None:
        """Tell other executives (and health) this one is alive and how far it got."""
        save_heartbeat(self.client, self.heartbeat_key, heartbeat, heartbeat_ttl)

    def unregister(self) -> None:
        """Clean stop: give back anything in flight or handed over, drop claims and heartbeat."""
        moved = self.requeue_own()
        if moved:
            log.info("put %d uncommitted events back on %s", moved, self.queue)

    def requeue_own(self) -> int:
        """Put this executive's uncommitted and handed-over events back and drop its claims."""
        self.forget_claims()
        return self._requeue_of(self.host, self.pid, force=True)

    def recover_orphans(self) -> int:
        """Requeue the events and drop the claims of executives whose heartbeat expired or whose process is gone."""
        moved = 0
        owners = self._owners()
        self.peers = owners - {self.id}
        for owner in owners - {self.id}:
            host, _, pid_text = owner.rpartition(":")
            if not pid_text.isdigit():
                continue
            dead = host == self.host and not pid_alive(int(pid_text))
            n = self._requeue_of(host, int(pid_text), force=dead)
            if n:
                log.warning("requeued %d in-flight and handed-over events of gone executive %s", n, owner)
                self.peers.discard(owner)
            moved += n
        return moved

    def _owners(self) -> set[str]:
        """HOST:PID of every executive that may have an in-flight or hand-off list, or a claim.

        Every take adds its executive to `executives_taking` (recovery removes it), so no keyspace SCAN is
        needed; but once per database, for the lists of executives that ran before that set existed.
        """
        with self.client.pipeline(transaction=False) as pipe:
            pipe.hvals(keys.event_claims())
            pipe.smembers(keys.executives_taking())
            pipe.exists(keys.executives_scanned())
            claimed, taking, scanned = pipe.execute()
        found = set(claimed) | set(taking)
        if not scanned:
            older = self._scan_owners() - found
            if older:
                self.client.sadd(keys.executives_taking(), *older)
            self.client.set(keys.executives_scanned(), 1)
            found |= older
        return found

    def _scan_owners(self) -> set[str]:
        """HOST:PID of every executive with an in-flight or hand-off list, by SCAN (walks every key)."""
        found: set[str] = set()
        for pattern in (keys.events_in_flight_pattern(), keys.events_handoff_pattern()):
            prefix = pattern.removesuffix("*")
            found.update(k.removeprefix(prefix) for k in self.client.scan_iter(match=pattern, count=500))
        return found

    def _requeue_of(self, host: str, pid: int, force: bool) -> int:
        owner = f"{host}:{pid}"
        return int(self._requeue(keys=[keys.events_in_flight(host, pid), keys.events_handoff(owner), self.queue,
                                       keys.executive_heartbeat(host, pid), keys.event_claims(),
                                       keys.event_counters(), keys.executives_taking()],
                                 args=["1" if force else "0", owner]))



def drop_stale_archive_keys(client: StrRedis) -> None:
    """Forget archive lists that have expired (called when the UTC hour changes)."""
    for key in client.smembers(keys.known_events_archive_keys()):
        if not client.exists(key):
            client.srem(keys.known_events_archive_keys(), key)
