"""Delivery in batches: a gateway worker takes a batch of its medium's jobs, sends them over up to
`concurrency` connections at once, records each alert's status as soon as it is sent, then settles the batch's
rq jobs (finished, retried, failed) in one MULTI (flapjack_py.store.deliveries).

Why the guarantees hold: the jobs of a batch sit in rq's started registry under this worker's executions
while they are sent, so recover_abandoned (gateways/worker.py) retries them when the worker is killed; an
alert whose `delivered` status was recorded is skipped on that retry, so a kill duplicates at most the
alerts accepted by the server in the instant before their status was written: one per connection at most
(so at most one per kill with the default concurrency of 1, up to `concurrency` otherwise).
"""

from __future__ import annotations

import logging
import queue as threading_queue
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from rq import Queue
from rq.job import Job

from flapjack_py.errors import InvalidAlert
from flapjack_py.model.alert import Alert, alert_from_json
from flapjack_py.store import alerts as alert_store
from flapjack_py.store import deliveries
from flapjack_py.store.alerts import AlertStatus, StatusFields
from flapjack_py.store.deliveries import Settle, Settled, Taken
from flapjack_py.store.plumbing.client import StrRedis

from . import base

log = logging.getLogger(__name__)

CONCURRENCY = 1
"""Alerts of one medium a worker sends at once, each over its own connection (setting `concurrency`)."""
BATCH_PER_SENDER = 8
"""Jobs a worker takes per batch, per connection: few enough that a kill retries little."""
JOB_TTL = 240
"""Seconds a started job of a batch may go without its worker settling it before rq counts it abandoned."""

T = TypeVar("T")


class Senders:
    """The senders of one medium in a worker: `gateway` and concurrency - 1 more (each its own connection),
    and the threads that use them at once."""

    def __init__(self, gateway: base.Gateway, concurrency: int) -> None:
        self.gateway = gateway
        self.extra = [type(gateway)(gateway.settings) for _ in range(concurrency - 1)]
        self.idle: threading_queue.SimpleQueue[base.Gateway] = threading_queue.SimpleQueue()
        for sender in (gateway, *self.extra):
            self.idle.put(sender)
        self.pool = ThreadPoolExecutor(concurrency, thread_name_prefix=gateway.medium) if self.extra else None

    @property
    def concurrency(self) -> int:
        return len(self.extra) + 1

    def map(self, action: Callable[[base.Gateway, Taken], T], items: list[Taken]) -> list[T]:
        """`action(sender, item)` for every item, at most `concurrency` at once, each on an idle sender."""
        if self.pool is None:
            return [action(self.gateway, item) for item in items]
        return list(self.pool.map(lambda item: self._on_idle(action, item), items))

    def close(self) -> None:
        """Close the extra senders and the threads (`gateway` is its owner's to close)."""
        if self.pool is not None:
            self.pool.shutdown()
        for sender in self.extra:
            sender.close()

    def _on_idle(self, action: Callable[[base.Gateway, Taken], T], item: Taken) -> T:
        sender = self.idle.get()
        try:
            return action(sender, item)
        finally:
            self.idle.put(sender)


def deliver_batch(rq_queue: Queue, worker_name: str, senders: Senders, store: StrRedis, wait: int = 0) -> int:
    """Take a batch of jobs off `rq_queue` (blocking up to `wait` s for the first), deliver and settle them;
    return how many jobs were taken (0: the queue was empty)."""
    # a kill takes back every job of the batch: without retries each would fail, so take only those sent at once
    per_sender = BATCH_PER_SENDER if int(senders.gateway.settings.get("retries", 3)) else 1
    job_ids = deliveries.take_job_ids(rq_queue, per_sender * senders.concurrency, wait)
    if not job_ids:
        return 0
    taken = deliveries.start_jobs(rq_queue, job_ids, worker_name, JOB_TTL)
    alerts = {item.job.id: _alert_of(item.job) for item in taken}
    previous = alert_store.load_statuses(store, [job_id for job_id, alert in alerts.items() if alert is not None])

    def deliver_one(sender: base.Gateway, item: Taken) -> Settled:
        alert = alerts[item.job.id]
        if isinstance(alert, InvalidAlert):
            return Settled(item, Settle.RETRY, base.describe(alert))
        return _deliver(sender, item, alert, previous.get(alert["id"]), store)

    deliveries.settle_jobs(rq_queue, senders.map(deliver_one, taken), worker_name)
    return len(job_ids)


def stretch_next_interval(job: Job, seconds: float) -> None:
    """Make the job's next retry interval at least `seconds` (honouring Retry-After)."""
    intervals = list(job.retry_intervals or [0])
    index = max(len(intervals) - (job.retries_left or 0), 0)
    index = min(index, len(intervals) - 1)
    # rq schedules to the whole second, rounding down: one more second keeps the retry after Retry-After
    intervals[index] = max(int(intervals[index]), int(seconds + 0.999) + 1)
    job.retry_intervals = intervals
    log.info("alert %s: next try in %ss (Retry-After)", job.id, intervals[index])


def _deliver(sender: base.Gateway, item: Taken, alert: Alert, previous: StatusFields | None,
             store: StrRedis) -> Settled:
    """Send one alert of a batch and record its status at once; how its job ends."""
    job = item.job
    sender.store = store  # chat gateways remember the messages they post
    outcome = base.attempt(sender, alert, previous.status if previous else None, last_try=not job.retries_left)
    if not outcome.skipped:
        base.record_outcome(store, alert["id"], previous, outcome)
    if outcome.status != AlertStatus.QUEUED:
        return Settled(item, Settle.FINISHED, outcome.status)
    if outcome.retry_after:
        stretch_next_interval(job, outcome.retry_after)
    return Settled(item, Settle.RETRY, f"DeliveryFailed: {outcome.error}")


def _alert_of(job: Job) -> Alert | InvalidAlert:
    """The alert a job's payload holds, or the InvalidAlert naming its faults."""
    try:
        return alert_from_json(job.args[0] if job.args else None)
    except InvalidAlert as exc:
        log.error("alert %s: %s", job.id, exc, extra={"alert_id": job.id})
        return exc
    except Exception as exc:  # noqa: BLE001 -- a job whose data rq cannot decode fails itself, not the batch
        return InvalidAlert([f"undecodable job data: {type(exc).__name__}: {exc}"], job.id)
