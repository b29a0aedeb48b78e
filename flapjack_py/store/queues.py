"""The per-medium rq queues: alerts' delivery jobs written as rq's own `Queue.enqueue_many` writes them
(store/rq_jobs.py: rq's writes recorded once per medium and retry setting, then one HSET per job), on
the caller's MULTI, so rq workers, the failed-job registry and retries see jobs exactly as rq writes them."""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

import redis
from rq import Queue, Retry
from rq.queue import EnqueueData
from rq.serializers import JSONSerializer

from flapjack_py.model.alert import Alert
from flapjack_py.store.jobs import write_jobs
from flapjack_py.store.plumbing.client import BytesRedis
from flapjack_py.store.rq_jobs import PLACEHOLDER_ID, JobTemplate, SharedMembers, Strings, stamp

DELIVER_FUNC = "gateways.worker.deliver"
"""Dotted path of the rq job function; its one argument is the alert payload (an Alert, as JSON)."""
RESULT_TTL = 3600
FAILURE_TTL = 7 * 86400
RetrySetting = tuple[int, tuple[int, ...]] | None
"""(retries, intervals) of a medium's jobs; None: no retries."""
class JobData(NamedTuple):
    """One rq job to enqueue on a medium's queue when its batch commits: the alert record it delivers.
    A named tuple: one per alert (a frozen dataclass took ~10k instructions to make)."""

    medium: str
    record: Alert
    retry: RetrySetting
    shared: SharedMembers | None = None  # fields its record holds alike with other jobs' (rq_jobs.record_json)


_queues: dict[tuple[int, str], Queue] = {}
_templates: dict[tuple[str, RetrySetting], JobTemplate] = {}
def queue_for(connection: BytesRedis, medium: str) -> Queue:
    """The rq queue of a medium (named after it), using the JSON serializer.

    Cached per connection: rq asks the server's version once per Queue object.
    """
    key = (id(connection), medium)
    queue = _queues.get(key)
    if queue is None or queue.connection is not connection:
        queue = _queues[key] = Queue(medium, connection=connection, serializer=JSONSerializer)
    return queue


def enqueue_jobs(connection: BytesRedis, pipe: redis.client.Pipeline, jobs: Iterable[JobData]) -> None:
    """Write `jobs` as rq's `enqueue_many` does, per medium in order, on `pipe` (a MULTI the caller executes).

    `connection` must be a bytes (non-decoding) client, as rq requires.
    """
    strings: Strings = {}  # JSON of the texts the jobs' records share, encoded once
    prepared = [job_template(connection, job.medium, job.retry).prepare(
        job.record["id"], (job.record,), _description(job.record), job.shared, strings) for job in jobs]
    if prepared:
        write_jobs(pipe, prepared, stamp())


def job_data(record: Alert, retry: RetrySetting) -> EnqueueData:
    """rq's description of the delivery job of an alert record, as `Queue.enqueue_many` takes it."""
    return Queue.prepare_data(DELIVER_FUNC, args=(dict(record),), job_id=record["id"],
                              retry=Retry(max=retry[0], interval=list(retry[1])) if retry else None,
                              result_ttl=RESULT_TTL, failure_ttl=FAILURE_TTL, description=_description(record))


def job_template(connection: BytesRedis, medium: str, retry: RetrySetting) -> JobTemplate:
    """What rq writes for a job on the medium's queue with these retries (recorded once)."""
    template = _templates.get((medium, retry))
    if template is None:
        sample: Alert = {"id": PLACEHOLDER_ID, "media": medium, "contact": "", "timestamp": 0, "address": "",
                         "check": "", "type": "", "rollup": "", "state": ""}  # its data is per job: not kept
        template = _templates[(medium, retry)] = JobTemplate(queue_for(connection, medium), job_data(sample, retry))
    return template


def _description(record: Alert) -> str:
    """A short description of the delivery job (rq would otherwise repr the whole payload)."""
    return f"deliver alert {record['id']} ({record['media']} to contact {record['contact']})"


