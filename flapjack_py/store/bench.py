"""The Redis reads and writes of `flapjack bench`: filling the queue, reading what the executive left,
server statistics, memory by key family, the reference round trips, and cleaning up its own keys.

The bench never flushes: it deletes only keys that did not exist when it started.
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, cast

import redis
from redis._parsers.hiredis import NOT_ENOUGH_DATA, _HiredisParser
from rq import Queue
from rq.job import Job
from rq.registry import ScheduledJobRegistry, StartedJobRegistry
from rq.serializers import JSONSerializer

from flapjack_py import keys
from flapjack_py.errors import BenchError
from flapjack_py.store.events import events_processed
from flapjack_py.store.events import queue_length as queue_length  # the bench's use of the queue's own length
from flapjack_py.store.health import load_heartbeats
from flapjack_py.store.plumbing.client import BytesRedis, StrRedis

log = logging.getLogger(__name__)

events_counted = events_processed
"""The global `all` event counter (store.events.events_processed)."""

CHUNK = 1000  # keys or events per round trip when filling, scanning or deleting


@dataclass(frozen=True)
class ServerStats:
    """Counters of the server at one moment (INFO)."""

    commands: int  # total_commands_processed
    cpu_s: float  # used_cpu_user + used_cpu_sys of the server process
    used_memory: int  # bytes
    forks: int = 0  # total_forks: AOF rewrites and RDB saves since the server started


@dataclass(frozen=True)
class RecordedAlert:
    """An alert record as the delivery scenarios read it."""

    id: str
    media: str
    address: str
    check: str
    status: str


@dataclass(frozen=True)
class QueuedJob:
    """One rq job as the bench reads it: when rq enqueued it and the alert payload."""

    enqueued_at: float  # unix time
    alert: dict[str, Any]


# --- the database -------------------------------------------------------------


def dbsize(client: StrRedis) -> int:
    """Number of keys in the selected database."""
    return int(cast(int, client.dbsize()))


def all_keys(client: StrRedis) -> set[str]:
    """Every key name of the database (SCAN)."""
    return set(client.scan_iter(count=CHUNK))


def delete_keys_except(client: StrRedis, keep: set[str]) -> int:
    """DEL every key not in `keep` (DEL, not UNLINK: memory figures must not lag); return how many went."""
    doomed = [name for name in client.scan_iter(count=CHUNK) if name not in keep]
    for start in range(0, len(doomed), CHUNK):
        client.delete(*doomed[start:start + CHUNK])
    return len(doomed)


def server_info(client: StrRedis) -> dict[str, str]:
    """Server name/version and persistence settings: version, appendonly, appendfsync, save."""
    info = cast(dict[str, Any], client.info("server"))
    version = f"valkey-{info['valkey_version']}" if "valkey_version" in info else str(info.get("redis_version"))
    settings = {"version": version}
    for name in ("appendonly", "appendfsync", "save"):
        try:
            settings[name] = str(cast(dict[str, Any], client.config_get(name)).get(name, ""))
        except redis.ResponseError:  # CONFIG disabled on managed servers
            settings[name] = "unknown"
    return settings


def server_stats(client: StrRedis) -> ServerStats:
    """Commands processed, CPU seconds and used memory of the server now."""
    info = cast(dict[str, Any], client.info())
    cpu = float(info.get("used_cpu_user", 0)) + float(info.get("used_cpu_sys", 0))
    return ServerStats(int(info["total_commands_processed"]), cpu, int(info["used_memory"]),
                       int(info.get("total_forks", 0)))


def rewrite_aof(client: StrRedis, timeout: float = 120.0) -> bool:
    """BGREWRITEAOF and wait until no rewrite is running or scheduled; False if it did not end in `timeout`."""
    try:
        client.bgrewriteaof()
    except redis.ResponseError as exc:  # one already running (or scheduled after an RDB save): wait for it
        log.debug("BGREWRITEAOF: %s", exc)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        info = cast(dict[str, Any], client.info("persistence"))
        if not int(info.get("aof_rewrite_in_progress", 0)) and not int(info.get("aof_rewrite_scheduled", 0)):
            return True
        time.sleep(0.02)
    return False


MEMORY_PARTS = ("used_memory", "used_memory_dataset", "used_memory_overhead", "used_memory_startup",
                "used_memory_scripts", "mem_clients_normal", "mem_aof_buffer", "mem_replication_backlog")
"""The INFO memory fields that tell the data (dataset) from what is not (server overhead, scripts, buffers)."""


def memory_parts(client: StrRedis) -> dict[str, int]:
    """MEMORY_PARTS of INFO memory now (0 for a field the server does not report)."""
    info = cast(dict[str, Any], client.info("memory"))
    return {name: int(info.get(name, 0)) for name in MEMORY_PARTS}


def memory_by_family(client: StrRedis) -> Counter[str]:
    """Bytes per key family (keys.key_family), from MEMORY USAGE (every element counted) of every key."""
    sizes: Counter[str] = Counter()
    batch: list[str] = []
    for name in client.scan_iter(count=CHUNK):
        batch.append(name)
        if len(batch) >= CHUNK:
            _add_usage(client, batch, sizes)
            batch = []
    _add_usage(client, batch, sizes)
    return sizes


def _add_usage(client: StrRedis, names: list[str], sizes: Counter[str]) -> None:
    pipe = client.pipeline(transaction=False)
    for name in names:
        pipe.memory_usage(name, samples=0)  # every element: the default samples 5 and extrapolates
    for name, used in zip(names, pipe.execute(), strict=True):
        sizes[keys.key_family(name)] += int(used or 0)


# --- the event queue ----------------------------------------------------------


def fill_queue(client: StrRedis, raws: Sequence[str], queue: str = "events") -> None:
    """LPUSH the events in order (the executive takes the first one first)."""
    for start in range(0, len(raws), CHUNK):
        client.lpush(keys.events(queue), *raws[start:start + CHUNK])


def push_one(client: StrRedis, raw: str, queue: str = "events") -> None:
    """LPUSH one event."""
    client.lpush(keys.events(queue), raw)


def in_flight_total(client: StrRedis) -> int:
    """Events on every executive's in-flight and hand-off list."""
    names = [name for pattern in (keys.events_in_flight_pattern(), keys.events_handoff_pattern())
             for name in client.scan_iter(match=pattern, count=CHUNK)]
    return sum(int(cast(int, client.llen(name))) for name in names)


def load_states(client: StrRedis, check_ids: Iterable[tuple[str, str]]) -> dict[tuple[str, str], str | None]:
    """The current state of each (entity, check), None when the check has none."""
    ids = list(check_ids)
    states: dict[tuple[str, str], str | None] = {}
    for start in range(0, len(ids), CHUNK):
        part = ids[start:start + CHUNK]
        pipe = client.pipeline(transaction=False)
        for entity, check in part:
            pipe.hget(keys.check(entity, check), "state")
        states.update(zip(part, pipe.execute(), strict=True))
    return states


def state_change_times(client: StrRedis, check_ids: Sequence[tuple[str, str]]) -> dict[tuple[str, str], list[int]]:
    """The times of each check's recorded state changes (its `states` list), oldest first."""
    found: dict[tuple[str, str], list[int]] = {}
    for start in range(0, len(check_ids), CHUNK):
        part = check_ids[start:start + CHUNK]
        pipe = client.pipeline(transaction=False)
        for entity, check in part:
            pipe.lrange(keys.check_states(entity, check), 0, -1)
        found.update((ids, [int(t) for t in times]) for ids, times in zip(part, pipe.execute(), strict=True))
    return found


def state_records(client: StrRedis, check_ids: Sequence[tuple[str, str]]) -> int:
    """How many state records the checks hold: members of their sorted_state_timestamps (one per check and
    second; a second state change of a check in the same second overwrites that second's record)."""
    total = 0
    for start in range(0, len(check_ids), CHUNK):
        pipe = client.pipeline(transaction=False)
        for entity, check in check_ids[start:start + CHUNK]:
            pipe.zcard(keys.sorted_state_timestamps(entity, check))
        total += sum(int(n) for n in pipe.execute())
    return total


# --- the rq queues ------------------------------------------------------------


def rq_queue(connection: BytesRedis, medium: str) -> Queue:
    """The rq queue of a medium: named after it, JSON jobs (contract section 6)."""
    return Queue(medium, connection=connection, serializer=JSONSerializer)


def count_jobs(connection: BytesRedis, media: Iterable[str]) -> int:
    """Jobs waiting in the rq queues of `media` (nobody delivers them during a bench)."""
    return sum(rq_queue(connection, medium).count for medium in media)


def queued_jobs(connection: BytesRedis, media: Iterable[str]) -> list[QueuedJob]:
    """Every job waiting in the rq queues of `media`, with its enqueue time and alert payload."""
    found = []
    for medium in media:
        queue = rq_queue(connection, medium)
        ids = queue.get_job_ids()
        for start in range(0, len(ids), CHUNK):
            jobs = Job.fetch_many(ids[start:start + CHUNK], connection=connection, serializer=queue.serializer)
            found += [QueuedJob(job.enqueued_at.timestamp(), dict(job.args[0]))
                      for job in jobs if job is not None and job.enqueued_at is not None]
    return found


def jobs_pending(connection: BytesRedis, media: Iterable[str]) -> int:
    """Jobs of `media` not settled yet: waiting on their queue, started by a worker, or scheduled for a retry."""
    pending = 0
    for medium in media:
        queue = rq_queue(connection, medium)
        pending += queue.count + StartedJobRegistry(medium, connection=connection).get_job_count(cleanup=False)
        scheduled = ScheduledJobRegistry(medium, connection=connection)  # type: ignore[no-untyped-call]
        pending += scheduled.get_job_count(cleanup=False)
    return pending


# --- delivery -----------------------------------------------------------------


def alerts_recorded(client: StrRedis) -> int:
    """How many alert records the `alerts` index holds (each is written in the MULTI that queues its job)."""
    return int(cast(int, client.zcard(keys.alerts())))


def recorded_alerts(client: StrRedis) -> list[RecordedAlert]:
    """Every alert record (the `alerts` index), oldest first."""
    ids = list(client.zrange(keys.alerts(), 0, -1))
    found: list[RecordedAlert] = []
    for start in range(0, len(ids), CHUNK):
        part = ids[start:start + CHUNK]
        pipe = client.pipeline(transaction=False)
        for alert_id in part:
            pipe.hmget(keys.alert(alert_id), "media", "address", "check", "status")
        found += [RecordedAlert(alert_id, *(value or "" for value in values))
                  for alert_id, values in zip(part, pipe.execute(), strict=True)]
    return found


def live_gateways(client: StrRedis) -> Counter[str]:
    """Gateway worker processes with a live heartbeat, by medium."""
    beats = load_heartbeats(client, int(time.time()))
    return Counter(beat.medium for _, _, beat in beats if beat is not None and beat.role == "gateway")


# --- the reference ------------------------------------------------------------


def prefill_reference(client: BytesRedis, item: str, count: int) -> None:
    """Put `count` copies of `item` on the reference queue, emptying its in-flight list."""
    client.delete(keys.bench_reference_queue(), keys.bench_reference_in_flight())
    for start in range(0, count, CHUNK):
        client.lpush(keys.bench_reference_queue(), *([item] * min(CHUNK, count - start)))


def move_one_by_one(client: BytesRedis, count: int) -> None:
    """LMOVE queue -> in-flight, one command per round trip."""
    src, dst = keys.bench_reference_queue(), keys.bench_reference_in_flight()
    for _ in range(count):
        client.lmove(src, dst, "RIGHT", "LEFT")


def move_pipelined(client: BytesRedis, count: int, size: int) -> None:
    """LMOVE queue -> in-flight in pipelines of `size` commands."""
    src, dst = keys.bench_reference_queue(), keys.bench_reference_in_flight()
    for start in range(0, count, size):
        pipe = client.pipeline(transaction=False)
        for _ in range(min(size, count - start)):
            pipe.lmove(src, dst, "RIGHT", "LEFT")
        pipe.execute()


def write_jobs(client: BytesRedis, job: dict[str, str], count: int, size: int) -> None:
    """Write `count` job hashes plus a list push each, in MULTI pipelines of `size` jobs."""
    for start in range(0, count, size):
        pipe = client.pipeline(transaction=True)
        for n in range(start, min(start + size, count)):
            pipe.hset(keys.bench_reference_job(n), mapping=job)
            pipe.rpush(keys.bench_reference_jobs(), str(n))
        pipe.execute()


def reference_key(name: str) -> str:
    """`name` under the reference's prefix: where the reference writes what an engine key would hold."""
    return keys.bench_reference_pattern().rstrip("*") + name


def send_multis(client: BytesRedis, multis: Sequence[tuple[bytes, int]]) -> None:
    """Send each MULTI (its commands already in Redis's protocol, `count` between MULTI and EXEC) and read
    its replies before the next, on one connection; BenchError when Redis refuses any of its commands."""
    pool = client.connection_pool
    conn = pool.get_connection()
    try:
        parser = getattr(conn, "_parser", None)
        reader = getattr(parser, "_reader", None) if isinstance(parser, _HiredisParser) else None
        for packed, count in multis:
            conn.send_packed_command([packed], check_health=False)
            replies = _read_replies(conn, parser, reader, count + 2)
            _check_exec(replies, count)
    except BaseException:
        conn.disconnect()
        raise
    finally:
        pool.release(conn)


def _read_replies(conn: Any, parser: Any, reader: Any, count: int) -> list[Any]:
    """`count` replies: off hiredis's reader in one loop (as store.plumbing.multi reads a commit's), else
    one by one through redis-py."""
    if reader is None:
        return [conn.read_response(disable_decoding=True) for _ in range(count)]
    replies: list[Any] = []
    while len(replies) < count:
        reply = reader.gets()
        if reply is NOT_ENOUGH_DATA:
            parser.read_from_socket()
        else:
            replies.append(reply)
    return replies


def _check_exec(replies: list[Any], count: int) -> None:
    result = replies[-1]
    refused = [r for r in [*replies[:-1], *(result if isinstance(result, list) else [result])]
               if isinstance(r, Exception)]
    if refused or not isinstance(result, list) or len(result) != count:
        raise BenchError(f"the alert-writes reference was refused: {refused[:1] or result!r}")


def clear_reference(client: BytesRedis) -> None:
    """Delete every key the reference wrote."""
    names = list(client.scan_iter(match=keys.bench_reference_pattern(), count=CHUNK))
    for start in range(0, len(names), CHUNK):
        client.unlink(*names[start:start + CHUNK])
