"""Delivery jobs taken and settled in batches: rq's own structures, a few round trips per batch.

A batch is taken off a medium's queue into rq's intermediate list (each id moves atomically, so a worker
killed here leaves them where gateways/worker.py's recover_intermediate finds them), then registered as
started (an rq Execution per job, named after the worker) in one MULTI that also removes them from the
intermediate list, so recover_abandoned finds them when the worker dies. After delivery the batch is
settled in one MULTI: each job finished, retried (rq's retry: scheduled after its interval, or queued),
moved to rq's failed registry, or put back on its queue as it was (held while the medium's server refuses:
no retry spent), its execution removed. The keys are rq's own, named by its Queue and Job.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from redis.client import Pipeline
from rq import Queue
from rq.executions import Execution
from rq.job import Job, JobStatus
from rq.results import Result
from rq.utils import now, utcparse

from flapjack_py.store.plumbing import scripts
from flapjack_py.store.queues import RESULT_TTL

log = logging.getLogger(__name__)


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
    """A job of a batch, started under `execution`."""

    job: Job
    execution: Execution


@dataclass
class Settled:
    """A job's end in its batch: how, and its result (finished) or the failure text (rq's exc_string)."""

    taken: Taken
    how: Settle
    reason: str = ""


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
    """Register the jobs `job_ids` (in `queue`'s intermediate list) as started by `worker_name` in one MULTI,
    removing them from the intermediate list; ids whose job hash is gone are just removed. The started jobs."""
    jobs = Job.fetch_many(job_ids, connection=queue.connection, serializer=queue.serializer)
    taken: list[Taken] = []
    with queue.connection.pipeline() as pipe:
        for job_id, job in zip(job_ids, jobs, strict=True):
            pipe.lrem(queue.intermediate_queue_key, 1, job_id)
            if job is None:
                log.warning("alert %s: its job is gone; dropped from the queue", job_id)
                continue
            execution = Execution.create(job, ttl, pipeline=pipe, worker_name=worker_name)
            job.prepare_for_execution(worker_name, pipeline=pipe)
            taken.append(Taken(job, execution))
        pipe.execute()
    return taken


def settle_jobs(queue: Queue, settled: Sequence[Settled], worker_name: str) -> None:
    """End every job of a batch in one MULTI: finished (result kept for its result_ttl), retried, failed
    into rq's failed registry with its reason, or put back on the queue (held, requeued); each execution
    removed from the started registry."""
    ended = now()
    held: list[str] = []
    with queue.connection.pipeline() as pipe:
        for item in settled:
            job, execution = item.taken.job, item.taken.execution
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
