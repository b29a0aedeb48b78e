"""The rq worker of a gateway: `deliver` (the job function) and `run_gateway` (`flapjack gateway NAME`).

One SimpleWorker per medium drains the rq queue named after it; the medium's
sender lives as long as the process, so connections are reused between alerts.
Retries are rq's (intervals set by flapjack_py.notify.enqueue), until the alert is
`retry_max_age` old (gateways/batch.py); a `Retry-After` from the far end stretches
the next interval. While the server refuses, the medium's circuit breaker
(gateways/breaker.py) holds its jobs and probes. Jobs left in rq's started registry by
a worker that died (SIGKILL) are retried, or failed when too old, when a
worker starts and at every maintenance round. rq's public API only: the writes
that take a job back are flapjack_py.store.recovery's.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import socket
import threading
import time
import uuid
import weakref
from collections.abc import Callable, Iterator
from types import FrameType
from typing import Any

import redis
from rq import Queue, SimpleWorker, get_current_job
from rq.exceptions import AbandonedJobError, InvalidJobOperation, NoSuchJobError
from rq.executions import Execution
from rq.job import Job
from rq.registry import ScheduledJobRegistry, StartedJobRegistry
from rq.serializers import JSONSerializer

from flapjack_py.config.settings import Config, read_config_file
from flapjack_py.model.alert import alert_from_json
from flapjack_py.model.delivery import RetryPolicy
from flapjack_py.model.heartbeat import Heartbeat
from flapjack_py.runtime.connection import clients_for, open_clients
from flapjack_py.store import alerts as alert_store
from flapjack_py.store import deliveries, recovery
from flapjack_py.store.alerts import AlertStatus
from flapjack_py.store.deliveries import Settle, Settled, Taken
from flapjack_py.store.plumbing.client import BytesRedis, Clients, StrRedis
from flapjack_py.store.plumbing.processes import pid_alive

from . import base
from .batch import CONCURRENCY, Senders, deliver_batch, fail_expired, keep_retrying, stretch_next_interval
from .breaker import POLL, Breaker
from .liveness import alive

log = logging.getLogger(__name__)

BURST_WAIT = 60.0
"""Longest wait (s) in burst mode for a scheduled retry to fall due (setting `burst_wait`)."""
BURST_ROUNDS = 100
"""Upper bound on work/wait rounds in burst mode."""
INTERMEDIATE_GRACE = 3.0
"""Seconds a job may sit in rq's intermediate list, unstarted, before it is put back."""
SCHEDULE_TICK = 1.0
"""Seconds between moves of due retries back onto the queue."""
WORKER_TTL = 60
"""rq worker heartbeat TTL, seconds (the worker wakes every WORKER_TTL - 15 s when idle)."""
MAINTENANCE_INTERVAL = 60
"""Seconds between rq maintenance rounds (registry cleanup + our abandoned-job recovery)."""
HEARTBEAT_EVERY = 5.0
"""Seconds between the rq worker heartbeats of a delivering worker (and checks for a maintenance round)."""
IDLE_WAIT = 1
"""Seconds a worker blocks on its empty queue before it looks at its heartbeat and stop flag again."""
SWEEP_EVERY = 5.0
"""Seconds between a waiting worker's looks for held alerts older than retry_max_age (while the breaker is open)."""
ABANDONED_REASON = "worker died while delivering"

_gateways: dict[str, base.Gateway] = {}
"""The senders of this process, by medium: set up by run_gateway, or lazily by deliver()."""

_store_clients: weakref.WeakKeyDictionary[Any, StrRedis] = weakref.WeakKeyDictionary()
"""The str client (for store/) that goes with each bytes connection rq runs jobs on: the process's own pair,
registered where it is composed (use_clients), else made once for a plain rq worker's connection."""


def deliver(payload: object) -> str:
    """rq job function: deliver one alert (its decoded JSON payload, checked here: InvalidAlert when malformed)
    through its medium's gateway; return the status."""
    job = get_current_job()
    assert job is not None, "deliver() runs inside an rq job"
    alert = alert_from_json(payload)
    gateway = _gateway_for(alert["media"])
    keep = keep_retrying(job, RetryPolicy.of(gateway.settings), time.time())
    try:
        return base.deliver_alert(gateway, alert, _store_client(job.connection), last_try=not keep)
    except base.DeliveryFailed as exc:
        if exc.retry_after:
            stretch_next_interval(job, exc.retry_after)
        raise


def run_gateway(name: str, config: Config, burst: bool = False) -> int:
    """Run the worker of gateway `name` until stopped (or, with burst, until its queue is done); exit code.

    Raises ConfigError (naming the key) when the gateway is not configured or
    misses a required setting. A medium module with `run(config, burst)`
    (jabber) takes over the process.
    """
    runner = _module_runner(name)
    if runner is not None:
        return _run_module(runner, name, config, burst)
    gateway = base.open_gateway(name, config)
    clients, embedded = open_clients(config)
    use_clients(clients)
    _gateways[name] = gateway
    senders = Senders(gateway, int(gateway.settings.get("concurrency", CONCURRENCY)))
    breaker = Breaker(clients.text, name, gateway.server, senders.policy.retries)
    stop_polling = threading.Event()
    try:
        worker = make_worker(clients.raw, name)
        recover_abandoned(clients.raw, name)
        log.info("gateway %s: worker %s started, %d connection(s)%s", name, worker.name, senders.concurrency,
                 " (burst)" if burst else "")
        if burst:
            _poll_once(gateway, clients.text)
            _work_burst(worker, senders, breaker, float(gateway.settings.get("burst_wait", BURST_WAIT)))
            return 0
        _start_poller(gateway, clients.text, stop_polling)
        _every(SCHEDULE_TICK, lambda: _tick(worker.queues[0]), stop_polling, f"{name}-retries")
        with alive(clients.text, config, name) as beat:
            _work_until_stopped(worker, senders, breaker, beat)
        return 0
    finally:
        stop_polling.set()
        _gateways.pop(name, None)
        senders.close()
        gateway.close()
        if embedded:
            embedded.stop()


def use_clients(clients: Clients) -> None:
    """Record alert statuses of jobs run on `clients.raw` through `clients.text` (where a process is composed)."""
    _store_clients[clients.raw] = clients.text


def make_worker(client: BytesRedis, medium: str) -> GatewayWorker:
    """An rq SimpleWorker on the medium's queue (JSON serializer) with the abandoned-job handling."""
    queue = Queue(medium, connection=client, serializer=JSONSerializer)
    return GatewayWorker([queue], connection=client, serializer=JSONSerializer, name=worker_name(medium),
                         exception_handlers=[_on_abandoned], worker_ttl=WORKER_TTL,
                         maintenance_interval=MAINTENANCE_INTERVAL)


def worker_name(medium: str) -> str:
    """`flapjack-<medium>@<host>:<pid>:<random>`: recovery reads the host and pid back."""
    return f"flapjack-{medium}@{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:6]}"


def recover_abandoned(client: BytesRedis, medium: str) -> int:
    """Retry (or fail, when out of tries) jobs started by a dead worker of this host; return how many."""
    registry = StartedJobRegistry(medium, connection=client, serializer=JSONSerializer)
    queue = Queue(medium, connection=client, serializer=JSONSerializer)
    count = recover_intermediate(queue)
    for job_id, execution_id in registry.get_job_and_execution_ids(cleanup=False):
        try:
            execution = Execution.fetch(execution_id, job_id, client)
        except (NoSuchJobError, ValueError):
            execution = Execution(execution_id, job_id, client)
        if not _worker_dead(client, execution.worker_name):
            continue
        _requeue_or_fail(client, registry, execution, queue, job_id)
        count += 1
    return count


class GatewayWorker(SimpleWorker):
    """rq's in-process worker, also recovering abandoned jobs at every maintenance round and
    counting the jobs it ran into its Heartbeat."""

    liveness: Heartbeat | None = None  # ours; rq has heartbeat()
    stopping = False  # ours: a stop was asked for (SIGTERM/SIGINT); rq keeps its own flag private

    def perform_job(self, job: Job, queue: Queue) -> bool:
        try:
            return bool(super().perform_job(job, queue))
        finally:
            if self.liveness is not None:
                self.liveness.done(1, time.time())

    def run_maintenance_tasks(self) -> None:
        for queue in self.queues:
            recover_abandoned(self.connection, queue.name)
        super().run_maintenance_tasks()  # type: ignore[no-untyped-call]  # rq's method has no annotations

    def request_stop(self, signum: int, frame: FrameType | None) -> None:
        self.stopping = True
        super().request_stop(signum, frame)  # type: ignore[no-untyped-call]  # rq's method has no annotations


# --- private helpers ---------------------------------------------------------


def _module_runner(name: str) -> Callable[[Config, bool], int] | None:
    """The medium's own long-lived loop (its declaration's `run`: jabber), else None; ConfigError when there is
    no such gateway."""
    return base.declaration(name).run


def _work_until_stopped(worker: GatewayWorker, senders: Senders, breaker: Breaker, beat: Heartbeat) -> None:
    """Deliver batches until SIGTERM/SIGINT; when Redis is lost (e.g. during a Sentinel failover) start a
    fresh worker after a back-off, so the process, its heartbeat and its watchdog live on."""
    backoff = 1.0
    _stop_on_signals(worker)
    while True:
        worker.liveness = beat
        try:
            _run_batches(worker, senders, breaker, burst=False)
            return
        except redis.ConnectionError as exc:
            log.error("gateway %s: lost Redis (%s); starting the worker again in %.0fs", beat.medium, exc, backoff)
        time.sleep(backoff)
        if worker.stopping:  # SIGTERM while waiting: rq's handler asked this worker to stop
            return
        backoff = min(backoff * 2, 30.0)
        worker = make_worker(worker.connection, worker.queues[0].name)


def _run_module(runner: Any, name: str, config: Config, burst: bool) -> int:
    """Hand the process to a medium's own loop (jabber), with a heartbeat and watchdog unless bursting."""
    if burst:
        return int(runner(config, burst))
    clients, embedded = open_clients(config)
    try:
        with alive(clients.text, config, name):
            return int(runner(config, burst))
    finally:
        if embedded:
            embedded.stop()


def _poll_once(gateway: base.Gateway, client: StrRedis) -> None:
    if gateway.poll_interval > 0:
        try:
            gateway.poll(client)
        except Exception:  # noqa: BLE001 -- one poll round is a loop boundary
            log.exception("gateway %s: poll failed", gateway.medium)


def _start_poller(gateway: base.Gateway, client: StrRedis, stop: threading.Event) -> None:
    """Call poll() every poll_interval s in a daemon thread, on a second instance (own HTTP session)."""
    if gateway.poll_interval <= 0:
        return
    poller = type(gateway)(gateway.settings)
    _every(poller.poll_interval, lambda: _poll_once(poller, client), stop, f"{gateway.medium}-poller")


def _every(interval: float, action: Any, stop: threading.Event, name: str) -> None:
    """Run `action` every `interval` s in a daemon thread until `stop` is set (dies with the process)."""
    def loop() -> None:
        while not stop.wait(interval):
            try:
                action()
            except Exception:  # noqa: BLE001 -- one round is a loop boundary
                log.exception("%s: round failed", name)

    threading.Thread(target=loop, name=name, daemon=True).start()


def _store_client(connection: Any) -> StrRedis:
    """The str client that goes with rq's bytes `connection` (see _store_clients)."""
    found = _store_clients.get(connection)
    if found is None:  # a plain rq worker, not started by run_gateway: its connection is all there is
        found = _store_clients[connection] = clients_for(connection).text
    return found


def _gateway_for(medium: str) -> base.Gateway:
    """This process's sender of a medium, built from FLAPJACK_CONFIG when a plain rq worker runs the job."""
    gateway = _gateways.get(medium)
    if gateway is None:
        gateway = _gateways[medium] = base.open_gateway(medium, read_config_file(None))
    return gateway


def _run_batches(worker: GatewayWorker, senders: Senders, breaker: Breaker, *, burst: bool,
                 burst_wait: float = 0.0) -> None:
    """Deliver batches of the worker's queue until it is stopped (or, with burst, until the queue is empty, or
    the breaker's next probe is more than `burst_wait` s away), registered as an rq worker (heartbeat,
    maintenance rounds) meanwhile."""
    rq_queue, store = worker.queues[0], _store_client(worker.connection)
    worker.register_birth()  # type: ignore[no-untyped-call]  # rq's method has no annotations
    try:
        last_beat = last_sweep = 0.0
        while not worker.stopping:
            if time.monotonic() - last_beat > HEARTBEAT_EVERY:
                worker.heartbeat()
                last_beat = time.monotonic()
                if worker.should_run_maintenance_tasks:
                    worker.run_maintenance_tasks()
            admit = breaker.admit()
            if admit.wait:  # the server refuses: hold the jobs, fail those too old
                if time.monotonic() - last_sweep > SWEEP_EVERY and breaker.state is not None:
                    fail_expired(rq_queue, worker.name, store, senders.policy, breaker.state.error)
                    last_sweep = time.monotonic()
                if burst and (admit.wait > burst_wait or not rq_queue.count):
                    return
                time.sleep(min(admit.wait, POLL))
                continue
            taken = deliver_batch(rq_queue, worker.name, senders, store, 0 if burst else IDLE_WAIT, breaker,
                                  admit.probe)
            if admit.probe and not taken:
                breaker.release()
            if taken and worker.liveness is not None:
                worker.liveness.done(taken, time.time())
            if burst and not taken:
                return
    finally:
        with contextlib.suppress(redis.RedisError):
            worker.register_death()  # type: ignore[no-untyped-call]  # rq's method has no annotations


def _stop_on_signals(worker: GatewayWorker) -> None:
    """SIGTERM/SIGINT: finish the batch in hand, then stop (the main thread only: signals go there)."""
    if threading.current_thread() is not threading.main_thread():
        return
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda _signum, _frame: setattr(worker, "stopping", True))


def _work_burst(worker: GatewayWorker, senders: Senders, breaker: Breaker, burst_wait: float) -> None:
    """Deliver what is queued, waiting (at most burst_wait s each time) for scheduled retries to fall due and
    for the breaker's probes."""
    queue = worker.queues[0]
    for _ in range(BURST_ROUNDS):
        _run_batches(worker, senders, breaker, burst=True, burst_wait=burst_wait)
        due = _next_due(queue.scheduled_job_registry)
        if due is None or due - time.time() > burst_wait:
            return
        time.sleep(max(due - time.time(), 0.0))
        enqueue_due(queue)
        worker = make_worker(worker.connection, queue.name)


def _next_due(scheduled: ScheduledJobRegistry) -> float | None:
    """When (epoch seconds) the earliest scheduled retry falls due; None when none is scheduled."""
    for job_id in scheduled.get_job_ids(0, 0, cleanup=False):
        try:
            return scheduled.get_scheduled_time(job_id).timestamp()
        except NoSuchJobError:  # another worker enqueued it meanwhile: look again at once
            return time.time()
    return None


def _tick(queue: Queue) -> None:
    enqueue_due(queue)
    recover_intermediate(queue)


def recover_intermediate(queue: Queue) -> int:
    """Put back jobs stuck in rq's intermediate list (taken by a worker killed before it registered them).

    A job id seen there twice, INTERMEDIATE_GRACE s apart, and not started, is pushed back on the queue.
    """
    started = set(StartedJobRegistry(queue.name, connection=queue.connection,
                                     serializer=JSONSerializer).get_job_ids(cleanup=False))
    stuck = queue.intermediate_queue
    moved = 0
    for job_id in stuck.get_job_ids():
        if job_id in started or stuck.set_first_seen(job_id):
            continue
        first_seen = stuck.get_first_seen(job_id)
        if first_seen and time.time() - first_seen.timestamp() > INTERMEDIATE_GRACE:
            if recovery.requeue_stuck(queue, job_id):
                log.warning("alert %s: taken by a worker that died before starting it; requeued", job_id)
                moved += 1
    return moved


def enqueue_due(queue: Queue) -> int:
    """Move scheduled retries that are due back onto the queue; return how many.

    rq's scheduler does this in a process it forks, under a per-queue lock that a SIGKILLed worker leaves
    held for a minute; every worker does it here instead, at each SCHEDULE_TICK. rq's
    `ScheduledJobRegistry.requeue` claims each job (its ZREM) before enqueueing it, so workers doing this at
    once never enqueue a job twice.
    """
    scheduled = queue.scheduled_job_registry
    moved = 0
    for job_id in scheduled.get_jobs_to_schedule(int(time.time())):
        try:
            scheduled.requeue(job_id)
        except NoSuchJobError:  # its job expired: drop the entry
            scheduled.remove(job_id)
        except InvalidJobOperation:  # another worker enqueued it first
            continue
        else:
            moved += 1
    return moved


def _worker_dead(client: BytesRedis, name: str) -> bool:
    """True when worker `name` is surely gone: same host and its pid is not running."""
    _, _, where = name.partition("@")
    host, _, rest = where.partition(":")
    pid = rest.partition(":")[0]
    if not name.startswith("flapjack-") or host != socket.gethostname() or not pid.isdigit():
        return False  # another host's worker: rq's own expiry of started jobs handles it
    if int(pid) == os.getpid():
        return True  # recovery runs before and between this process's jobs, never during one
    return not pid_alive(int(pid))


def _requeue_or_fail(client: BytesRedis, registry: StartedJobRegistry, execution: Execution, queue: Queue,
                     job_id: str) -> None:
    """Take a dead worker's execution of job `job_id` back: the job retried, or failed when out of tries."""
    try:
        job: Job | None = Job.fetch(job_id, connection=client, serializer=JSONSerializer)
    except NoSuchJobError:
        job = None
    record = alert_store.load_statuses(_store_client(client), [job_id])[job_id] if job is not None else None
    if job is not None and record is not None and record.status == AlertStatus.DELIVERED:
        # sent and recorded in a batch its worker did not settle: its metrics were not counted either
        log.info("alert %s: delivered by a worker that died before settling its job; finished", job_id)
        change = alert_store.StatusChange(record._replace(status=AlertStatus.QUEUED), AlertStatus.DELIVERED,
                                          float(record.delivered_at or time.time()))
        deliveries.settle_jobs(queue, [Settled(Taken.of(job, execution), Settle.FINISHED, AlertStatus.DELIVERED)],
                               execution.worker_name, lambda pipe: alert_store.count_statuses(pipe, [change]))
        return
    retry, reason = job is not None and _retry_abandoned(job, queue.name), ABANDONED_REASON
    if retry:
        log.warning("alert %s: %s; retrying", job_id, ABANDONED_REASON)
    elif job is not None:  # the alert first: should this process die before rq's writes, the next recovery redoes both
        reason = _abandoned_reason(client, job, queue.name)
        base.record_failed_job(_store_client(client), job_id, job.args[0] if job.args else None, reason)
    recovery.retry_or_fail_abandoned(registry, execution, queue, job, reason, retry)


def _policy_for(medium: str, job: Job) -> RetryPolicy:
    """The retry policy of this process's gateway of `medium`; without one, retries as the job was written with."""
    gateway = _gateways.get(medium)
    if gateway is not None:
        return RetryPolicy.of(gateway.settings)
    return RetryPolicy(retries=job.retries_left is not None or job.retry_intervals is not None)


def _retry_abandoned(job: Job, medium: str) -> bool:
    """Whether an abandoned job is tried again (its medium retries and it is younger than retry_max_age)."""
    return keep_retrying(job, _policy_for(medium, job), time.time())


def _abandoned_reason(client: BytesRedis, job: Job, medium: str) -> str:
    """Why an abandoned job that is not retried fails: its worker died, or (retried too long) its alert's last error."""
    if not _policy_for(medium, job).retries:
        return ABANDONED_REASON
    return alert_store.load_errors(_store_client(client), [job.id]).get(job.id) or ABANDONED_REASON


def _on_abandoned(job: Job, exc_type: type, exc_value: BaseException, tb: Any) -> bool:
    """rq exception handler: when rq itself gives up an abandoned job, mark its alert failed."""
    if exc_type is not AbandonedJobError:
        return True
    if _retry_abandoned(job, job.origin):  # tries left now (rq retries it when it has)
        return True
    job.retries_left = 0  # too old: rq fails it
    if job.args:
        base.record_failed_job(_store_client(job.connection), job.id, job.args[0],
                               _abandoned_reason(job.connection, job, job.origin))
    return True


@contextlib.contextmanager
def active_gateway(gateway: base.Gateway) -> Iterator[base.Gateway]:
    """Use `gateway` for its medium's jobs run in this process (tests, embedders)."""
    previous = _gateways.get(gateway.medium)
    _gateways[gateway.medium] = gateway
    try:
        yield gateway
    finally:
        if previous is None:
            _gateways.pop(gateway.medium, None)
        else:
            _gateways[gateway.medium] = previous
