"""Writing prepared rq jobs (flapjack_py.rq_jobs) on the caller's MULTI: one HSET per job (its arguments as
prepared, not rebuilt from a mapping), one RPUSH per queue (in the jobs' order), the queue added to rq's set
of queues."""

from __future__ import annotations

import logging
from collections.abc import Iterable
from itertools import chain
from typing import Any

from ..rq_jobs import TIME_FIELDS, PreparedJob

log = logging.getLogger(__name__)

PUSH_CHUNK = 1000  # job ids per RPUSH


def write_jobs(pipe: Any, jobs: Iterable[PreparedJob], at: str) -> None:
    """Write `jobs` as rq's enqueue does, `created_at` and `enqueued_at` set to `at` (rq's time format)."""
    times = tuple(chain.from_iterable((field, at) for field in TIME_FIELDS))
    queued: dict[tuple[str, str], list[str]] = {}
    for job in jobs:
        pipe.execute_command("HSET", job.key, *job.fields, *times)
        queued.setdefault((job.queues_key, job.queue_key), []).append(job.job_id)
    for (queues_key, queue_key), ids in queued.items():
        pipe.sadd(queues_key, queue_key)
        for start in range(0, len(ids), PUSH_CHUNK):
            pipe.rpush(queue_key, *ids[start:start + PUSH_CHUNK])
