"""rq jobs of alerts prepared as rq itself writes them, without rq's Job objects per alert.

`JobTemplate` runs rq's own `Queue.enqueue_many` once (per queue and job settings) on a recorder and
keeps what it wrote: the job hash, the queue list and the `rq:queues` set. An alert's job is that hash
with its own id, `data` (rq's serializer in a zlib stream, as rq's `Job.to_dict` stores it) and description;
`store.jobs.write_jobs` writes a batch's jobs with one HSET each and one RPUSH per queue, stamping
`created_at`/`enqueued_at` when the batch commits. rq workers, retries and the failed-job registry read
them as jobs rq enqueued (tests/unit/test_rq_jobs.py compares both writes field by field).
"""

from __future__ import annotations

import logging
import struct
import zlib
from datetime import datetime
from itertools import chain
from typing import Any, NamedTuple

from rq import Queue
from rq.job import Job
from rq.queue import EnqueueData
from rq.utils import now, utcformat

log = logging.getLogger(__name__)

PER_JOB_FIELDS = ("data", "description", "created_at", "enqueued_at")
"""Fields of rq's job hash that differ between two alerts' jobs on the same queue."""
TIME_FIELDS = ("created_at", "enqueued_at")
PLACEHOLDER_ID = "flapjack-template"
ZLIB_HEADER = b"\x78\x01"
"""A zlib stream's header: deflate, 32 kB window, no dictionary, fastest level (RFC 1950)."""
STORED_BLOCK = 0xFFFF
"""Most bytes a stored deflate block holds (RFC 1951 3.2.4)."""


class TemplateMismatch(RuntimeError):
    """rq wrote something other than one job hash, one queue push and the queue set (an rq upgrade)."""


class PreparedJob(NamedTuple):
    """One alert's rq job: its queue, id and hash fields (without the times stamped at commit): `shared`,
    the field, value, field, value... its template writes for every job (one tuple for all of them), then
    its own `data` and `description`. A named tuple: a storm makes one per alert, and a frozen dataclass
    took ~10k instructions to make."""

    queue_key: str
    queues_key: str
    job_id: str
    key: str
    shared: tuple[Any, ...]
    data: bytes
    description: str

    @property
    def fields(self) -> tuple[Any, ...]:
        """All its hash fields, as the field, value... arguments of its HSET."""
        return (*self.shared, "data", self.data, "description", self.description)


class JobTemplate:
    """What rq writes for a job on one queue with one set of job settings, minus the per-job fields."""

    def __init__(self, queue: Queue, sample: EnqueueData) -> None:
        recorder = _Recorder()
        queue.enqueue_many([sample], pipeline=recorder)
        self.func_name, self.serializer = sample.func, queue.serializer
        self.queue_key, self.queues_key = queue.key, queue.redis_queues_keys
        self.fields = _job_hash(recorder.calls, queue, Job.key_for(sample.job_id or ""), sample.job_id or "")
        self._pairs = tuple(chain.from_iterable(self.fields.items()))

    def prepare(self, job_id: str, args: tuple[Any, ...], description: str) -> PreparedJob:
        """The job of `func(*args)` with id `job_id`, as rq would write it."""
        data = stored(self.serializer.dumps((self.func_name, None, args, {})))
        return PreparedJob(self.queue_key, self.queues_key, job_id, Job.key_for(job_id), self._pairs, data,
                           description)


def stored(data: bytes) -> bytes:
    """`data` as a zlib stream of stored (uncompressed) deflate blocks: what rq's `Job.restore` reads with
    `zlib.decompress`, as it reads the level-6 stream rq's `Job.to_dict` writes. Deflating a job's ~1 kB
    cost about 220k instructions (17 us) per alert in a storm, the largest single item of the commit, to
    save ~700 B per job while it waits on its queue; zlib's own level 0 still set up and cleared a window
    and match table per stream (~15k), so the blocks are framed here (RFC 1950, RFC 1951 3.2.4)."""
    blocks = [ZLIB_HEADER]
    for start in range(0, max(len(data), 1), STORED_BLOCK):
        block = data[start:start + STORED_BLOCK]
        final = start + STORED_BLOCK >= len(data)
        blocks += (struct.pack("<BHH", final, len(block), len(block) ^ 0xFFFF), block)
    blocks.append(struct.pack(">I", zlib.adler32(data)))
    return b"".join(blocks)


def stamp(at: datetime | None = None) -> str:
    """rq's text form of a job time (`created_at`, `enqueued_at`): now, or `at`."""
    return utcformat(at or now())


def _job_hash(calls: list[tuple[str, tuple[Any, ...], dict[str, Any]]], queue: Queue, key: str,
              job_id: str) -> dict[str, Any]:
    """The job hash rq's recorded writes leave, without the per-job fields; TemplateMismatch if they are
    not exactly: SADD rq:queues, HSETs of the job key, RPUSH of the id on the queue."""
    fields: dict[str, Any] = {}
    expected = [("sadd", (queue.redis_queues_keys, queue.key)), ("rpush", (queue.key, job_id))]
    for name, args, kwargs in calls:
        if name == "hset" and args[:1] == (key,):
            fields.update(kwargs.get("mapping") or {})
            if len(args) == 3:
                fields[args[1]] = args[2]
        elif (name, args) in expected and not kwargs:
            expected.remove((name, args))
        else:
            raise TemplateMismatch(f"rq's enqueue_many wrote {name}{args!r}: prepared jobs need updating")
    if expected or fields.get("status") != "queued" or not set(PER_JOB_FIELDS) <= set(fields):
        raise TemplateMismatch(f"rq's enqueue_many did not write a queued job as expected: {sorted(fields)}")
    return {name: value for name, value in fields.items() if name not in PER_JOB_FIELDS}


class _Recorder:
    """Stands for a pipeline: records the commands rq issues."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = []

    def __getattr__(self, name: str) -> Any:
        def record(*args: Any, **kwargs: Any) -> None:
            self.calls.append((name, args, kwargs))
        return record
