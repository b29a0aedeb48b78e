"""Delivery jobs taken back from gateway workers that died (SIGKILL) holding them: the writes, each atomic.

A job a dead worker had started leaves rq's started registry for a retry or rq's failed registry in one
MULTI; a job a worker took off its queue but died before starting goes from rq's intermediate list back to
the front of its queue in one Lua call. The keys are rq's own, named by its Queue and registries.
gateways/worker.py decides which jobs to take back (its worker is dead) through rq's public API.
"""

from __future__ import annotations

import logging

from rq import Queue
from rq.executions import Execution
from rq.job import Job, JobStatus
from rq.registry import StartedJobRegistry

from flapjack_py.store.plumbing import scripts

log = logging.getLogger(__name__)


def retry_or_fail_abandoned(registry: StartedJobRegistry, execution: Execution, queue: Queue, job: Job | None,
                            reason: str, retry: bool | None = None) -> bool:
    """Remove a dead worker's `execution` from rq's started `registry` and, in the same MULTI, retry its `job`
    (rq's retry: scheduled after its next interval, or queued again) when `retry` (None: when it has tries
    left), else move it to rq's failed registry with `reason`. `job` None (its hash is gone): only the
    execution is removed.

    Returns True when the job is retried."""
    if retry is None:
        retry = job is not None and bool(job.retries_left and job.retries_left > 0)
    retried = job is not None and retry
    with queue.connection.pipeline() as pipe:
        registry.remove_execution(execution, pipeline=pipe)
        if job is not None and retried:
            job.retries_left = max(job.retries_left or 0, 1)  # retried until its age says (a count would end it)
            job.retry(queue, pipe)
        elif job is not None:
            job.set_status(JobStatus.FAILED, pipeline=pipe)
            queue.failed_job_registry.add(job, ttl=job.failure_ttl, exc_string=reason, pipeline=pipe)
        pipe.execute()
    return retried


def requeue_stuck(queue: Queue, job_id: str) -> bool:
    """Move job `job_id` from rq's intermediate list of `queue` back to the front of the queue, if it is still
    there; True when moved (of workers doing this at once, one moves it)."""
    script = queue.connection.register_script(scripts.REQUEUE_STUCK_JOB)
    return bool(script(keys=[queue.intermediate_queue_key, queue.key], args=[job_id]))
