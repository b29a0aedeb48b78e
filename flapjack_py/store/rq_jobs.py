"""rq jobs of alerts prepared as rq itself writes them, without rq's Job objects per alert.

`JobTemplate` runs rq's own `Queue.enqueue_many` once (per queue and job settings) on a recorder and
keeps what it wrote: the job hash, the queue list and the `rq:queues` set. An alert's job is that hash
with its own id, `data` (rq's serializer in a zlib stream, as rq's `Job.to_dict` stores it) and description;
`store.jobs.write_jobs` writes a batch's jobs with one HSET each and one RPUSH per queue, stamping
`created_at`/`enqueued_at` when the batch commits. rq workers, retries and the failed-job registry read
them as jobs rq enqueued (tests/unit/test_rq_jobs.py compares both writes field by field).
"""

from __future__ import annotations

import json
import logging
import struct
import zlib
from collections.abc import Mapping
from datetime import datetime
from itertools import chain
from json.encoder import encode_basestring_ascii
from operator import is_
from typing import Any, NamedTuple

from rq import Queue
from rq.job import Job
from rq.queue import EnqueueData
from rq.serializers import JSONSerializer
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


class SharedMembers(NamedTuple):
    """Fields the records of several jobs hold alike, in this order (the alert fields of one notification), and
    their members as json.dumps writes them (`"key": value, ...`): encoded once, not once per job."""

    keys: tuple[str, ...]
    values: tuple[Any, ...]
    text: str
    lists: tuple[int, ...]  # where `values` holds lists: a record may hold a copy (an alert's tags)


def shared_members(fields: Mapping[str, Any]) -> SharedMembers:
    """`fields` as SharedMembers (json.dumps of them without the braces)."""
    values = tuple(fields.values())
    return SharedMembers(tuple(fields), values, json.dumps(dict(fields))[1:-1],
                         tuple(i for i, value in enumerate(values) if type(value) is list))


Strings = dict[Any, Any]
"""JSON strings already encoded (text -> its JSON form) for the jobs of one commit: their records share
field names and many values (a notification's summary, a contact's address, an sms text); also a run of
field names -> the starts of their members (`"name": `)."""


class JobTemplate:
    """What rq writes for a job on one queue with one set of job settings, minus the per-job fields."""

    def __init__(self, queue: Queue, sample: EnqueueData) -> None:
        recorder = _Recorder()
        queue.enqueue_many([sample], pipeline=recorder)
        self.func_name, self.serializer = sample.func, queue.serializer
        self.queue_key, self.queues_key = queue.key, queue.redis_queues_keys
        self.fields = _job_hash(recorder.calls, queue, Job.key_for(sample.job_id or ""), sample.job_id or "")
        self._pairs = tuple(chain.from_iterable(self.fields.items()))
        head, _, tail = json.dumps((self.func_name, None, [None], {})).rpartition("null")
        self._frame = (head, tail) if self.serializer is JSONSerializer else None  # rq's json.dumps(...).encode()

    def prepare(self, job_id: str, args: tuple[Any, ...], description: str, shared: SharedMembers | None = None,
                strings: Strings | None = None) -> PreparedJob:
        """The job of `func(*args)` with id `job_id`, as rq would write it.

        With rq's JSONSerializer and one dict argument, its JSON is made from parts: `strings` (the caller's,
        for the jobs of one commit) holds texts already encoded, `shared` members the record holds alike
        with other jobs' (encoded once); the same text as json.dumps (tests/unit/test_rq_jobs.py).
        """
        text = None
        if self._frame is not None and len(args) == 1 and type(args[0]) is dict:
            text = record_json(args[0], shared, {} if strings is None else strings)
        if text is None:
            data = stored(self.serializer.dumps((self.func_name, None, args, {})))
        else:
            data = stored(f"{self._frame[0]}{text}{self._frame[1]}".encode())  # type: ignore[index]
        return PreparedJob(self.queue_key, self.queues_key, job_id, Job.key_for(job_id), self._pairs, data,
                           description)


def record_json(record: dict[str, Any], shared: SharedMembers | None, strings: Strings) -> str | None:
    """json.dumps(record) (default settings: ASCII, `", "` and `": "`); None when a key is not a str.

    Each str key or value is encoded once per `strings`, other values by json.dumps; `shared`, when the
    record holds those fields in that order and they encode alike (the same objects, or lists of the same
    objects), is taken as encoded.
    """
    keys, values = tuple(record), tuple(record.values())
    members: list[str] = []
    if shared is not None and shared.keys and shared.keys[0] in record:
        start = keys.index(shared.keys[0])
        end = start + len(shared.keys)
        if keys[start:end] == shared.keys and _alike(values[start:end], shared):
            if not _members(members, keys[:start], values[:start], strings):
                return None
            members.append(shared.text)
            keys, values = keys[end:], values[end:]
    if not _members(members, keys, values, strings):
        return None
    return "{" + ", ".join(members) + "}"


def _alike(values: tuple[Any, ...], shared: SharedMembers) -> bool:
    """Whether `values` are the shared values, or where those are lists, lists of the same objects (so their
    JSON is the same)."""
    copies = 0
    for i in shared.lists:
        mine, theirs = values[i], shared.values[i]
        if mine is not theirs:
            if type(mine) is not list or len(mine) != len(theirs) or not all(map(is_, mine, theirs)):
                return False
            copies += 1
    return sum(map(is_, values, shared.values)) == len(values) - copies  # all others the same objects


def _members(members: list[str], keys: tuple[Any, ...], values: tuple[Any, ...], strings: Strings) -> bool:
    """Add `"key": value` of each item to `members`, as json.dumps writes them in an object; False when a
    key is not a str. The members' starts are made once per commit for a run of keys (records of one
    template and medium have the same)."""
    names = strings.get(keys)
    if names is None:
        if any(type(key) is not str for key in keys):
            return False
        names = strings[keys] = tuple(f"{encode_basestring_ascii(key)}: " for key in keys)
    for name, value in zip(names, values):  # noqa: B905 (as long: zip's keyword costs ~1k instructions a call)
        kind = type(value)
        if kind is str:
            text = strings.get(value)
            if text is None:
                text = strings[value] = encode_basestring_ascii(value)
        elif kind is int:
            text = int.__repr__(value)
        elif value is None:
            text = "null"
        else:  # floats, bools, lists, dicts...: as json.dumps writes them inside the record
            text = json.dumps(value)
        members.append(name + text)
    return True


def stored(data: bytes) -> bytes:
    """`data` as a zlib stream of stored (uncompressed) deflate blocks: what rq's `Job.restore` reads with
    `zlib.decompress`, as it reads the level-6 stream rq's `Job.to_dict` writes. Deflating a job's ~1 kB
    cost about 220k instructions (17 us) per alert in a storm, the largest single item of the commit, to
    save ~700 B per job while it waits on its queue; zlib's own level 0 still set up and cleared a window
    and match table per stream (~15k), so the blocks are framed here (RFC 1950, RFC 1951 3.2.4)."""
    size = len(data)
    if size <= STORED_BLOCK:  # one final block (a job's data is ~1 kB): no slicing
        return b"".join((ZLIB_HEADER, struct.pack("<BHH", 1, size, size ^ 0xFFFF), data,
                         struct.pack(">I", zlib.adler32(data))))
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
