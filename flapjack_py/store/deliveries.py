"""Delivery jobs taken and settled in batches: rq's own structures, a few round trips per batch.

A batch is taken off a medium's queue into rq's intermediate list (each id moves atomically, so a worker
killed here leaves them where gateways/worker.py's recover_intermediate finds them), then started in one Lua
call that also removes them from the intermediate list: rq's Execution per job, named after the worker, in
rq's started registry, the job marked started, as rq's worker writes them (Execution.create,
Job.prepare_for_execution), so recover_abandoned finds them when the worker dies. After delivery the batch is
settled in one MULTI: each job finished (one Lua call for the batch, writing what rq's worker writes when a
job's function returned), retried (rq's retry: scheduled after its interval, or queued), moved to rq's failed
registry, or put back on its queue as it was (held while the medium's server refuses: no retry spent), its
execution removed. The key names come from rq's own classes (JobKeys); tests/store/test_deliveries_as_rq.py
compares the Lua writes with rq's, field by field.

Why not rq's objects per job: building an rq Job and Execution and their ~20 commands cost ~150 us of the
worker's CPU per alert, more than sending it. The rq Job of a job is loaded (load_jobs) only when it is not
simply finished: retried, failed or held.
"""

from __future__ import annotations

import logging
import uuid
import zlib
from base64 import b64encode
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum

from redis.client import Pipeline
from rq import Queue
from rq.executions import Execution, ExecutionRegistry
from rq.job import Job, JobStatus
from rq.results import Result
from rq.utils import now, utcformat, utcparse

from flapjack_py.store.plumbing import scripts
from flapjack_py.store.queues import RESULT_TTL

log = logging.getLogger(__name__)

_JOB, _EXECUTION = "FLAPJACK_JOB_ID", "FLAPJACK_EXECUTION_ID"
"""Placeholders the per-job key names are made from (JobKeys)."""


class Settle(StrEnum):
    """What becomes of a job of a batch."""

    FINISHED = "finished"
    RETRY = "retry"
    FAILED = "failed"
    HOLD = "hold"
    """Back to the front of its queue, in the batch's order, no retry spent (not tried, or refused with the rest)."""
    REQUEUE = "requeue"
    """Back to the end of its queue, no retry spent (a refused probe: the next probe sends another alert)."""


@dataclass
class Taken:
    """A job of a batch, started under execution `execution_id` at `started_at` (unix time): its argument
    (`payload`: the alert record, None when its data could not be read, `error` saying why), when it was
    queued, its result TTL; and rq's Job once loaded (load_jobs)."""

    job_id: str
    execution_id: str
    started_at: float
    payload: object = None
    error: str | None = None
    created_at: float | None = None
    result_ttl: int | None = None
    job: Job | None = None

    @classmethod
    def of(cls, job: Job, execution: Execution) -> Taken:
        """A job rq's objects hold (a dead worker's execution, taken back)."""
        return cls(job.id, execution.id, execution.created_at.timestamp(), job.args[0] if job.args else None,
                   created_at=job.created_at.timestamp() if job.created_at else None, result_ttl=job.result_ttl,
                   job=job)

    def execution(self, queue: Queue, worker_name: str) -> Execution:
        """rq's Execution of this job of `queue` (for rq's own writes)."""
        execution = Execution(self.execution_id, self.job_id, queue.connection, worker_name=worker_name)
        execution.created_at = datetime.fromtimestamp(self.started_at, UTC)
        return execution


@dataclass
class Settled:
    """A job's end in its batch: how, and its result (finished) or the failure text (rq's exc_string)."""

    taken: Taken
    how: Settle
    reason: str = ""


class JobKeys:
    """The names of rq's keys for the jobs of one queue, as rq's classes make them (once, with placeholders)."""

    def __init__(self, queue: Queue) -> None:
        job = Job(_JOB, connection=queue.connection)
        execution = Execution(_EXECUTION, _JOB, queue.connection)
        self.started = queue.started_job_registry.key
        self.finished = queue.finished_job_registry.key
        self.intermediate = queue.intermediate_queue_key
        results = Result.get_key(_JOB)  # type: ignore[no-untyped-call]  # rq's method has no annotations
        self._per_job = (Job.key_for(_JOB), execution.key, ExecutionRegistry(_JOB, queue.connection).key,
                         results, job.dependents_key, job.dependencies_key)

    def of(self, job_id: str, execution_id: str) -> list[str]:
        """Job hash, execution hash, execution registry, results stream, dependents, dependencies keys of a job."""
        return [key.replace(_JOB, job_id).replace(_EXECUTION, execution_id) for key in self._per_job]


_job_keys: dict[str, JobKeys] = {}


def job_keys(queue: Queue) -> JobKeys:
    """The JobKeys of `queue` (made once per queue name: rq's key names do not depend on the connection)."""
    found = _job_keys.get(queue.name)
    if found is None:
        found = _job_keys[queue.name] = JobKeys(queue)
    return found


def take_job_ids(queue: Queue, count: int, wait: int = 0) -> list[str]:
    """Move up to `count` job ids from the front of `queue` into its intermediate list; their ids.

    With `wait` > 0 and the queue empty, block up to `wait` s for the first (BLMOVE), then take the rest."""
    connection = queue.connection
    first: list[bytes | str | None] = []
    if wait > 0:
        first = [connection.blmove(queue.key, queue.intermediate_queue_key, wait, "LEFT", "RIGHT")]
        if first[0] is None:
            return []
        count -= 1
    with connection.pipeline(transaction=False) as pipe:
        for _ in range(count):
            pipe.lmove(queue.key, queue.intermediate_queue_key, "LEFT", "RIGHT")
        moved = first + (pipe.execute() if count > 0 else [])
    return [_text(job_id) for job_id in moved if job_id is not None]


def start_jobs(queue: Queue, job_ids: Sequence[str], worker_name: str, ttl: int) -> list[Taken]:
    """Start the jobs `job_ids` (in `queue`'s intermediate list) under executions of `worker_name` in one Lua call
    (scripts.START_JOBS), removing them from the intermediate list; ids whose job hash is gone are just removed.
    The started jobs."""
    if not job_ids:
        return []
    keys = job_keys(queue)
    started = now()
    stamp = started.timestamp()
    script_keys, args = [keys.intermediate, keys.started], [worker_name, ttl, repr(stamp), utcformat(started),
                                                            int(stamp)]
    execution_ids = {job_id: uuid.uuid4().hex for job_id in job_ids}
    for job_id, execution_id in execution_ids.items():
        script_keys += keys.of(job_id, execution_id)[:3]
        args += [job_id, execution_id]
    replies = queue.connection.register_script(scripts.START_JOBS)(keys=script_keys, args=args)
    taken: list[Taken] = []
    for reply in replies:
        job_id = _text(reply[0])
        if len(reply) == 1:
            log.warning("alert %s: its job is gone; dropped from the queue", job_id)
            continue
        item = Taken(job_id, execution_ids[job_id], stamp, created_at=_time(reply[2]),
                     result_ttl=int(reply[3]) if reply[3] else None)
        try:
            _, _, job_args, _ = queue.serializer.loads(zlib.decompress(reply[1]))
            item.payload = job_args[0] if job_args else None
        except Exception as exc:  # noqa: BLE001 -- a job whose data cannot be read fails itself, not the batch
            item.error = f"undecodable job data: {type(exc).__name__}: {exc}"
        taken.append(item)
    return taken


def load_jobs(queue: Queue, taken: Sequence[Taken]) -> None:
    """Load rq's Job of each of `taken` that has none yet (one round trip)."""
    missing = [item for item in taken if item.job is None]
    if missing:
        jobs = Job.fetch_many([item.job_id for item in missing], connection=queue.connection,
                              serializer=queue.serializer)
        for item, job in zip(missing, jobs, strict=True):
            item.job = job


def settle_jobs(queue: Queue, settled: Sequence[Settled], worker_name: str,
                also: Callable[[Pipeline], None] | None = None) -> None:
    """End every job of a batch in one MULTI: finished (result kept for its result_ttl: scripts.FINISH_JOBS),
    retried, failed into rq's failed registry with its reason, or put back on the queue (held, requeued); each
    execution removed from the started registry. Jobs not simply finished need rq's Job (load_jobs: loaded
    here when the caller did not). `also` adds its writes to the same MULTI (the batch's alert metrics)."""
    finished = [item for item in settled if item.how is Settle.FINISHED and _result_ttl(item.taken) > 0]
    others = [item for item in settled if not (item.how is Settle.FINISHED and _result_ttl(item.taken) > 0)]
    load_jobs(queue, [item.taken for item in others])
    ended = now()
    held: list[str] = []
    with queue.connection.pipeline() as pipe:
        if finished:
            _finish_all(queue, finished, worker_name, ended, pipe)
        for item in others:
            job, execution = item.taken.job, item.taken.execution(queue, worker_name)
            if job is None:  # its hash is gone: only the execution goes
                queue.started_job_registry.remove_execution(execution, pipeline=pipe)
                pipe.delete(execution.key)
                continue
            job.ended_at = ended
            execution.delete(job=job, pipeline=pipe)
            if item.how is Settle.FINISHED:
                _finish(job, execution, worker_name, item.reason, pipe)
            elif item.how is Settle.RETRY and job.retries_left:
                job.retry(queue, pipe)
            elif item.how in (Settle.HOLD, Settle.REQUEUE):
                job.set_status(JobStatus.QUEUED, pipeline=pipe)
                if item.how is Settle.HOLD:
                    held.append(job.id)
                else:
                    pipe.rpush(queue.key, job.id)
            else:
                _fail(job, execution, worker_name, item.reason, pipe)
        if held:
            pipe.lpush(queue.key, *reversed(held))
        if also is not None:
            also(pipe)
        pipe.execute()


def queued_times(queue: Queue, chunk: int = 1000) -> list[tuple[str, float | None]]:
    """Every job on `queue` with the time (unix) it was queued, its job hash's `created_at` (None: unknown)."""
    connection = queue.connection
    found: list[tuple[str, float | None]] = []
    job_ids = [_text(job_id) for job_id in connection.lrange(queue.key, 0, -1)]
    for start in range(0, len(job_ids), chunk):
        part = job_ids[start:start + chunk]
        with connection.pipeline(transaction=False) as pipe:
            for job_id in part:
                pipe.hget(Job.key_for(job_id), "created_at")
            found += zip(part, (_time(value) for value in pipe.execute()), strict=True)
    return found


def take_queued(queue: Queue, job_ids: Sequence[str]) -> list[str]:
    """Move the jobs `job_ids` from wherever they stand on `queue` into its intermediate list (as take_job_ids
    does from its front: start_jobs registers them); the ids moved (not those another worker took first)."""
    if not job_ids:
        return []
    script = queue.connection.register_script(scripts.TAKE_QUEUED_JOBS)
    return [_text(job_id) for job_id in script(keys=[queue.key, queue.intermediate_queue_key], args=list(job_ids))]


def _result_ttl(taken: Taken) -> int:
    return RESULT_TTL if taken.result_ttl is None else taken.result_ttl


def _finish_all(queue: Queue, finished: Sequence[Settled], worker_name: str, ended: datetime, pipe: Pipeline) -> None:
    """Finish jobs whose result TTL is positive in one Lua call on `pipe` (EVAL: a MULTI cannot load a script)."""
    keys = job_keys(queue)
    stamp = ended.timestamp()
    script_keys, args = [keys.started, keys.finished], [worker_name, int(stamp), repr(stamp)]
    values: dict[str, str] = {}
    for item in finished:
        taken = item.taken
        value = values.get(item.reason)
        if value is None:  # rq's Result.serialize of the job's return value
            value = values[item.reason] = b64encode(queue.serializer.dumps(item.reason)).decode()
        script_keys += keys.of(taken.job_id, taken.execution_id)
        args += [taken.job_id, taken.execution_id, _result_ttl(taken), repr(taken.started_at), value]
    pipe.eval(scripts.FINISH_JOBS, len(script_keys), *script_keys, *args)


def _finish(job: Job, execution: Execution, worker_name: str, value: str, pipe: Pipeline) -> None:
    result_ttl = job.get_result_ttl(RESULT_TTL)
    job.set_status(JobStatus.FINISHED, pipeline=pipe)
    if result_ttl != 0:
        Result.create(job, Result.Type.SUCCESSFUL, result_ttl, return_value=value, worker_name=worker_name,
                      pipeline=pipe, execution_id=execution.id, execution_started_at=execution.created_at,
                      execution_ended_at=job.ended_at)
        job.finished_job_registry.add(job, result_ttl, pipeline=pipe)
    job.cleanup(result_ttl, pipeline=pipe, remove_from_queue=False)


def _fail(job: Job, execution: Execution, worker_name: str, reason: str, pipe: Pipeline) -> None:
    job.set_status(JobStatus.FAILED, pipeline=pipe)
    job.failed_job_registry.add(job, ttl=job.failure_ttl, exc_string=reason, pipeline=pipe)
    Result.create_failure(job, job.failure_ttl, exc_string=reason, worker_name=worker_name, pipeline=pipe,
                          execution_id=execution.id, execution_started_at=execution.created_at,
                          execution_ended_at=job.ended_at)


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


def _time(value: bytes | str | None) -> float | None:
    """Unix time of an rq job time field (`2026-11-27T03:12:00.123456Z`); None when absent or unreadable."""
    if not value:
        return None
    try:
        return utcparse(_text(value)).timestamp()
    except ValueError:
        return None
