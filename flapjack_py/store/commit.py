"""The commit: what an executive's work becomes in Redis, in one guarded MULTI. One object serves a batch, the
one-by-one fallback and an escalation step alike: the merged writes (check state, history, alert records),
the alerts' rq jobs (store/queues.py) and, for events, their release from the in-flight list.

A batch's commit is guarded by a WATCH of the executive's in-flight list: EXEC fails, and nothing is applied,
if another executive took the events back since (InFlightTaken), or if a contact-level key the notifier
WATCHed changed (SharedChanged: the caller decides the notifications again).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any, Protocol, TypeVar

import redis

from flapjack_py.store import metrics as metric_store
from flapjack_py.store.events import EventQueue
from flapjack_py.store.plumbing import multi
from flapjack_py.store.plumbing.client import BytesRedis, StrRedis
from flapjack_py.store.plumbing.guard import Calls, watch_list
from flapjack_py.store.plumbing.writes import WriteBuffer
from flapjack_py.store.queues import enqueue_jobs

log = logging.getLogger(__name__)

T = TypeVar("T")


class InFlightTaken(Exception):
    """Another executive took back this one's in-flight events: it processes them; this one forgets them."""


class SharedChanged(Exception):
    """Another executive changed a contact's alerting set or drop_rollup key the notifications read: redo them."""


class Guarded(Protocol):
    """What a commit needs of a batch: the pipeline WATCHing the in-flight list (None: none yet) and how
    many of the batch's events are still on that list."""

    guard: Any
    in_flight: int


class Commit:
    """Commits an executive's writes. `client` is the str client of store/, `raw` the bytes one rq's jobs are
    written with; `committed` is called with each WriteBuffer once its writes are applied (the notify log)."""

    def __init__(self, client: StrRedis, raw: BytesRedis, queue: EventQueue, max_event_bytes: int,
                 committed: Callable[[WriteBuffer], None] | None = None) -> None:
        self.client, self.raw, self.queue = client, raw, queue
        self.max_event_bytes = max_event_bytes
        self.committed = committed or _nothing

    def guard(self, expected: int) -> Any:
        """A pipeline WATCHing the in-flight list, once our `expected` events are checked to be still on it
        (not taken back): one round trip. Raises InFlightTaken."""
        pipe, _ = watch_list(self.client, self.queue.in_flight, expected)
        if pipe is None:
            raise InFlightTaken()
        return pipe

    def guard_and_read(self, expected: int, script: str, calls: Calls,
                       extra: Sequence[Sequence[Any]] = ()) -> tuple[Any, list[Any]]:
        """As guard, with the replies of the read-only Lua `script` called once per `calls` and then of the read
        commands `extra`, in the same round trip (the batch's check snapshots, its dependencies' states).
        Raises InFlightTaken."""
        pipe, replies = watch_list(self.client, self.queue.in_flight, expected, script, calls, extra)
        if pipe is None:
            raise InFlightTaken()
        return pipe, replies

    def batch(self, batch: Guarded, pending: list[WriteBuffer]) -> None:
        """One MULTI: the pending events' writes, alert records and rq jobs, their in-flight removal, the
        instance keys' TTLs; `pending` is emptied and `batch.in_flight` counts them off.

        Raises InFlightTaken or SharedChanged (nothing applied) when the guard's WATCH fired.
        """
        if not pending:
            return
        if batch.guard is None:
            batch.guard = self.guard(batch.in_flight)
        pipe, batch.guard = batch.guard, None
        try:
            results = self._apply(pipe, pending, [writes.claim for writes in pending])
        except redis.WatchError:
            if self.queue.in_flight_count() == batch.in_flight:
                raise SharedChanged() from None  # only a contact's rollup state moved
            raise InFlightTaken() from None
        self.queue.committed()
        batch.in_flight -= len(pending)
        self._done(pending, results)

    def watched(self, key: str, read: Callable[[Any], T], take: Callable[[T], WriteBuffer]) -> None:
        """WATCH `key`, hand what `read` reads of it (on the watching pipeline) to `take`, and commit the writes
        it returns in one MULTI (an escalation step). Raises redis.WatchError when `key` changed meanwhile."""
        with self.client.pipeline() as pipe:
            pipe.watch(key)
            writes = take(read(pipe))
            results = self._apply(pipe, [writes], [])
        self._done([writes], results)

    def rejected(self, raw: bytes, claim: str, now: int, reason: str) -> WriteBuffer:
        """Writes filing an event as rejected with `reason` (of an oversized event only the first
        max_event_bytes are kept), committed in its place."""
        writes = WriteBuffer()
        writes.raw, writes.claim = raw, claim
        self.reject(writes, raw, now, reason)
        return writes

    def reject(self, writes: WriteBuffer, raw: bytes, now: int, reason: str) -> None:
        """File the event as rejected on `writes`."""
        log.warning("rejected event (%s): %r%s", reason, raw[:200], "..." if len(raw) > 200 else "")
        self.queue.reject(writes, raw[:self.max_event_bytes], now, reason, size=len(raw))
        metric_store.count_rejected(writes, reason)

    def _apply(self, pipe: Any, pending: list[WriteBuffer], claims: list[str]) -> list[Any]:
        """The one place a MULTI is built: merged writes, rq jobs, and for `claims` (events) the instance TTLs
        and their in-flight release; sent and read on `pipe`."""
        pipe.multi()
        merged = WriteBuffer()
        for writes in pending:
            merged.merge(writes)
        merged.replay(pipe)
        enqueue_jobs(self.raw, pipe, merged.jobs)
        if claims:
            self.queue.touch_instance(pipe)
            self.queue.commit(pipe, claims)
        try:
            return multi.execute(pipe)
        finally:
            pipe.reset()

    def _done(self, pending: list[WriteBuffer], results: list[Any]) -> None:
        for writes in pending:
            self.committed(writes)
        pending.clear()
        for index, error in ((i, r) for i, r in enumerate(results) if isinstance(r, Exception)):
            # a command Redis refuses inside EXEC fails alone; the rest, and the in-flight removal, are applied
            log.error("commit applied, but its command #%d failed: %s", index, error)


def _nothing(_writes: WriteBuffer) -> None:
    pass
