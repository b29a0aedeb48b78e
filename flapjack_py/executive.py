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
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import redis

from . import decisions, delivery, filters, flapping, staleness
from .checks import CheckSnapshot, StateChange, ack_hash, max_notified_severity, previous_run, worst
from .config import Config, load_config
from .connection import clients_for
from .errors import InvalidEvent
from .events import Event, derived_tags, parse_event
from .filters.acknowledgement import ack_duration
from .filters.base import FilterInput, Verdict
from .gc_pacing import GcPacing
from .heartbeat import Heartbeat
from .notification import Notification, NotificationType, notification_type_for
from .notifier import Notifier, NotifyRequest, write_notify_log
from .rollup import FactsChange, facts_change
from .store import checks as check_store
from .store import decisions as decision_store
from .store import flapping as flap_store
from .store import maintenance as maint
from .store import maintenance_series
from .store import metrics as metric_store
from .store import staleness as stale_store
from .store import tags as tag_store
from .store.alerts import trim_alert_indexes
from .store.client import Clients
from .store.events import EventQueue, Taken, drop_stale_archive_keys, utc_hour
from .store.samples import record_sample
from .store.writes import WriteBuffer

log = logging.getLogger(__name__)

NEW_CHECK_MAINTENANCE_SUMMARY = "Automatically created for new check"
HEARTBEAT_TTL = 30  # seconds without a heartbeat before this executive's in-flight events are taken back
HEARTBEAT_EVERY = 5.0  # seconds between heartbeats
RECOVERY_EVERY = 15.0  # seconds between scans for gone executives' in-flight events
MAX_NOTIFY_ATTEMPTS = 10  # decisions redone when other executives change a contact's rollup state; the last unwatched
METRICS_EVERY = 1.0  # seconds between writes of the batch timing histogram
ENTITY_ID_NAMESPACE = uuid.UUID("5b0d7a3c-6f1e-4c2a-9a57-f1a9ac3e0b15")  # entity ids: uuid5 of this and the name
SERIES_EVERY = 60  # seconds (wall clock) between materialisations of recurring maintenance
STALE_EVERY = 30  # seconds between sweeps for stale checks (by one executive at a time)


class _InFlightTaken(Exception):
    """Another executive took back this one's in-flight events (its heartbeat lapsed): drop the batch."""


class _SharedChanged(Exception):
    """Another executive changed a contact's alerting set or drop_rollup key the notifications read: redo them."""


@dataclass
class _Batch:
    """Events taken together and the state shared while processing them."""

    snapshots: dict[tuple[str, str], CheckSnapshot]
    entity_ids: dict[str, str]
    counter: int  # the event counter of the item being processed (reserved for it when taken)
    in_flight: int = 0  # this batch's events still on the in-flight list
    guard: Any = None  # pipeline WATCHing the in-flight list since it was last checked
    pending: list[WriteBuffer] = field(default_factory=list)  # processed, not yet committed
    requests: list[NotifyRequest] = field(default_factory=list)  # notifications, in batch order
    facts: dict[str, list[FactsChange]] = field(default_factory=dict)  # check facts the events changed
    changes: dict[str, list[StateChange]] = field(default_factory=dict)  # state changes the events recorded


class Executive:
    """Processes the event queue. `drain()` works through what is queued; `run()` until stopped."""

    def __init__(self, redis_client: Clients | redis.Redis, config: Config | dict[str, Any] | None = None,
                 notifier: Notifier | None = None) -> None:
        self.config = load_config(config)
        self.cfg = self.config.executive
        clients = clients_for(redis_client)  # a Clients pair as built by open_clients, or an embedder's client
        self.client, self.raw = clients.text, clients.raw  # str for store/; bytes for raw events and rq
        self.notifier = notifier if notifier is not None else Notifier(self.client, self.config)
        self.host = socket.getfqdn()
        self.pid = os.getpid()
        self.queue = EventQueue(self.client, self.raw, self.cfg.queue, self.host, self.pid)
        self.heartbeat = Heartbeat(role="executive", host=self.host, pid=self.pid, started=int(time.time()))
        self._stopping = False
        self._registered = False
        self._requeue_own = False  # a lost connection left events in flight to put back
        self._last_beat = self._last_recovery = 0.0
        self._series_at = self._stale_at = 0
        self._hour = ""
        self._batch_seconds: list[float] = []
        self._last_metrics = 0.0

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
                self._housekeeping()
                batch = self.queue.take(self.cfg.batch_size)
                if not batch and not batch.more:
                    self._flush_metrics()
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
                self._housekeeping()
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
                self._recover_own()
        pacing.stop()
        self._flush_metrics()
        self.queue.unregister()
        log.info("executive stopped")

    def stop(self) -> None:
        """Ask run() to return after the current batch."""
        self._stopping = True

    # --- lifecycle ---------------------------------------------------------

    def _boot(self) -> None:
        if self._registered:
            return
        self.heartbeat.at = int(time.time())
        self.queue.register(self.heartbeat.at, HEARTBEAT_TTL, self.heartbeat)
        self._registered = True
        self._last_beat = time.monotonic()
        tag_store.index_check_tags(self.client)  # check tags written before the per-check sets existed

    def _install_signal_handlers(self) -> None:
        def handler(signum: int, _frame: object) -> None:
            log.info("received signal %s: stopping after the current batch", signum)
            self.stop()
        signal.signal(signal.SIGTERM, handler)
        signal.signal(signal.SIGINT, handler)

    def _housekeeping(self) -> None:
        if self._requeue_own:
            self._recover_own()
        mono = time.monotonic()
        if mono - self._last_beat >= HEARTBEAT_EVERY:
            self.heartbeat.at = int(time.time())
            self.queue.beat(HEARTBEAT_TTL, self.heartbeat)
            record_sample(self.client, self.cfg.queue, self.heartbeat.at)  # the UI's sparklines
            self._last_beat = mono
        if mono - self._last_recovery >= RECOVERY_EVERY:
            self.queue.recover_orphans()
            self._last_recovery = mono
        if mono - self._last_metrics >= METRICS_EVERY:
            self._flush_metrics()
            self._last_metrics = mono
        hour = utc_hour(time.time())
        if hour != self._hour:
            if self._hour:
                drop_stale_archive_keys(self.client)
                trim_alert_indexes(self.client, int(time.time()), self.cfg.alert_retention)
            self._hour = hour
        self._materialise_series()
        self._sweep_stale()

    def _materialise_series(self) -> None:
        """Write recurring maintenance occurrences ahead of time (store/maintenance_series.py)."""
        now = int(time.time())
        if abs(now - self._series_at) >= SERIES_EVERY:
            self._series_at = now
            maintenance_series.materialise_all(self.client, now)

    def _sweep_stale(self) -> None:
        """Mark checks gone stale (flapjack_py.staleness), one executive per STALE_EVERY."""
        now = int(time.time())
        if abs(now - self._stale_at) < STALE_EVERY or self.cfg.stale_after == 0:
            return
        self._stale_at = now
        if stale_store.take_turn(self.client, f"{self.host}:{self.pid}", STALE_EVERY - 1):
            stale_store.sweep(self.client, self.cfg.stale_after, now, self.cfg.stale_state == "unknown",
                              self.cfg.queue, self.cfg.batch_size)

    def _flush_metrics(self) -> None:
        """Batch timings kept in memory go to the shared histogram (one pipeline, at most once a second)."""
        if not self._batch_seconds:
            return
        pipe = self.raw.pipeline(transaction=False)
        metric_store.observe_batches(pipe, self._batch_seconds)
        self._batch_seconds.clear()
        pipe.execute()

    def _recover_own(self) -> None:
        """After a lost connection: put this executive's uncommitted events back, retried until it works.

        With Sentinel the promoted replica still holds them in flight, under a
        heartbeat this executive keeps alive, so no other executive takes them back.
        """
        self._requeue_own = True
        self._last_beat = 0.0  # requeueing drops the heartbeat key: beat again at once (health reads it)
        try:
            moved = self.queue.requeue_own()
        except redis.ConnectionError:
            return
        self._requeue_own = False
        if moved:
            log.info("put %d uncommitted events back on the queue", moved)

    # --- batches -----------------------------------------------------------

    def _process_batch(self, taken: Taken) -> None:
        started = time.perf_counter()
        try:
            self._process_taken(taken)
        finally:
            self._batch_seconds.append(time.perf_counter() - started)

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
        batch = _Batch({}, {}, taken.counter, in_flight=1)
        try:
            self._commit(batch, [self._rejected(taken.raws[0], taken.claims[0], int(time.time()), reason)])
        except _InFlightTaken:
            log.error("another executive took back this one's in-flight events; it processes them")
            self.queue.forget_claims()

    def _process_together(self, taken: Taken) -> None:
        parsed = [self._parse(raw) for raw in taken.raws]
        batch = self._load_batch([p for p in parsed if isinstance(p, Event)], taken.counter)
        batch.in_flight = len(taken)
        self.heartbeat.done(len(taken), time.time())
        try:
            batch.guard = self._guard(batch.in_flight)
            self._process_items(batch, taken, parsed)
        except _InFlightTaken:
            log.error("another executive took back this one's in-flight events; it processes them")
            batch.pending.clear()
            self.queue.forget_claims()
        finally:
            if batch.guard is not None:
                batch.guard.reset()

    def _guard(self, expected: int) -> Any:
        """WATCH the in-flight list and check our events are still on it (not taken back)."""
        pipe = self.raw.pipeline(transaction=True)
        pipe.watch(self.queue.in_flight)
        if int(pipe.llen(self.queue.in_flight)) < expected:
            pipe.reset()
            raise _InFlightTaken()
        return pipe

    def _process_items(self, batch: _Batch, taken: Taken, parsed: list[Event | InvalidEvent | None]) -> None:
        for index, (raw, claim, item) in enumerate(zip(taken.raws, taken.claims, parsed, strict=True)):
            writes = WriteBuffer()
            writes.raw, writes.claim = raw, claim
            now = int(time.time())
            batch.counter = taken.counters[index]  # reserved when taken, in take order
            if item is None:
                self.queue.uncount(writes)  # a noop is not counted
            elif isinstance(item, InvalidEvent):
                self._reject(writes, raw, now, str(item))
            else:
                try:
                    self._process_event(batch, writes, item, raw, now, index)
                except (redis.ConnectionError, redis.TimeoutError, _InFlightTaken):
                    raise  # not the event's fault: run() retries, the event stays in flight
                except Exception as exc:  # one bad event must not stop the executive
                    log.exception("%s: processing failed; filed as rejected", item.id, extra={"check": item.id})
                    writes = self._rejected(raw, claim, now, f"internal error: {exc!r}")
            batch.pending.append(writes)
        self._notify_and_commit(batch)

    def _notify_and_commit(self, batch: _Batch) -> None:
        """Decide the notifications and commit, deciding again while other executives change what they read.

        Per-check keys are this executive's while it holds the checks' claims; the contact-level keys
        several checks share (rollup alerting sets, drop_rollup keys) are WATCHed from before they are
        read, so two executives notifying one contact at once cannot both act on the same state.
        """
        saved = [(request.writes, request.writes.snapshot()) for request in batch.requests]
        for attempt in range(1, MAX_NOTIFY_ATTEMPTS + 1):
            if batch.requests:
                self._notify_batch(batch, watch=attempt < MAX_NOTIFY_ATTEMPTS)
            try:
                self._commit_or_isolate(batch)
                return
            except _SharedChanged:
                log.info("contact rollup state changed by another executive; deciding %d notifications again",
                         len(batch.requests))
            for writes, snapshot in saved:
                writes.restore(snapshot)
            batch.requests = [r for r in batch.requests if r.error is None]
            for request in batch.requests:
                request.alerts = []

    def _commit_or_isolate(self, batch: _Batch) -> None:
        """Commit the pending events; if Redis refuses the MULTI, commit them one by one, rejecting culprits."""
        pending = list(batch.pending)
        try:
            self._commit(batch, batch.pending)
            return
        except (redis.ConnectionError, redis.TimeoutError, _InFlightTaken, _SharedChanged):
            raise
        except Exception:
            log.exception("committing %d events failed; committing them one at a time", len(pending))
        for writes in pending:
            try:
                self._commit(batch, [writes])
            except (redis.ConnectionError, redis.TimeoutError, _InFlightTaken, _SharedChanged):
                raise
            except Exception as exc:
                log.exception("event could not be committed; filed as rejected")
                self._commit(batch, [self._rejected(writes.raw, writes.claim, int(time.time()),
                                                    f"internal error: {exc!r}")])
        batch.pending.clear()

    def _rejected(self, raw: bytes, claim: str, now: int, reason: str) -> WriteBuffer:
        writes = WriteBuffer()
        writes.raw, writes.claim = raw, claim
        self._reject(writes, raw, now, reason)
        return writes

    def _parse(self, raw: bytes) -> Event | InvalidEvent | None:
        try:
            return parse_event(raw, self.cfg.max_event_bytes)
        except InvalidEvent as exc:
            return exc
        except Exception as exc:  # parsing is pure: any other failure is this event's alone
            log.exception("event could not be parsed; filed as rejected")
            return InvalidEvent([f"internal error while parsing: {exc!r}"])

    def _load_batch(self, events: list[Event], counter: int) -> _Batch:
        ids = list(dict.fromkeys((e.entity, e.check) for e in events))
        snapshots = check_store.load_snapshots(self.client, ids, _ok_only(events, self.cfg.flap_detection)) if ids else {}
        entity_ids = {s.entity: s.entity_id for s in snapshots.values() if s.entity_id}
        return _Batch(snapshots, entity_ids, counter)

    def _commit(self, batch: _Batch, pending: list[WriteBuffer]) -> None:
        """One MULTI: the pending events' writes (alerts and rq jobs included), their in-flight removal, instance TTLs.

        EXEC fails, and nothing is applied, if another executive took the events back since the guard.
        """
        if not pending:
            return
        if batch.guard is None:
            batch.guard = self._guard(batch.in_flight)
        pipe, batch.guard = batch.guard, None
        pipe.multi()
        merged = WriteBuffer()
        for writes in pending:
            merged.merge(writes)
        merged.replay(pipe)
        delivery.enqueue_jobs(self.raw, pipe, merged.jobs)
        self.queue.touch_instance(pipe)
        self.queue.commit(pipe, [writes.claim for writes in pending])
        try:
            results = pipe.execute(raise_on_error=False)
        except redis.WatchError:
            if self.queue.in_flight_count() == batch.in_flight:
                raise _SharedChanged() from None  # only a contact's rollup state moved (see _notify_and_commit)
            raise _InFlightTaken() from None
        finally:
            pipe.reset()
        self.queue.committed()
        batch.in_flight -= len(pending)
        for writes in pending:
            for fields in writes.notify_log:
                write_notify_log(self.config, *fields)
        pending.clear()
        _log_failed_commands(results)

    def _reject(self, writes: WriteBuffer, raw: bytes, now: int, reason: str) -> None:
        """File the event as rejected; of an oversized event only the first max_event_bytes are kept."""
        log.warning("rejected event (%s): %r%s", reason, raw[:200], "..." if len(raw) > 200 else "")
        limit = self.cfg.max_event_bytes
        self.queue.reject(writes, raw[:limit], now, reason, size=len(raw))
        metric_store.count_rejected(writes, reason)

    # --- one event ---------------------------------------------------------

    def _process_event(self, batch: _Batch, writes: WriteBuffer, event: Event, raw: bytes, now: int,
                       index: int) -> None:
        if self.cfg.archive_events:
            self.queue.archive(writes, raw, now, self.cfg.events_archive_maxage)
        counter = batch.counter
        self.queue.count(writes, _counter_fields(event))
        snap = batch.snapshots[(event.entity, event.check)]
        if staleness.superseded(staleness.is_stale_event(event.tags, event.type), event.time, snap.last_update):
            log.info("%s: stale check's unknown result dropped: heard from since", event.id)
            return
        self._ensure_entity(batch, writes, snap)
        if not snap.registered:
            check_store.register_check(writes, event.entity, event.check, now)
            snap.registered = True
        tags = event.tags | snap.check_tags | derived_tags(event.entity, event.check)
        if event.is_service:
            go_on, previous = self._service_event(batch, writes, snap, event, now, counter, tags, index)
        else:
            go_on, previous = self._action_event(writes, snap, event, now)
        if go_on and self._filters_pass(writes, snap, event, previous, now):
            self._notify(batch, writes, snap, event, now, counter, tags, index)
        if not (event.is_service and event.state in ("acknowledgement", "test_notifications")):
            batch.facts.setdefault(snap.id, []).append((index, facts_change(snap, event.is_service, event.summary)))

    def _ensure_entity(self, batch: _Batch, writes: WriteBuffer, snap: CheckSnapshot) -> None:
        entity_id = batch.entity_ids.get(snap.entity)
        if entity_id is None:
            entity_id = new_entity_id(snap.entity)
            check_store.add_entity(writes, entity_id, snap.entity)
            batch.entity_ids[snap.entity] = entity_id
            log.info("new entity %s (id %s)", snap.entity, entity_id)
        snap.entity_id = entity_id

    def _service_event(self, batch: _Batch, writes: WriteBuffer, snap: CheckSnapshot, event: Event, now: int,
                       counter: int, tags: frozenset[str], index: int) -> tuple[bool, str | None]:
        if event.state in ("acknowledgement", "test_notifications"):
            log.warning("%s: service event with state %s counted invalid and ignored", event.id, event.state)
            return False, None
        if event.is_failure and not snap.ack_hash_stored:
            check_store.add_ack_hash(writes, event.id, ack_hash(event.id))
            snap.ack_hash_stored = True
        previous = snap.state
        go_on = True
        if previous is None:
            self._new_check_maintenance(writes, snap, tags, now)
            go_on = event.state != "ok"
        self._update_state(batch, writes, snap, event, now, counter, index)
        self._refresh_scheduled(writes, snap, now)
        if self.cfg.flap_detection:
            self._observe_flapping(batch, writes, snap, event, now, counter, tags, index)
        return go_on, previous

    def _observe_flapping(self, batch: _Batch, writes: WriteBuffer, snap: CheckSnapshot, event: Event, now: int,
                          counter: int, tags: frozenset[str], index: int) -> None:
        """Add the result to the check's flap history; notify once when it starts or stops flapping."""
        low, high = self.cfg.flap_low_threshold, self.cfg.flap_high_threshold
        found = flapping.observe(snap.flap_history, snap.flapping_since, event.state, now, low, high)
        flap_store.record(writes, event.entity, event.check, found)
        snap.flap_history, snap.flapping_since = found.history, found.since
        if found.change and not (snap.in_scheduled_maintenance or snap.in_unscheduled_maintenance):
            log.info("%s: %s flapping (%.1f %% state change)", event.id, found.change, found.percent)
            base = self._notification(snap, event, now, counter, tags)
            batch.requests.append(NotifyRequest(flapping.notification(base, found, low, high), now, index,
                                                snap.entity_id, writes))

    def _action_event(self, writes: WriteBuffer, snap: CheckSnapshot, event: Event, now: int) -> tuple[bool, None]:
        check_store.write_action(writes, event, now)
        if not (event.is_acknowledgement or event.is_test):
            log.warning("%s: action event with state %s recorded, not notified", event.id, event.state)
            return False, None
        self._refresh_scheduled(writes, snap, now)
        return True, None

    def _new_check_maintenance(self, writes: WriteBuffer, snap: CheckSnapshot, tags: frozenset[str], now: int) -> None:
        duration = self.cfg.new_check_scheduled_maintenance_duration
        if duration <= 0 or tags & set(self.cfg.new_check_scheduled_maintenance_ignore_tags):
            return
        maint.add_window(writes, snap.entity, snap.check, maint.SCHEDULED, now, duration,
                         NEW_CHECK_MAINTENANCE_SUMMARY)
        snap.scheduled_windows[now] = duration
        snap.scheduled_start = maint.revalidate_scheduled(writes, snap.entity, snap.check, snap.scheduled_windows, now)
        log.info("%s: new check, scheduled maintenance for %ss", snap.id, duration)

    def _update_state(self, batch: _Batch, writes: WriteBuffer, snap: CheckSnapshot, event: Event, now: int,
                      counter: int, index: int) -> None:
        if event.state != snap.state:
            check_store.write_state_change(writes, event, now, counter)
            batch.changes.setdefault(snap.id, []).append(StateChange(now, event.state, event.summary, index))
            log.info("%s: %s -> %s", event.id, snap.state or "(new)", event.state, extra={"check": event.id})
            snap.state, snap.last_change = event.state, now
            snap.failing_since = now if event.is_failure else None
        ifd = event.initial_failure_delay if event.initial_failure_delay is not None else self.cfg.initial_failure_delay
        rfd = event.repeat_failure_delay if event.repeat_failure_delay is not None else self.cfg.repeat_failure_delay
        if staleness.is_stale_event(event.tags, event.type):  # not a sign of life: last_update stays
            stale_store.write_stale_result(writes, event)
        else:
            check_store.write_update(writes, event, now, ifd, rfd)
            snap.interval = staleness.learned_interval(snap.interval, snap.last_update, now)
            stale_store.remember(writes, event.entity, event.check, snap.interval)
            snap.last_update = now
        snap.initial_failure_delay, snap.repeat_failure_delay = ifd, rfd

    def _refresh_scheduled(self, writes: WriteBuffer, snap: CheckSnapshot, now: int) -> None:
        if snap.scheduled_start is not None or not snap.scheduled_windows:
            return
        snap.scheduled_start = maint.revalidate_scheduled(writes, snap.entity, snap.check,
                                                          snap.scheduled_windows, now)

    # --- filters -----------------------------------------------------------

    def _filters_pass(self, writes: WriteBuffer, snap: CheckSnapshot, event: Event, previous: str | None,
                      now: int) -> bool:
        data = FilterInput(event, snap, previous, now, self.cfg.initial_failure_delay, self.cfg.repeat_failure_delay)
        for check_filter in filters.FILTERS:
            verdict = check_filter(data)
            self._apply_effects(writes, snap, verdict, now)
            if verdict.block:
                log.debug("%s: %s blocked by %s: %s", event.id, event.state, check_filter.__name__, verdict.reason)
                trace = decisions.blocked(event, snap, check_filter.__name__, verdict, now)
                if trace is not None:
                    decision_store.record(writes, snap.entity, snap.check, trace.entry(), self.cfg.decision_trace_length)
                return False
        return True

    def _apply_effects(self, writes: WriteBuffer, snap: CheckSnapshot, verdict: Verdict, now: int) -> None:
        if verdict.end_unscheduled and snap.unscheduled_start is not None:
            maint.finish_unscheduled(writes, snap.entity, snap.check, snap.unscheduled_start, now)
            log.info("%s: unscheduled maintenance ended", snap.id)
            snap.unscheduled_start = None
        if verdict.create_unscheduled is not None:
            start, duration, summary = verdict.create_unscheduled
            snap.unscheduled_start = maint.start_unscheduled(writes, snap.entity, snap.check, start, duration,
                                                             summary, now, snap.unscheduled_start)
            log.info("%s: acknowledged, unscheduled maintenance for %ss", snap.id, duration)

    # --- notification ------------------------------------------------------

    def _notify(self, batch: _Batch, writes: WriteBuffer, snap: CheckSnapshot, event: Event, now: int, counter: int,
                tags: frozenset[str], index: int) -> None:
        """Generate the notification and queue it for the batch's notifier."""
        notification = self._notification(snap, event, now, counter, tags)
        kinds = [notification.type.value] + ([event.state] if event.is_failure else [])
        check_store.write_notification(writes, event.entity, event.check, kinds, now)
        for kind in kinds:
            snap.last_notifications[kind] = now
        log.info("%s: %s notification (%s)", event.id, notification.type.value, notification.severity,
                 extra={"check": event.id, "event_count": counter})
        latest = event.is_service and snap.last_change == now  # this event's own change is not history yet
        batch.requests.append(NotifyRequest(notification, now, index, snap.entity_id, writes, latest=latest))

    def _notification(self, snap: CheckSnapshot, event: Event, now: int, counter: int,
                      tags: frozenset[str]) -> Notification:
        """The notification, without last_state/last_summary (read per batch, see _notify_batch)."""
        notified = max_notified_severity(snap.last_notifications)
        kind = notification_type_for(event)
        if kind is NotificationType.TEST:
            severity = "critical"
        else:
            severity = worst(event.state if event.is_failure else None, notified)
        return Notification(
            event_id=event.id, entity=event.entity, check=event.check, state=event.state, type=kind,
            severity=severity, count=counter, event_hash=ack_hash(event.id), summary=event.summary,
            details=event.details, time=event.time,
            duration=ack_duration(event.duration) if event.is_acknowledgement else event.duration,
            state_duration=None if snap.last_change is None else now - snap.last_change, tags=tuple(sorted(tags)),
        )

    def _notify_batch(self, batch: _Batch, watch: bool = False) -> None:
        """Complete the batch's notifications with their previous state run, then have the notifier decide them."""
        ids = list(dict.fromkeys((r.notification.entity, r.notification.check) for r in batch.requests))
        stored = check_store.load_recent_state_changes(self.client, ids)
        for request in batch.requests:
            n = request.notification
            earlier = [c for c in batch.changes.get(n.event_id, ()) if c.at < request.index]
            last_state, last_summary = previous_run(stored[(n.entity, n.check)], earlier, latest=request.latest)
            request.notification = replace(n, last_state=last_state, last_summary=last_summary)
        try:
            self.notifier.notify(batch.requests, batch.facts, self._watcher(batch) if watch else None)
        except (redis.ConnectionError, redis.TimeoutError):
            raise
        except Exception:
            log.exception("notifying %d events together failed; notifying them one at a time", len(batch.requests))
            if batch.guard is not None:  # one at a time, nothing is watched but the in-flight list
                batch.guard.reset()
                batch.guard = None
            self._notify_one_by_one(batch)
            return
        for request in batch.requests:
            if request.error is not None:
                self._reject_notified(batch, request)

    def _watcher(self, batch: _Batch) -> Callable[[list[str]], None]:
        """WATCH keys on the batch's guard, so its commit fails if they change (see _notify_and_commit)."""
        def watch(shared: list[str]) -> None:
            if batch.guard is None:
                batch.guard = self._guard(batch.in_flight)
            batch.guard.watch(*shared)
        return watch

    def _notify_one_by_one(self, batch: _Batch) -> None:
        """Fallback: commit the events before each notification, then notify it alone (as separate batches would)."""
        for request in batch.requests:
            at = next(i for i, w in enumerate(batch.pending) if w is request.writes)
            before = batch.pending[:at]
            del batch.pending[:at]
            self._commit(batch, before)
            try:
                self.notifier.notify([request])
            except (redis.ConnectionError, redis.TimeoutError):
                raise
            except Exception as exc:
                log.exception("%s: notifying failed", request.notification.event_id)
                request.error = exc
            if request.error is not None:
                self._reject_notified(batch, request)

    def _reject_notified(self, batch: _Batch, request: NotifyRequest) -> None:
        """File the event whose notification failed as rejected, in place of its writes."""
        at = next(i for i, w in enumerate(batch.pending) if w is request.writes)
        batch.pending[at] = self._rejected(request.writes.raw, request.writes.claim, request.now,
                                           f"internal error: {request.error!r}")


def new_entity_id(name: str) -> str:
    """The id of an entity first seen in an event: the same for every executive, so concurrent ones agree."""
    return str(uuid.uuid5(ENTITY_ID_NAMESPACE, name))


def _ok_only(events: list[Event], flap_detection: bool) -> set[tuple[str, str]]:
    """Checks whose every event in the batch is an `ok` result: on an ok check they stop at the ok filter,
    reading neither notification times nor tags (with flap detection an ok may notify: none)."""
    if flap_detection:
        return set()
    ok = {(e.entity, e.check) for e in events if e.is_ok}
    return ok - {(e.entity, e.check) for e in events if not e.is_ok}


def _counter_fields(event: Event) -> tuple[str, ...]:
    if not event.is_service:
        return ("all", "action")
    if event.state == "ok":
        return ("all", "ok")
    if event.is_failure:
        return ("all", "failure")
    return ("all", "invalid")


def _log_failed_commands(results: list[Any]) -> None:
    """A command Redis refuses inside EXEC fails alone; the rest, and the in-flight removal, are applied."""
    failed = [(i, r) for i, r in enumerate(results) if isinstance(r, Exception)]
    for index, error in failed:
        log.error("commit applied, but its command #%d failed: %s", index, error)
