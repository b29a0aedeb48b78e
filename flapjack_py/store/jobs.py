"""Writing prepared rq jobs (flapjack_py.store.rq_jobs) on the caller's MULTI: one HSET per job, one RPUSH per queue
(in the jobs' order), the queue added to rq's set of queues.

A job's HSET goes to Redis packed here (store.multi.queue_packed): the ~32 fields its template writes for
every job are packed once per commit, only the key, data and description per job. hiredis packed the
~41 arguments of each job's HSET at ~1,300 instructions apiece, the largest part of a storm's commit.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from itertools import chain
from typing import Any

from flapjack_py.store.plumbing.multi import bulk, bulks, queue_packed
from flapjack_py.store.rq_jobs import TIME_FIELDS, PreparedJob

log = logging.getLogger(__name__)

PUSH_CHUNK = 1000  # job ids per RPUSH
_HSET = bulk("HSET")
_DATA, _DESCRIPTION = bulk("data"), bulk("description")


def write_jobs(pipe: Any, jobs: Iterable[PreparedJob], at: str) -> None:
    """Write `jobs` as rq's enqueue does, `created_at` and `enqueued_at` set to `at` (rq's time format)."""
    times = tuple(chain.from_iterable((field, at) for field in TIME_FIELDS))
    packed_times = bulks(times)
    packed_shared: dict[int, bytes] = {}  # id of a template's shared fields -> them packed
    queued: dict[tuple[str, str], list[str]] = {}
    for job in jobs:
        shared = packed_shared.get(id(job.shared))
        if shared is None:
            shared = packed_shared[id(job.shared)] = bulks(job.shared)
        args = ("HSET", job.key, *job.shared, "data", job.data, "description", job.description, *times)
        queue_packed(pipe, args, b"".join((b"*%d\r\n" % len(args), _HSET, bulk(job.key), shared, _DATA,
                                           bulk(job.data), _DESCRIPTION, bulk(job.description), packed_times)))
        queued.setdefault((job.queues_key, job.queue_key), []).append(job.job_id)
    for (queues_key, queue_key), ids in queued.items():
        pipe.sadd(queues_key, queue_key)
        for start in range(0, len(ids), PUSH_CHUNK):
            pipe.rpush(queue_key, *ids[start:start + PUSH_CHUNK])
