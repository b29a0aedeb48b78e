"""Prepared rq jobs (flapjack_py.store.rq_jobs) are what rq's own enqueue_many writes, field by field."""

from __future__ import annotations

import zlib

import fakeredis
import pytest
import redis
from hiredis import pack_command
from rq import Queue, SimpleWorker
from rq.job import Job, JobStatus
from rq.serializers import JSONSerializer

from flapjack_py.store import queues as delivery
from flapjack_py.store.jobs import write_jobs
from flapjack_py.store.plumbing import multi
from flapjack_py.store.rq_jobs import JobTemplate, TemplateMismatch, stamp, stored

RECORD = {"id": "a1b2", "media": "email", "contact": "ada", "address": "ada@example.com", "summary": "disk full",
          "tags": ["x", "y"], "timestamp": 1_800_000_000, "rollup_alerts": {"e:c": {"state": "critical"}}}


def written(r: fakeredis.FakeRedis) -> dict[bytes, object]:
    """Every key with its value; job times left out (each write stamps its own), job data as rq reads it
    (zlib.decompress: rq deflates it, ours is stored)."""
    out: dict[bytes, object] = {}
    for key in r.keys():
        kind = r.type(key)
        if kind == b"hash":
            fields = {k: v for k, v in r.hgetall(key).items() if k not in (b"created_at", b"enqueued_at")}
            out[key] = {**fields, b"data": zlib.decompress(fields[b"data"])} if b"data" in fields else fields
        elif kind == b"list":
            out[key] = r.lrange(key, 0, -1)
        else:
            out[key] = r.smembers(key)
    return out


@pytest.mark.parametrize("retry", [(3, (10, 30, 60)), None])
def test_prepared_jobs_are_written_as_rq_writes_them(retry: delivery.RetrySetting) -> None:
    by_rq, ours = fakeredis.FakeRedis(), fakeredis.FakeRedis()
    records = [RECORD, dict(RECORD, id="c3d4", contact="bob")]
    with by_rq.pipeline() as pipe:
        Queue("email", connection=by_rq, serializer=JSONSerializer).enqueue_many(
            [delivery.job_data(r, retry) for r in records], pipeline=pipe)
        pipe.execute()
    with ours.pipeline() as pipe:
        delivery.enqueue_jobs(ours, pipe, [delivery.JobData("email", r, retry) for r in records])
        pipe.execute()
    assert written(ours) == written(by_rq)
    assert len(written(ours)) == 4  # two job hashes, the queue, rq:queues
    job = Job.fetch("c3d4", connection=ours, serializer=JSONSerializer)
    assert list(job.args) == [dict(RECORD, id="c3d4", contact="bob")] and job.func_name == delivery.DELIVER_FUNC
    assert job.enqueued_at is not None and job.created_at is not None
    assert job.retries_left == (retry[0] if retry else None)


def test_an_rq_that_writes_something_else_is_refused() -> None:
    class Odd(Queue):
        def enqueue_many(self, job_datas, pipeline=None, group_id=None):  # type: ignore[no-untyped-def]
            pipeline.zadd("rq:unexpected", {"x": 1})
            return []

    queue = Odd("email", connection=fakeredis.FakeRedis(), serializer=JSONSerializer)
    with pytest.raises(TemplateMismatch):
        JobTemplate(queue, delivery.job_data(RECORD, None))


@pytest.mark.parametrize("size", [0, 1, 300, 4_200, 65_534, 65_535, 65_536, 131_070, 131_071, 140_000])
def test_job_data_is_a_zlib_stream(size: int) -> None:
    data = bytes(range(256)) * (size // 256) + b"x" * (size % 256)
    assert zlib.decompress(stored(data)) == data  # rq's Job.restore reads it, not its raw-data fallback
    reader = zlib.decompressobj()
    assert reader.decompress(stored(data)) == data and reader.eof and not reader.unused_data
    assert len(stored(data)) <= size + 11 + 5 * (size // 65_535)
    if size <= 4_200:  # one stored block, as zlib's level 0 frames a small input
        assert stored(data) == zlib.compress(data, 0)


def test_each_job_is_sent_as_hiredis_packs_its_hset() -> None:
    """The HSET write_jobs packs itself from parts (shared fields once per commit) is byte for byte what
    hiredis makes of its arguments: non-ASCII text counted in UTF-8 bytes, data bytes as they are."""
    r = fakeredis.FakeRedis()
    records = [dict(RECORD, id="zoë-1", contact="zoë", body="ünïcode ✓"), dict(RECORD, id="a", media="sms")]
    with r.pipeline() as pipe:
        delivery.enqueue_jobs(r, pipe, [delivery.JobData(str(r_["media"]), r_, (2, (5, 9))) for r_ in records])
        sent = [command for command, _ in pipe.command_stack if type(command) is multi.Packed]
        assert len(sent) == 2 and all(command.packed == pack_command(tuple(command)) for command in sent)
        assert b"description" in sent[0].packed and "deliver alert zoë-1" in sent[0][-5]


@pytest.mark.parametrize("commit", ["redis-py", "multi"])
def test_an_rq_worker_runs_prepared_jobs(real_r: redis.Redis, commit: str) -> None:
    """rq's own SimpleWorker takes a prepared job off the queue and runs it to finished (rq reads its data),
    written by redis-py's transaction or sent as packed by the executive's commit (store.multi)."""
    queue = Queue("email", connection=real_r, serializer=JSONSerializer)
    template = JobTemplate(queue, Queue.prepare_data("builtins.len", args=({},), job_id="sample"))
    records = [dict(RECORD, id=f"j{n}", body="x" * n) for n in (10, 5_000)]
    with real_r.pipeline() as pipe:
        if commit == "multi":
            pipe.watch("guard")
            pipe.multi()
        write_jobs(pipe, [template.prepare(r["id"], (r,), f"job {r['id']}") for r in records], stamp())
        multi.execute(pipe) if commit == "multi" else pipe.execute()
    assert SimpleWorker([queue], connection=real_r, serializer=JSONSerializer).work(burst=True)
    for record in records:
        job = Job.fetch(record["id"], connection=real_r, serializer=JSONSerializer)
        assert job.get_status() == JobStatus.FINISHED and job.return_value() == len(record)


TRICKY = [None, 0, -7, 2**70, 1.5, float("nan"), float("inf"), True, False, "", "plain", 'quo"te\\slash', "ünïcode ✓ 🙂",
          "new\nline\ttab\x00\x1f", ["x", "ü", 1, None], {"e:c": {"state": "critical", "n": 2.0}}, [], {}, (1, "t")]


def records_and_shared() -> list[tuple[dict[object, object], object]]:
    """Records with tricky values, each with shared members its fields match or not (a different object that
    compares equal, a list of other objects, fields out of order, missing, or not where they are)."""
    from flapjack_py.store.rq_jobs import shared_members

    tags = ["b", "ä"]
    shared = {"summary": "disk \"full\" ✓", "time": 1, "tags": tags, "duration": None, "ratio": 0.5}
    members = shared_members(shared)
    out: list[tuple[dict[object, object], object]] = []
    for n, value in enumerate(TRICKY):
        head = {"id": f"j{n}", "value": value, "contact": "zoë"}
        out += [({**head, **shared, "tags": list(tags), "body": value}, members),  # the notifier's alerts
                ({**head, **shared}, members), ({**shared, **head}, members), (dict(shared), members),
                ({**head, **dict(shared, time=1.0)}, members),  # equal, not the same JSON
                ({**head, **dict(shared, time=True)}, members),
                ({**head, **dict(shared, tags=["b", "a\u0308"])}, members),
                ({**head, **dict(shared, tags=[*tags, "c"])}, members),
                ({**head, **dict(reversed(shared.items()))}, members),
                ({**head, "summary": shared["summary"], "time": 1}, members),
                ({**head, **shared, 3: value}, members), ({3: value, **head}, None), (head, None), ({}, None)]
    return out


def test_job_json_from_parts_is_json_dumps() -> None:
    """Every record's job data made from parts (shared members, strings encoded once per commit, reused
    across records) is what rq's JSONSerializer writes: json.dumps((func, None, [record], {}))."""
    template = JobTemplate(Queue("email", connection=fakeredis.FakeRedis(), serializer=JSONSerializer),
                           delivery.job_data(RECORD, None))
    strings: dict[object, object] = {}
    for record, members in records_and_shared():
        job = template.prepare("j", (record,), "d", members, strings)  # type: ignore[arg-type]
        expected = JSONSerializer.dumps((delivery.DELIVER_FUNC, None, [record], {}))
        assert zlib.decompress(job.data) == expected, record
    assert strings["zoë"] == '"zo\\u00eb"' and strings[("id", "value", "contact")] == ('"id": ', '"value": ', '"contact": ')
    assert all(type(key) is str or all(type(name) is str for name in key) for key in strings)


def test_another_serializer_writes_its_own_data() -> None:
    template = JobTemplate(Queue("email", connection=fakeredis.FakeRedis()), delivery.job_data(RECORD, None))
    job = template.prepare("j", (RECORD,), "d", None, {})
    assert zlib.decompress(job.data) == template.serializer.dumps((delivery.DELIVER_FUNC, None, (RECORD,), {}))
