"""Delivery in batches: a gateway worker takes a batch of its medium's jobs, sends them over up to
`concurrency` connections at once, records each alert's status as soon as it is sent, then settles the batch's
rq jobs (finished, retried, failed) in one MULTI (flapjack_py.store.deliveries).

Why the guarantees hold: the jobs of a batch sit in rq's started registry under this worker's executions
while they are sent, so recover_abandoned (gateways/worker.py) retries them when the worker is killed; an
alert whose `delivered` status was recorded is skipped on that retry, so a kill duplicates at most the
alerts accepted by the server in the instant before their status was written. The senders of a worker take
turns from a send's point of no return (the end of an SMTP DATA; an HTTP request) to its recorded status
(Gateway.commit), so that is one alert per kill however many connections send at once; a far end that takes
an alert sent twice as one (PagerDuty's dedup_key) is sent to without turns.

A failed try is retried until the alert is `retry_max_age` old (flapjack_py.model.delivery.RetryPolicy), not
for a count of tries: rq's count of tries left is kept at one or more meanwhile, then the alert fails with its
last error and its job goes to rq's failed registry. While the server refuses every try, the medium's breaker
(gateways/breaker.py) holds the jobs instead; `fail_expired` fails the held ones that grew too old.
"""

from __future__ import annotations

import logging
import queue as threading_queue
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from rq import Queue
from rq.job import Job

from flapjack_py.errors import InvalidAlert
from flapjack_py.model.alert import Alert, alert_from_json
from flapjack_py.model.delivery import FALLBACK_INTERVAL, RetryPolicy
from flapjack_py.store import alerts as alert_store
from flapjack_py.store import deliveries
from flapjack_py.store.alerts import AlertStatus, StatusFields
from flapjack_py.store.deliveries import Settle, Settled, Taken
from flapjack_py.store.plumbing.client import StrRedis

from . import base
from .breaker import TRIP_AFTER, Breaker, Tally

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
        if self.extra:  # at most one alert at a time between its point of no return and its recorded status
            commit = threading.Lock()
            for sender in (gateway, *self.extra):
                sender.commit = commit
        self.idle: threading_queue.SimpleQueue[base.Gateway] = threading_queue.SimpleQueue()
        for sender in (gateway, *self.extra):
            self.idle.put(sender)
        self.pool = ThreadPoolExecutor(concurrency, thread_name_prefix=gateway.medium) if self.extra else None
        self.recording = threading.Lock()
        """Taken by a sender's thread to record a status: the worker's Redis pool then needs no connection per
        sender (its open connections stay as few as with one sender; the soak checks open files)."""
        self.policy = RetryPolicy.of(gateway.settings)

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


def deliver_batch(rq_queue: Queue, worker_name: str, senders: Senders, store: StrRedis, wait: int = 0,
                  breaker: Breaker | None = None, probe: bool = False) -> int:
    """Take a batch of jobs off `rq_queue` (blocking up to `wait` s for the first; with `probe`, one job),
    deliver and settle them, `breaker` told how the tries went; return how many jobs were taken (0: the queue
    was empty)."""
    # a kill takes back every job of the batch: without retries each would fail, so take only those sent at once
    per_sender = BATCH_PER_SENDER if senders.policy.retries else 1
    job_ids = deliveries.take_job_ids(rq_queue, 1 if probe else per_sender * senders.concurrency, wait)
    if not job_ids:
        return 0
    taken = deliveries.start_jobs(rq_queue, job_ids, worker_name, JOB_TTL)
    alerts = {item.job_id: _alert_of(item) for item in taken}
    previous = alert_store.load_statuses(store, [job_id for job_id, alert in alerts.items() if alert is not None])
    tally = Tally(TRIP_AFTER if breaker is not None and breaker.enabled else 0)

    changes: list[alert_store.StatusChange] = []
    kept: dict[str, float | None] = {}  # job id of a failed try that is retried -> the far end's Retry-After (s)

    def deliver_one(sender: base.Gateway, item: Taken) -> Settled:
        alert = alerts[item.job_id]
        if isinstance(alert, InvalidAlert):
            return Settled(item, Settle.RETRY, base.describe(alert))
        if tally.stopped:  # the server refused the batch's last tries: hold the rest untried
            return Settled(item, Settle.HOLD)
        settled, outcome, change = _deliver(sender, item, alert, previous.get(alert["id"]), store, senders)
        tally.add(item.job_id, outcome)
        if settled.how is Settle.RETRY:
            kept[item.job_id] = outcome.retry_after
        if change is not None:
            changes.append(change)  # list.append is atomic: the senders' threads share the list
        return settled

    settled = senders.map(deliver_one, taken)
    if breaker is not None:
        settled = breaker.after(settled, tally, probe)
    _prepare_retries(rq_queue, settled, kept)
    deliveries.settle_jobs(rq_queue, settled, worker_name, lambda pipe: alert_store.count_statuses(pipe, changes))
    return len(job_ids)


def fail_expired(rq_queue: Queue, worker_name: str, store: StrRedis, policy: RetryPolicy, fallback_error: str) -> int:
    """Fail the jobs waiting on `rq_queue` (held while the server refuses) that were queued `retry_max_age` ago or
    more: each alert `failed` with its last error (`fallback_error`, the server's refusal, when it was never
    tried), each job into rq's failed registry. Returns how many."""
    if not policy.retries:
        return 0
    now = time.time()
    old = [job_id for job_id, queued_at in deliveries.queued_times(rq_queue) if policy.expired(queued_at, now)]
    taken = deliveries.start_jobs(rq_queue, deliveries.take_queued(rq_queue, old), worker_name, JOB_TTL)
    if not taken:
        return 0
    errors = alert_store.load_errors(store, [item.job_id for item in taken])
    settled = []
    for item in taken:
        error = errors.get(item.job_id) or fallback_error
        base.record_failed_job(store, item.job_id, item.payload, error)
        settled.append(Settled(item, Settle.FAILED, _expired_reason(policy, error)))
    deliveries.settle_jobs(rq_queue, settled, worker_name)
    log.warning("gateway %s: %d alert(s) waited longer than retry_max_age (%d s): failed", rq_queue.name,
                len(taken), policy.max_age)
    return len(taken)


def stretch_next_interval(job: Job, seconds: float) -> None:
    """Make the job's next retry interval at least `seconds` (honouring Retry-After)."""
    intervals = list(job.retry_intervals or [0])
    index = max(len(intervals) - (job.retries_left or 0), 0)
    index = min(index, len(intervals) - 1)
    # rq schedules to the whole second, rounding down: one more second keeps the retry after Retry-After
    intervals[index] = max(int(intervals[index]), int(seconds + 0.999) + 1)
    job.retry_intervals = intervals
    log.info("alert %s: next try in %ss (Retry-After)", job.id, intervals[index])


def keep_retrying(job: Job, policy: RetryPolicy, now: float) -> bool:
    """Whether a failed try of `job` is tried again (its age, not a count of tries, says); when it is, rq's count of
    tries left is kept at one or more (and a job written without intervals gets one), so rq's retry takes it."""
    queued_at = job.created_at.timestamp() if job.created_at else None
    if not policy.keep_trying(queued_at, now):
        return False
    _keep(job)
    return True


def _keep(job: Job) -> None:
    """rq's count of tries left kept at one or more, and intervals given to a job written without them."""
    job.retries_left = max(job.retries_left or 0, 1)
    job.retry_intervals = job.retry_intervals or [FALLBACK_INTERVAL]


def _prepare_retries(rq_queue: Queue, settled: list[Settled], kept: dict[str, float | None]) -> None:
    """Load rq's Job of each job retried (one round trip, none when all were delivered); a failed try that is
    `kept` (it was not the last: its age said so) keeps its job retrying, its next interval stretched to the far
    end's Retry-After. A malformed alert's job is retried as it was written (rq's count of tries)."""
    retried = [item.taken for item in settled if item.how is Settle.RETRY]
    deliveries.load_jobs(rq_queue, retried)
    for taken in retried:
        if taken.job is not None and taken.job_id in kept:
            _keep(taken.job)
            seconds = kept[taken.job_id]
            if seconds:
                stretch_next_interval(taken.job, seconds)


def _deliver(sender: base.Gateway, item: Taken, alert: Alert, previous: StatusFields | None, store: StrRedis,
             senders: Senders) -> tuple[Settled, base.Outcome, alert_store.StatusChange | None]:
    """Send one alert of a batch and record its status at once (its metrics are counted when the batch is
    settled); how its job ends, how the try went, and the status change."""
    policy = senders.policy
    keep = policy.keep_trying(item.created_at, time.time())
    sender.store = store  # chat gateways remember the messages they post
    try:
        outcome = base.attempt(sender, alert, previous.status if previous else None, last_try=not keep)
        with senders.recording:
            change = None if outcome.skipped else base.record_outcome(store, alert["id"], previous, outcome)
    finally:
        sender.recorded()
    if outcome.gave_up and policy.retries:  # retried for retry_max_age: into rq's failed registry
        return Settled(item, Settle.FAILED, _expired_reason(policy, outcome.error or "")), outcome, change
    if outcome.status != AlertStatus.QUEUED:
        return Settled(item, Settle.FINISHED, outcome.status), outcome, change
    return Settled(item, Settle.RETRY, f"DeliveryFailed: {outcome.error}"), outcome, change


def _expired_reason(policy: RetryPolicy, error: str) -> str:
    """The failed registry's text for an alert not delivered within retry_max_age."""
    return f"not delivered within retry_max_age ({policy.max_age} s): {error}"


def _alert_of(item: Taken) -> Alert | InvalidAlert:
    """The alert a job's payload holds, or the InvalidAlert naming its faults."""
    if item.error is not None:  # its data could not be read
        return InvalidAlert([item.error], item.job_id)
    try:
        return alert_from_json(item.payload)
    except InvalidAlert as exc:
        log.error("alert %s: %s", item.job_id, exc, extra={"alert_id": item.job_id})
        return exc
