"""Recurring scheduled maintenance series in Redis, and their occurrences materialised ahead of time.

A series is a hash `maintenance_series:ID` (ids in the set `maintenance_series`). Its occurrences
are written as ordinary scheduled-maintenance windows (store/maintenance.py, engine.md 7.1), so
every reader of the seed layout sees them, and recorded in `maintenance_series:ID:occurrences`
so that editing or deleting the series can remove the future ones (and only those).
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Iterable, Iterator

import redis

from flapjack_py import keys
from flapjack_py.oncall.recurrence import InvalidSeries, Series, as_tuple, occurrences
from flapjack_py.store import maintenance as maint
from flapjack_py.store.checks import check_exists, current_check_names
from flapjack_py.store.plumbing.client import StrRedis

log = logging.getLogger(__name__)

AHEAD = 14 * 86400
"""How far ahead (seconds) occurrences are materialised; the executive's housekeeping moves it along."""
MAX_WINDOWS = 10_000
"""Most windows one series may have ahead (occurrences within AHEAD x target checks)."""
WRITE_CHUNK = 200
"""Checks whose windows are written in one pipeline."""
_TARGETS = ("checks", "entities", "tags")


def to_hash(series: Series) -> dict[str, str]:
    """The hash fields of `series` (lists as JSON)."""
    fields = {"id": series.id, "rrule": series.rrule, "timezone": series.timezone, "start": str(series.start),
              "duration": str(series.duration), "summary": series.summary, "created": str(series.created)}
    fields.update({name: json.dumps(list(getattr(series, name))) for name in _TARGETS})
    return fields


def from_hash(fields: dict[str, str]) -> Series | None:
    """The Series stored in `fields`, or None for a missing or damaged hash."""
    try:
        return Series(id=fields["id"], rrule=fields["rrule"], timezone=fields["timezone"],
                      start=int(fields["start"]), duration=int(fields["duration"]),
                      summary=fields.get("summary", ""), created=int(fields.get("created") or 0),
                      **{name: as_tuple(json.loads(fields.get(name) or "[]")) for name in _TARGETS})
    except (KeyError, ValueError, TypeError):
        return None


def save_series(client: StrRedis, series: Series) -> None:
    """Store (or replace) `series`; does not materialise it."""
    with client.pipeline() as pipe:
        pipe.hset(keys.maintenance_series(series.id), mapping=to_hash(series))
        pipe.sadd(keys.maintenance_series_ids(), series.id)
        pipe.execute()
    log.info("maintenance series %s saved: %s in %s, %ss", series.id, series.rrule, series.timezone, series.duration)


def load_series(client: StrRedis, series_id: str) -> Series | None:
    """The series with `series_id`, or None."""
    return from_hash(client.hgetall(keys.maintenance_series(series_id)))


def list_series(client: StrRedis, ids: Iterable[str] | None = None) -> list[Series]:
    """The series with `ids` (default: every series), unknown ids left out, sorted by id when listing all."""
    wanted = list(ids) if ids is not None else sorted(client.smembers(keys.maintenance_series_ids()))
    with client.pipeline(transaction=False) as pipe:
        for series_id in wanted:
            pipe.hgetall(keys.maintenance_series(series_id))
        found = [from_hash(h) for h in pipe.execute()]
    return [s for s in found if s is not None]


def target_checks(client: StrRedis, series: Series) -> list[tuple[str, str]]:
    """(entity, check) pairs the series covers now: its checks, every current check of its entities, and
    the checks carrying one of its tags or belonging to an entity that does."""
    found = [keys.split_check_id(c) for c in series.checks]
    names = _entity_names(client, series.entities)
    for tag in series.tags:
        found += [keys.split_check_id(c) for c in client.smembers(keys.check_tag(tag))]
        names += _entity_names(client, list(client.smembers(keys.entity_tag(tag))))
    for name in names:
        found += [(name, check) for check in current_check_names(client, name)]
    return list(dict.fromkeys(found))


def check_plan(client: StrRedis, series: Series, now: int, ahead: int = AHEAD, known_checks: bool = True) -> None:
    """Raise InvalidSeries when `series` names a check that was never seen (unless not `known_checks`: the
    operator's command line may plan for checks to come), or would write more than MAX_WINDOWS windows ahead
    (occurrences within `ahead` x target checks)."""
    unknown = [c for c in series.checks if known_checks and not check_exists(client, *keys.split_check_id(c))]
    if unknown:
        raise InvalidSeries(f"unknown checks: {', '.join(unknown[:10])}" + (" ..." if len(unknown) > 10 else ""))
    windows = len(occurrences(series, now, now + ahead)) * len(target_checks(client, series))
    if windows > MAX_WINDOWS:
        raise InvalidSeries(f"the series would make {windows} maintenance windows in the next "
                            f"{ahead // 86400} days (at most {MAX_WINDOWS}): fewer occurrences or targets")


def materialise(client: StrRedis, series: Series, now: int, ahead: int = AHEAD) -> int:
    """Write the occurrences overlapping [now, now + ahead) as scheduled windows on every target check,
    skipping those already written (or ended by hand) before; return how many windows were written.

    One read of the targets' windows, then one pipeline per WRITE_CHUNK checks; at most MAX_WINDOWS."""
    starts = occurrences(series, now, now + ahead)
    if not starts:
        return 0
    done = _recorded(client, series.id, starts[0], starts[-1])
    targets = target_checks(client, series)
    if len(starts) * len(targets) > MAX_WINDOWS:
        log.error("maintenance series %s would make %d windows (at most %d): not materialised",
                  series.id, len(starts) * len(targets), MAX_WINDOWS)
        return 0
    written = 0
    for chunk in _chunks(targets, WRITE_CHUNK):
        todo = {target: [t for t in starts if _member(*target, t) not in done] for target in chunk}
        todo = {target: new for target, new in todo.items() if new}
        if todo:
            _write_windows(client, series, todo, now)
            written += sum(len(new) for new in todo.values())
    if written:
        log.info("maintenance series %s: %d windows materialised", series.id, written)
    return written


def _write_windows(client: StrRedis, series: Series, todo: dict[tuple[str, str], list[int]], now: int) -> None:
    """Add the windows `todo` names (check -> starts) and re-evaluate each check's window in force."""
    with client.pipeline(transaction=False) as pipe:
        for entity, check in todo:
            pipe.zrange(keys.maintenances(entity, check, maint.SCHEDULED), 0, -1, withscores=True)
        loaded = pipe.execute()
    with client.pipeline() as pipe:
        for ((entity, check), new), pairs in zip(todo.items(), loaded, strict=True):
            windows = {int(float(m)): int(d) for m, d in pairs}
            for start in new:
                windows[start] = series.duration
                maint.add_window(pipe, entity, check, maint.SCHEDULED, start, series.duration, series.summary)
            maint.revalidate_scheduled(pipe, entity, check, windows, now)
            pipe.zadd(keys.maintenance_series_occurrences(series.id),
                      {_member(entity, check, start): start for start in new})
        pipe.execute()


def _chunks(items: list[tuple[str, str]], size: int) -> Iterator[list[tuple[str, str]]]:
    for at in range(0, len(items), size):
        yield items[at:at + size]


def materialise_some(client: StrRedis, now: int, after_id: str, deadline: float,
                     ahead: int = AHEAD) -> tuple[int, str | None]:
    """Materialise series in id order from the one after `after_id` ("" = the first) until the monotonic
    clock passes `deadline` (housekeeping's budget); a damaged series is logged and skipped. Return the
    windows written and the id to go on after next time, or None when every series was done."""
    ids = sorted(i for i in client.smembers(keys.maintenance_series_ids()) if i > after_id)
    written = 0
    for at, series_id in enumerate(ids):
        if at and time.monotonic() >= deadline:
            return written, ids[at - 1]
        series = load_series(client, series_id)
        if series is None:
            continue
        try:
            written += materialise(client, series, now, ahead)
        except (ValueError, redis.ResponseError):
            log.exception("maintenance series %s cannot be materialised", series.id)
    return written, None


def remove_future(client: StrRedis, series_id: str, now: int) -> int:
    """Delete the series' windows that start after `now` (past and in-progress ones stay); return how many."""
    key = keys.maintenance_series_occurrences(series_id)
    future = list(client.zrangebyscore(key, f"({now}", "+inf"))
    for member in future:
        entity, check, start = json.loads(member)
        maint.end_scheduled(client, entity, check, int(start), now)
    if future:
        client.zrem(key, *future)
    return len(future)


def forget_ended(client: StrRedis, cutoff: int) -> int:
    """Drop the record of every occurrence that ended at or before `cutoff` (retention: its window is history,
    and materialise only looks at occurrences that have not ended); return how many went."""
    series = list_series(client)
    with client.pipeline(transaction=False) as pipe:
        for one in series:
            pipe.zremrangebyscore(keys.maintenance_series_occurrences(one.id), "-inf", cutoff - one.duration)
        return sum(int(n) for n in pipe.execute())


def replace_series(client: StrRedis, series: Series, now: int) -> int:
    """Store an edited series: its future windows are made again from the new rule (past and in-progress
    ones stay); return how many windows were written."""
    remove_future(client, series.id, now)
    save_series(client, series)
    written = materialise(client, series, now)
    log.info("maintenance series %s changed (%d windows ahead)", series.id, written)
    return written


def delete_series(client: StrRedis, series_id: str, now: int) -> int:
    """Delete a series and its future windows; return how many windows were removed."""
    removed = remove_future(client, series_id, now)
    with client.pipeline() as pipe:
        pipe.delete(keys.maintenance_series(series_id), keys.maintenance_series_occurrences(series_id))
        pipe.srem(keys.maintenance_series_ids(), series_id)
        pipe.execute()
    log.info("maintenance series %s deleted (%d future windows removed)", series_id, removed)
    return removed


def series_for_check(client: StrRedis, entity: str, check: str) -> list[Series]:
    """The series that cover `entity:check` now."""
    return [s for s in list_series(client) if (entity, check) in target_checks(client, s)]


def series_for_entity(client: StrRedis, entity_id: str) -> list[Series]:
    """The series that name the entity itself (every check of it)."""
    return [s for s in list_series(client) if entity_id in s.entities]


def _entity_names(client: StrRedis, ids: Iterable[str]) -> list[str]:
    wanted = list(ids)
    return [n for n in client.hmget(keys.entity_names_by_id(), wanted) if n] if wanted else []


def _recorded(client: StrRedis, series_id: str, first: int, last: int) -> set[str]:
    return set(client.zrangebyscore(keys.maintenance_series_occurrences(series_id), first, last))


def _member(entity: str, check: str, start: int) -> str:
    return json.dumps([entity, check, start])

