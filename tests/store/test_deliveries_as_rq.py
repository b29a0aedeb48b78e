"""A gateway worker starts and finishes delivery jobs in Lua (flapjack_py.store.deliveries): what it leaves in Redis
must be what rq's own worker objects write (Execution.create, Job.prepare_for_execution, and for a job whose
function returned: the execution removed, status, Result, finished registry, cleanup), key by key and field by
field, so rq's registries, dashboards and recovery read our jobs as theirs. Real Redis: the writes are Lua."""

from __future__ import annotations

import re
import time
from typing import Any

import pytest
import redis
from rq import Queue, Retry
from rq.executions import Execution
from rq.job import Job, JobStatus
from rq.registry import StartedJobRegistry
from rq.results import Result
from rq.serializers import JSONSerializer

from flapjack_py.store import deliveries
from flapjack_py.store.deliveries import Settle, Settled, Taken

WORKER = "flapjack-email@host:1:abcdef"
TTL = 240
JOB_ID = "a1b2c3"
PAYLOAD = {"id": JOB_ID, "media": "email", "address": "ada@example.com", "check": "web-01:HTTP"}
TIME = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$|^\d{10}(\.\d+)?$")


def enqueue(r: redis.Redis) -> Queue:
    queue = Queue("email", connection=r, serializer=JSONSerializer)
    queue.enqueue("gateways.worker.deliver", PAYLOAD, job_id=JOB_ID, result_ttl=3600, failure_ttl=86400,
                  retry=Retry(max=3, interval=[60]))
    r.lmove(queue.key, queue.intermediate_queue_key, "LEFT", "RIGHT")  # taken, as take_job_ids does
    return queue


def rq_start(queue: Queue) -> str:
    """rq's own objects start the job (what the worker did before the Lua call)."""
    job = Job.fetch(JOB_ID, connection=queue.connection, serializer=JSONSerializer)
    with queue.connection.pipeline() as pipe:
        pipe.lrem(queue.intermediate_queue_key, 1, JOB_ID)
        execution = Execution.create(job, TTL, pipeline=pipe, worker_name=WORKER)
        job.prepare_for_execution(WORKER, pipeline=pipe)
        pipe.execute()
    return execution.id


def rq_finish(queue: Queue, execution_id: str) -> None:
    """rq's own objects finish it, as rq's worker does for a function that returned "delivered"."""
    job = Job.fetch(JOB_ID, connection=queue.connection, serializer=JSONSerializer)
    execution = Execution.fetch(execution_id, JOB_ID, queue.connection)
    with queue.connection.pipeline() as pipe:
        execution.delete(job=job, pipeline=pipe)
        job.set_status(JobStatus.FINISHED, pipeline=pipe)
        Result.create(job, Result.Type.SUCCESSFUL, 3600, return_value="delivered", worker_name=WORKER, pipeline=pipe,
                      execution_id=execution.id, execution_started_at=execution.created_at,
                      execution_ended_at=datetime_now())
        job.finished_job_registry.add(job, 3600, pipeline=pipe)
        job.cleanup(3600, pipeline=pipe, remove_from_queue=False)
        pipe.execute()


def datetime_now() -> Any:
    from rq.utils import now
    return now()


def snapshot(r: redis.Redis, execution_id: str) -> dict[str, Any]:
    """Every key: its type, TTL (to 5 s) and content, with the execution id, times and stream ids made alike."""
    def plain(value: bytes | str | float) -> Any:
        text = value.decode("utf-8", "backslashreplace") if isinstance(value, bytes) else str(value)
        text = text.replace(execution_id, "<execution>")
        return "<time>" if TIME.match(text) else text

    now = time.time()
    found: dict[str, Any] = {}
    for raw_key in r.keys("*"):
        key = plain(raw_key)
        kind = r.type(raw_key).decode()
        ttl = r.ttl(raw_key)
        content: Any
        if kind == "hash":
            content = {plain(f): plain(v) for f, v in r.hgetall(raw_key).items()}
        elif kind == "zset":
            content = sorted((plain(m), round((s - now) / 5) * 5) for m, s in r.zrange(raw_key, 0, -1, withscores=True))
        elif kind == "list":
            content = [plain(v) for v in r.lrange(raw_key, 0, -1)]
        elif kind == "set":
            content = sorted(plain(v) for v in r.smembers(raw_key))
        elif kind == "stream":
            content = [{plain(f): plain(v) for f, v in fields.items()} for _, fields in r.xrange(raw_key)]
        else:
            content = plain(r.get(raw_key))
        found[key] = (kind, -1 if ttl < 0 else round(ttl / 5) * 5, content)
    return found


def test_a_job_started_in_lua_is_what_rq_starts(real_r: redis.Redis) -> None:
    execution_id = rq_start(enqueue(real_r))
    theirs = snapshot(real_r, execution_id)
    real_r.flushall()

    queue = enqueue(real_r)
    [taken] = deliveries.start_jobs(queue, [JOB_ID], WORKER, TTL)
    assert snapshot(real_r, taken.execution_id) == theirs
    assert (taken.job_id, taken.payload, taken.result_ttl) == (JOB_ID, PAYLOAD, 3600)
    # rq reads it as one of its own started jobs
    registry = StartedJobRegistry("email", connection=real_r, serializer=JSONSerializer)
    assert registry.get_job_and_execution_ids(cleanup=False) == [(JOB_ID, taken.execution_id)]
    assert Execution.fetch(taken.execution_id, JOB_ID, real_r).worker_name == WORKER
    job = Job.fetch(JOB_ID, connection=real_r, serializer=JSONSerializer)
    assert (job.get_status(), job.worker_name) == (JobStatus.STARTED, WORKER)


def test_a_job_finished_in_lua_is_what_rq_finishes(real_r: redis.Redis) -> None:
    queue = enqueue(real_r)
    execution_id = rq_start(queue)
    rq_finish(queue, execution_id)
    theirs = snapshot(real_r, execution_id)
    real_r.flushall()

    queue = enqueue(real_r)
    [taken] = deliveries.start_jobs(queue, [JOB_ID], WORKER, TTL)
    deliveries.settle_jobs(queue, [Settled(taken, Settle.FINISHED, "delivered")], WORKER)
    assert snapshot(real_r, taken.execution_id) == theirs
    job = Job.fetch(JOB_ID, connection=real_r, serializer=JSONSerializer)
    assert job.get_status() == JobStatus.FINISHED
    result = job.latest_result()
    assert result is not None and result.return_value == "delivered" and result.execution_id == taken.execution_id
    assert queue.finished_job_registry.get_job_ids() == [JOB_ID]


def test_a_job_whose_hash_is_gone_is_only_taken_off_the_list(real_r: redis.Redis) -> None:
    queue = enqueue(real_r)
    real_r.delete(Job.key_for(JOB_ID))
    assert deliveries.start_jobs(queue, [JOB_ID], WORKER, TTL) == []
    assert real_r.llen(queue.intermediate_queue_key) == 0
    assert StartedJobRegistry("email", connection=real_r).get_job_ids(cleanup=False) == []


def test_unreadable_job_data_is_named_not_raised(real_r: redis.Redis) -> None:
    queue = enqueue(real_r)
    real_r.hset(Job.key_for(JOB_ID), "data", b"not zlib")
    [taken] = deliveries.start_jobs(queue, [JOB_ID], WORKER, TTL)
    assert taken.payload is None and taken.error is not None and "undecodable" in taken.error


@pytest.mark.parametrize("how", [Settle.RETRY, Settle.FAILED, Settle.HOLD])
def test_jobs_not_finished_get_rqs_own_writes(real_r: redis.Redis, how: Settle) -> None:
    queue = enqueue(real_r)
    [taken] = deliveries.start_jobs(queue, [JOB_ID], WORKER, TTL)
    assert taken.job is None  # loaded only when needed
    deliveries.settle_jobs(queue, [Settled(taken, how, "DeliveryFailed: refused")], WORKER)
    job = Job.fetch(JOB_ID, connection=real_r, serializer=JSONSerializer)
    expected = {Settle.RETRY: JobStatus.SCHEDULED, Settle.FAILED: JobStatus.FAILED, Settle.HOLD: JobStatus.QUEUED}
    assert job.get_status() == expected[how]
    assert StartedJobRegistry("email", connection=real_r).get_job_ids(cleanup=False) == []
    assert not real_r.exists(Execution(taken.execution_id, JOB_ID, real_r).key)
    where = {Settle.RETRY: queue.scheduled_job_registry.get_job_ids(), Settle.HOLD: queue.get_job_ids(),
             Settle.FAILED: queue.failed_job_registry.get_job_ids()}
    assert where[how] == [JOB_ID]
    if how is Settle.RETRY:
        assert job.retries_left == 2  # rq's retry spent one


def test_taken_of_rqs_objects(real_r: redis.Redis) -> None:
    queue = enqueue(real_r)
    execution_id = rq_start(queue)
    job = Job.fetch(JOB_ID, connection=real_r, serializer=JSONSerializer)
    taken = Taken.of(job, Execution.fetch(execution_id, JOB_ID, real_r))
    assert (taken.job_id, taken.execution_id, taken.payload, taken.job) == (JOB_ID, execution_id, PAYLOAD, job)
