"""Delivery jobs taken and settled in batches: rq's own structures, a few round trips per batch.

A batch is taken off a medium's queue into rq's intermediate list (each id moves atomically, so a worker
killed here leaves them where gateways/worker.py's recover_intermediate finds them), then registered as
started (an rq Execution per job, named after the worker) in one MULTI that also removes them from the
intermediate list, so recover_abandoned finds them when the worker dies. After delivery the batch is
settled in one MULTI: each job finished, retried (rq's retry: scheduled after its interval, or queued) or
moved to rq's failed registry, its execution removed. The keys are rq's own, named by its Queue and Job.
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
from rq.utils import now

from flapjack_py.store.queues import RESULT_TTL

log = logging.getLogger(__name__)


class Settle(StrEnum):
    """What becomes of a job of a batch."""

    FINISHED = "finished"
    RETRY = "retry"
    FAILED = "failed"


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
    """End every job of a batch in one MULTI: finished (result kept for its result_ttl), retried, or failed
    into rq's failed registry with its reason; each execution removed from the started registry."""
    ended = now()
    with queue.connection.pipeline() as pipe:
        for item in settled:
            job, execution = item.taken.job, item.taken.execution
            job.ended_at = ended
            execution.delete(job=job, pipeline=pipe)
            if item.how is Settle.FINISHED:
                _finish(job, execution, worker_name, item.reason, pipe)
            elif item.how is Settle.RETRY and job.retries_left:
                job.retry(queue, pipe)
            else:
                _fail(job, execution, worker_name, item.reason, pipe)
        pipe.execute()


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
