"""The executive's chores between batches: heartbeat and rate samples, taking back gone executives' events,
the batch-time histogram, hourly trims, recurring maintenance and stale checks.

`Housekeeping.run()` is called before every take; each chore runs when its period has passed. A chore
that can be split (recurring maintenance) does at most CHORE_BUDGET seconds of work per call and goes on
at the next; any chore that takes longer than its budget is logged and recorded in the heartbeat, so
/api/health shows it.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

import redis

from flapjack_py.config.settings import ExecutiveConfig
from flapjack_py.executive import escalation_chore
from flapjack_py.model.heartbeat import Heartbeat
from flapjack_py.store import maintenance_series
from flapjack_py.store import metrics as metric_store
from flapjack_py.store import staleness as stale_store
from flapjack_py.store.alerts import drop_old_alerts
from flapjack_py.store.events import EventQueue, drop_stale_archive_keys, utc_hour
from flapjack_py.store.samples import record_sample

log = logging.getLogger(__name__)

HEARTBEAT_TTL = 30  # seconds without a heartbeat before this executive's in-flight events are taken back
HEARTBEAT_EVERY = 5.0  # seconds between heartbeats
RECOVERY_EVERY = 15.0  # seconds between scans for gone executives' in-flight events
METRICS_EVERY = 1.0  # seconds between writes of the batch timing histogram
SERIES_EVERY = 60  # seconds (wall clock) between materialisations of recurring maintenance
STALE_EVERY = 30  # seconds between sweeps for stale checks (by one executive at a time)
CHORE_BUDGET = 0.25  # seconds of work one chore may do between two batches


class Housekeeping:
    """One executive's periodic chores; `client` replies str, `raw` bytes."""

    def __init__(self, client: redis.Redis, raw: redis.Redis, cfg: ExecutiveConfig, queue: EventQueue,
                 heartbeat: Heartbeat, escalating: escalation_chore.Escalating | None = None) -> None:
        self.client, self.raw, self.cfg = client, raw, cfg
        self.queue, self.heartbeat = queue, heartbeat
        self.requeue_pending = False  # a lost connection left events in flight to put back
        self._last_beat = self._last_recovery = self._last_metrics = 0.0
        self._series_at = self._stale_at = self._escalated_at = 0
        self._series_next: str | None = None  # a materialisation round under way goes on after this id
        self.escalating = escalating  # the escalation step's notifier and commit
        self._hour = ""
        self._batch_seconds: list[float] = []

    def register(self) -> None:
        """Boot: instance keys and the first heartbeat."""
        self.heartbeat.at = int(time.time())
        self.queue.register(self.heartbeat.at, HEARTBEAT_TTL, self.heartbeat)
        self._last_beat = time.monotonic()

    def run(self) -> None:
        """Do the chores whose time has come."""
        if self.requeue_pending:
            self.recover_own()
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
            self.flush_metrics()
            self._last_metrics = mono
        self._timed("hourly", self._hourly)
        self._timed("maintenance_series", self._materialise_series)
        self._timed("stale_checks", self._sweep_stale)
        self._timed("escalation", self._escalate_due)

    def _timed(self, chore: str, run: Callable[[], None]) -> None:
        """Run one chore; one that overran CHORE_BUDGET is logged and recorded in the heartbeat."""
        began = time.monotonic()
        run()
        took = time.monotonic() - began
        if took > CHORE_BUDGET:
            log.warning("housekeeping chore %s took %.2f s (budget %.2f s): events waited", chore, took,
                        CHORE_BUDGET)
            self.heartbeat.overran(chore, took, time.time())

    def batch_took(self, seconds: float) -> None:
        """Remember a batch's time for the histogram."""
        self._batch_seconds.append(seconds)

    def flush_metrics(self) -> None:
        """Batch timings kept in memory go to the shared histogram (one pipeline, at most once a second)."""
        if not self._batch_seconds:
            return
        metric_store.observe_batches(self.client, self._batch_seconds)
        self._batch_seconds.clear()

    def recover_own(self) -> None:
        """After a lost connection: put this executive's uncommitted events back, retried until it works.

        With Sentinel the promoted replica still holds them in flight, under a
        heartbeat this executive keeps alive, so no other executive takes them back.
        """
        self.requeue_pending = True
        self._last_beat = 0.0  # requeueing drops the heartbeat key: beat again at once (health reads it)
        try:
            moved = self.queue.requeue_own()
        except redis.ConnectionError:
            return
        self.requeue_pending = False
        if moved:
            log.info("put %d uncommitted events back on the queue", moved)

    def _hourly(self) -> None:
        """When the UTC hour changes: forget expired archive lists, drop alert history past its retention."""
        hour = utc_hour(time.time())
        if hour != self._hour:
            if self._hour:
                drop_stale_archive_keys(self.client)
                dropped = drop_old_alerts(self.client, int(time.time()), self.cfg.alert_retention)
                if dropped:
                    log.info("dropped %d alert records older than the alert retention", dropped)
            self._hour = hour

    def _materialise_series(self) -> None:
        """Write recurring maintenance occurrences ahead of time (store/maintenance_series.py): a round every
        SERIES_EVERY seconds, CHORE_BUDGET seconds of it per call."""
        now = int(time.time())
        if self._series_next is None:
            if abs(now - self._series_at) < SERIES_EVERY:
                return
            self._series_at, self._series_next = now, ""
        _, self._series_next = maintenance_series.materialise_some(
            self.client, now, self._series_next, time.monotonic() + CHORE_BUDGET)

    def _escalate_due(self) -> None:
        """Page the escalation levels now due (flapjack_py.executive.escalation_chore): one ZRANGEBYSCORE a second."""
        now = int(time.time())
        if self.escalating is not None and now != self._escalated_at:
            self._escalated_at = now
            escalation_chore.escalate_due(self.escalating, now)

    def _sweep_stale(self) -> None:
        """Mark checks gone stale (flapjack_py.model.staleness), one executive per STALE_EVERY."""
        now = int(time.time())
        if abs(now - self._stale_at) < STALE_EVERY or self.cfg.stale_after == 0:
            return
        self._stale_at = now
        if stale_store.take_turn(self.client, self.queue.id, STALE_EVERY - 1):
            stale_store.sweep(self.client, self.cfg.stale_after, now, self.cfg.stale_state == "unknown",
                              self.cfg.queue, self.cfg.batch_size)
