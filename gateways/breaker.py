"""A medium's circuit breaker: while its server refuses, the workers hold the alerts and probe, spending no tries.

A batch whose every try failed for a reason that may pass (refused, reset, timed out, 4xx SMTP, HTTP 429/5xx;
cut short after TRIP_AFTER such failures in a row, nothing delivered) opens the breaker: its jobs go back to
the front of the queue as they were. While it is open the medium's workers take no batch; one of them sends
one probe, a single alert, per backoff step (flapjack_py.model.delivery: 1 s, 2 s, 4 s ... 60 s, longer
when the server sent `Retry-After`). A refused probe's alert goes to the end of the queue (so one poison
alert cannot keep the breaker open) and the step doubles; a probe the server answers, delivered or refused
for good, closes it and every worker goes back to full batches. The state lives in Redis
(flapjack_py.store.breaker), shared by the medium's workers and shown by /api/health and the status page.
Only a medium that retries (`retries` > 0) has a breaker.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Sequence
from typing import NamedTuple

from flapjack_py.model.delivery import FIRST_STEP, MAX_STEP, BreakerState, next_step, probe_delay
from flapjack_py.runtime.health import span
from flapjack_py.store import breaker as breaker_store
from flapjack_py.store.alerts import AlertStatus
from flapjack_py.store.deliveries import Settle, Settled
from flapjack_py.store.plumbing.client import StrRedis

from . import base

log = logging.getLogger(__name__)

TRIP_AFTER = 3
"""Failures in a row, nothing delivered, after which a batch's other alerts are held untried."""
POLL = 0.5
"""Seconds between a worker's looks at its medium's breaker (closed: before a batch; open: while it waits)."""
PROBE_HOLD = MAX_STEP
"""Seconds a worker's claim on a probe keeps the others from probing (should it die while probing)."""


class Admit(NamedTuple):
    """What a worker may do now: take a full batch, take one alert as the probe, or wait `wait` seconds."""

    probe: bool = False
    wait: float = 0.0


FULL = Admit()
PROBE = Admit(probe=True)


class Tally:
    """How the tries of one batch went so far (its alerts are sent from several threads)."""

    def __init__(self, trip_after: int) -> None:
        self.trip_after = trip_after  # 0: never hold untried alerts
        self.refused = self.answered = self.in_a_row = 0
        self.refused_jobs: set[str] = set()
        self.error = ""
        self.retry_after: float | None = None
        self._lock = threading.Lock()

    @property
    def stopped(self) -> bool:
        """True once TRIP_AFTER tries in a row were refused and none answered: hold the rest untried."""
        return bool(self.trip_after) and not self.answered and self.in_a_row >= self.trip_after

    @property
    def all_refused(self) -> bool:
        """Every try of the batch was refused (at least one)."""
        return bool(self.refused) and not self.answered

    def add(self, job_id: str, outcome: base.Outcome) -> None:
        """Count one try's outcome: refused (may pass), answered (delivered or refused for good), or neither."""
        with self._lock:
            if outcome.status == AlertStatus.QUEUED or outcome.gave_up:
                self.refused_jobs.add(job_id)
                self.refused += 1
                self.in_a_row += 1
                self.error = outcome.error or self.error
                if outcome.retry_after:
                    self.retry_after = max(self.retry_after or 0.0, outcome.retry_after)
            elif not outcome.skipped:
                self.answered += 1
                self.in_a_row = 0


class Breaker:
    """The breaker of one worker's medium: admits its batches and probes, and changes state after each."""

    def __init__(self, client: StrRedis, medium: str, server: str, enabled: bool = True) -> None:
        self.client, self.medium, self.server, self.enabled = client, medium, server, enabled
        self.state: BreakerState | None = None  # as last read: None while closed
        self._looked = -POLL  # monotonic time of the last read

    def admit(self) -> Admit:
        """Full batches while closed; while open, the probe when it is due and this worker claims it, else a wait."""
        if not self.enabled or (self.state is None and time.monotonic() - self._looked < POLL):
            return FULL
        self._looked = time.monotonic()
        self.state = breaker_store.load_breaker(self.client, self.medium)
        if self.state is None:
            return FULL
        now = time.time()
        if now < self.state.next_probe:
            return Admit(wait=self.state.next_probe - now)
        claimed = breaker_store.claim_probe(self.client, self.medium, now, now + PROBE_HOLD)
        if claimed < 0:  # closed meanwhile
            self.state = None
            return FULL
        return PROBE if claimed else Admit(wait=POLL)

    def release(self) -> None:
        """The claimed probe found no alert to send: due again at once, for whichever worker has one."""
        breaker_store.release_probe(self.client, self.medium, time.time())

    def after(self, settled: Sequence[Settled], tally: Tally, probe: bool) -> list[Settled]:
        """How a batch's jobs end, the breaker opened, kept open or closed by how its tries went."""
        if not self.enabled:
            return list(settled)
        if tally.all_refused:
            self._refused(tally, probe)
            put_back = Settle.REQUEUE if probe else Settle.HOLD
            return [Settled(item.taken, put_back, item.reason)
                    if item.how is Settle.RETRY and item.taken.job_id in tally.refused_jobs else item
                    for item in settled]
        if tally.answered and (probe or self.state is not None):
            self._close()
        elif probe:
            self.release()
        return list(settled)

    def _refused(self, tally: Tally, probe: bool) -> None:
        now = time.time()
        if probe and self.state is not None:
            step = next_step(self.state.step)
            delay = probe_delay(step, tally.retry_after)
            if breaker_store.probe_failed(self.client, self.medium, step, now + delay, tally.error):
                log.warning("gateway %s: %s still refusing (%s); next probe in %.0f s", self.medium, self.server,
                            tally.error, delay)
            return
        state = BreakerState(now, FIRST_STEP, now + probe_delay(FIRST_STEP, tally.retry_after), self.server,
                             tally.error)
        if breaker_store.trip(self.client, self.medium, state):
            log.warning("gateway %s: %s refusing (%s); its alerts are held, first probe in %.0f s",
                        self.medium, self.server, tally.error, state.next_probe - now)
        self.state = breaker_store.load_breaker(self.client, self.medium)

    def _close(self) -> None:
        if breaker_store.close(self.client, self.medium) and self.state is not None:
            log.warning("gateway %s: %s answering again after %s; delivering", self.medium, self.server,
                        span(int(time.time() - self.state.since)))
        self.state = None
        self._looked = time.monotonic()
