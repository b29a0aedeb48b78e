"""The executive: take events, update check state, run filters, generate notifications, notify.

Events are taken in batches (one round trip), their checks' snapshots read in
one round trip, processed in memory, and committed in one MULTI together with
their removal from this executive's in-flight list. The notifications of a
batch are handed to the notifier together once its events are processed: it
reads what they all need in a few round trips and decides them in batch order,
seeing what the batch's earlier events and decisions changed; their alert
records and rq jobs commit in the same MULTI.
"""

from __future__ import annotations

import logging
import os
import signal
import socket
import time
from typing import Any

import redis

from flapjack_py.config.settings import Config, load_config
from flapjack_py.errors import InvalidEvent
from flapjack_py.executive.batch import Batch
from flapjack_py.executive.dependencies import Inhibition
from flapjack_py.executive.escalation_chore import Escalating
from flapjack_py.executive.handover import BatchNotify
from flapjack_py.executive.housekeeping import Housekeeping
from flapjack_py.executive.steps import EventSteps
from flapjack_py.model.events import Event, parse_event
from flapjack_py.model.heartbeat import Heartbeat
from flapjack_py.notify import enqueue as delivery
from flapjack_py.notify.request import Notifying, notify_logger
from flapjack_py.runtime.connection import clients_for
from flapjack_py.runtime.gc_pacing import GcPacing
from flapjack_py.store import checks as check_store
from flapjack_py.store import tags as tag_store
from flapjack_py.store.commit import Commit, InFlightTaken, SharedChanged
from flapjack_py.store.events import EventQueue, Taken
from flapjack_py.store.plumbing import scripts
from flapjack_py.store.plumbing.client import Clients, load_scripts
from flapjack_py.store.plumbing.writes import WriteBuffer

log = logging.getLogger(__name__)

HOT_SCRIPTS = (scripts.TAKE_EVENTS, scripts.LOAD_SNAPSHOTS, scripts.CHECK_FACTS, scripts.CONTACT_DETAILS)
"""Lua every batch (or notifying batch) calls by EVALSHA: loaded at boot, not by the first batch's NOSCRIPT."""
MAX_NOTIFY_ATTEMPTS = 10  # decisions redone when other executives change a contact's rollup state; the last unwatched

class Executive:
    """Processes the event queue. `drain()` works through what is queued; `run()` until stopped.

    The notifier is injected: handed in, or made by `default_notifier` (flapjack_py.executive.Executive, the
    contract's entry point, makes the project's Notifier)."""

    def __init__(self, redis_client: Clients | redis.Redis, config: Config | dict[str, Any] | None = None,
                 notifier: Notifying | None = None) -> None:
        self.config = load_config(config)
        self.cfg = self.config.executive
        clients = clients_for(redis_client)  # a Clients pair as built by open_clients, or an embedder's client
        self.client, self.raw = clients.text, clients.raw  # str for store/; bytes for raw events and rq
        self.notifier = notifier if notifier is not None else self.default_notifier()
        self.host = socket.getfqdn()
        self.pid = os.getpid()
        self.queue = EventQueue(self.client, self.raw, self.cfg.queue, self.host, self.pid)
        self.heartbeat = Heartbeat(role="executive", host=self.host, pid=self.pid, started=int(time.time()))
        self.commit = Commit(self.client, self.raw, self.queue, self.cfg.max_event_bytes, notify_logger(self.config))
        escalating = Escalating(self.notifier, self.client, self.commit)
        self.housekeeping = Housekeeping(self.client, self.raw, self.cfg, self.queue, self.heartbeat, escalating)
        self.steps = EventSteps(self.cfg, self.queue)
        self.inhibition = Inhibition(self.client, self.cfg.queue)
        self.notifying = BatchNotify(self.notifier, self.client, self.commit)
        self._stopping = False
        self._registered = False

    def default_notifier(self) -> Notifying:
        """The notifier when none is handed in: none here (flapjack_py.executive.Executive has the project's)."""
        raise TypeError("this Executive needs a notifier: flapjack_py.executive.Executive brings the project's")

    # --- public entry points -----------------------------------------------

    def drain(self) -> int:
        """Process every event now queued (and orphaned in-flight ones); return how many were taken."""
        self._boot()
        self.queue.recover_orphans()
        taken = 0
        pacing = GcPacing()
        pacing.start(freeze=False)
        try:
            while True:
                self.housekeeping.run()
                batch = self.queue.take(self.cfg.batch_size)
                if not batch and not batch.more:
                    self.housekeeping.flush_metrics()
                    return taken
                if batch:
                    self._process_batch(batch)
                    pacing.busy()
                    taken += len(batch)
        finally:
            pacing.stop()

    def run(self) -> None:
        """Process events until SIGTERM/SIGINT (or stop()); finishes the batch in hand first."""
        self._install_signal_handlers()
        self._boot()
        pacing = GcPacing()
        pacing.start()  # garbage collection while waiting for events, not in the middle of a batch
        log.info("executive %s:%s taking events from %s", self.host, self.pid, self.cfg.queue)
        backoff = 1.0
        while not self._stopping:
            try:
                self.housekeeping.run()
                batch = self.queue.take(self.cfg.batch_size)
                if batch:
                    self._process_batch(batch)
                    pacing.busy()
                elif not batch.more:
                    pacing.idle()
                    self.queue.wait(1.0)
                backoff = 1.0
            except redis.ConnectionError as exc:
                log.error("lost Redis (%s); retrying in %.0fs", exc, backoff)
                time.sleep(backoff)
                backoff = min(backoff * 2, 30.0)
                self.housekeeping.recover_own()
        pacing.stop()
        self.housekeeping.flush_metrics()
        self.queue.unregister()
        log.info("executive stopped")

    def stop(self) -> None:
        """Ask run() to return after the current batch."""
        self._stopping = True

    # --- lifecycle ---------------------------------------------------------

    def _boot(self) -> None:
        if self._registered:
            return
        self.housekeeping.register()
        self._registered = True
        delivery.prepare(self.raw, self.config)  # not in the middle of the first notifying batch
        load_scripts(self.client, HOT_SCRIPTS)
        tag_store.index_check_tags(self.client)  # check tags written before the per-check sets existed

    def _install_signal_handlers(self) -> None:
        def handler(signum: int, _frame: object) -> None:
            log.info("received signal %s: stopping after the current batch", signum)
            self.stop()
        signal.signal(signal.SIGTERM, handler)
        signal.signal(signal.SIGINT, handler)

    # --- batches -----------------------------------------------------------

    def _process_batch(self, taken: Taken) -> None:
        started = time.perf_counter()
        try:
            self._process_taken(taken)
        finally:
            self.housekeeping.batch_took(time.perf_counter() - started)

    def _process_taken(self, taken: Taken) -> None:
        """Process a batch; if it fails as a whole, its uncommitted events go one by one, a failing one rejected."""
        try:
            self._process_together(taken)
        except (redis.ConnectionError, redis.TimeoutError):
            raise
        except Exception as exc:  # one bad event must not stop the executive, nor its successors
            done = len(taken) - min(self.queue.in_flight_count(), len(taken))
            singles = [Taken(raws=[raw], claims=[claim], counters=[counter])
                       for i, (raw, claim, counter) in enumerate(zip(taken.raws, taken.claims, taken.counters,
                                                                     strict=True)) if i >= done]
            if len(taken) > 1:
                log.exception("a batch of %d events failed; processing its %d uncommitted ones one at a time",
                              len(taken), len(singles))
                for single in singles:
                    self._process_taken(single)
            elif singles:
                log.exception("event failed alone; filed as rejected")
                self._reject_alone(singles[0], f"internal error: {exc!r}")

    def _reject_alone(self, taken: Taken, reason: str) -> None:
        batch = Batch({}, {}, taken.counter, in_flight=1)
        try:
            self.commit.batch(batch, [self.commit.rejected(taken.raws[0], taken.claims[0], int(time.time()), reason)])
        except InFlightTaken:
            log.error("another executive took back this one's in-flight events; it processes them")
            self.queue.forget_claims()

    def _process_together(self, taken: Taken) -> None:
        parsed = [self._parse(raw) for raw in taken.raws]
        batch = Batch({}, {}, taken.counter, in_flight=len(taken))
        self.heartbeat.done(len(taken), time.time())
        try:
            self._guard_and_load(batch, [p for p in parsed if isinstance(p, Event)])
            self._process_items(batch, taken, parsed)
        except InFlightTaken:
            log.error("another executive took back this one's in-flight events; it processes them")
            batch.pending.clear()
            self.queue.forget_claims()
        finally:
            if batch.guard is not None:
                batch.guard.reset()

    def _guard_and_load(self, batch: Batch, events: list[Event]) -> None:
        """The guard (as _guard), the snapshots of the events' checks and the dependencies' states, in one
        round trip."""
        ids = list(dict.fromkeys((e.entity, e.check) for e in events))
        calls = check_store.snapshot_calls(ids, _ok_only(events, self.cfg.flap_detection))
        batch.guard, replies = self.commit.guard_and_read(batch.in_flight, scripts.LOAD_SNAPSHOTS, calls,
                                                          self.inhibition.reads())
        batch.snapshots = check_store.snapshots_from(ids, replies[:len(calls)])
        batch.dependencies = self.inhibition.batch_view(replies[len(calls):])
        batch.entity_ids = {s.entity: s.entity_id for s in batch.snapshots.values() if s.entity_id}

    def _process_items(self, batch: Batch, taken: Taken, parsed: list[Event | InvalidEvent | None]) -> None:
        for index, (raw, claim, item) in enumerate(zip(taken.raws, taken.claims, parsed, strict=True)):
            writes = WriteBuffer()
            writes.raw, writes.claim = raw, claim
            now = int(time.time())
            batch.counter = taken.counters[index]  # reserved when taken, in take order
            if item is None:
                self.queue.uncount(writes)  # a noop is not counted
            elif isinstance(item, InvalidEvent):
                self.commit.reject(writes, raw, now, str(item))
            else:
                try:
                    self.steps.process(batch, writes, item, raw, now, index)
                except (redis.ConnectionError, redis.TimeoutError, InFlightTaken):
                    raise  # not the event's fault: run() retries, the event stays in flight
                except Exception as exc:  # one bad event must not stop the executive
                    log.exception("%s: processing failed; filed as rejected", item.id, extra={"check": item.id})
                    writes = self.commit.rejected(raw, claim, now, f"internal error: {exc!r}")
            batch.pending.append(writes)
        self.inhibition.release(batch)
        self._notify_and_commit(batch)

    def _notify_and_commit(self, batch: Batch) -> None:
        """Decide the notifications and commit, deciding again while other executives change what they read.

        Per-check keys are this executive's while it holds the checks' claims; the contact-level keys
        several checks share (rollup alerting sets, drop_rollup keys) are WATCHed from before they are
        read, so two executives notifying one contact at once cannot both act on the same state.
        """
        saved = [(request.writes, request.writes.snapshot()) for request in batch.requests]
        for attempt in range(1, MAX_NOTIFY_ATTEMPTS + 1):
            if batch.requests:
                self.notifying.decide(batch, watch=attempt < MAX_NOTIFY_ATTEMPTS)
            try:
                self._commit_or_isolate(batch)
                return
            except SharedChanged:
                log.info("contact rollup state changed by another executive; deciding %d notifications again",
                         len(batch.requests))
            for writes, snapshot in saved:
                writes.restore(snapshot)
            batch.requests = [r for r in batch.requests if r.error is None]
            for request in batch.requests:
                request.alerts = []

    def _commit_or_isolate(self, batch: Batch) -> None:
        """Commit the pending events; if Redis refuses the MULTI, commit them one by one, rejecting culprits."""
        pending = list(batch.pending)
        try:
            self.commit.batch(batch, batch.pending)
            return
        except (redis.ConnectionError, redis.TimeoutError, InFlightTaken, SharedChanged):
            raise
        except Exception:
            log.exception("committing %d events failed; committing them one at a time", len(pending))
        for writes in pending:
            try:
                self.commit.batch(batch, [writes])
            except (redis.ConnectionError, redis.TimeoutError, InFlightTaken, SharedChanged):
                raise
            except Exception as exc:
                log.exception("event could not be committed; filed as rejected")
                self.commit.batch(batch, [self.commit.rejected(writes.raw, writes.claim, int(time.time()),
                                                               f"internal error: {exc!r}")])
        batch.pending.clear()

    def _parse(self, raw: bytes) -> Event | InvalidEvent | None:
        try:
            return parse_event(raw, self.cfg.max_event_bytes)
        except InvalidEvent as exc:
            return exc
        except Exception as exc:  # parsing is pure: any other failure is this event's alone
            log.exception("event could not be parsed; filed as rejected")
            return InvalidEvent([f"internal error while parsing: {exc!r}"])

def _ok_only(events: list[Event], flap_detection: bool) -> set[tuple[str, str]]:
    """Checks whose every event in the batch is an `ok` result: on an ok check they stop at the ok filter,
    reading neither notification times nor tags (with flap detection an ok may notify: none)."""
    if flap_detection:
        return set()
    ok = {(e.entity, e.check) for e in events if e.is_ok}
    return ok - {(e.entity, e.check) for e in events if not e.is_ok}
