"""Stale checks in Redis: the learned interval per check, the stale_checks set and the housekeeping sweep.

A check's last result time is its all_checks score (every service event sets
it); `sweep` reads the checks past their threshold, marks the newly stale ones
(and unmarks those heard from again) and, with stale_state unknown, queues their
synthetic unknown results. One executive sweeps per period (stale_sweep_lock).
"""

from __future__ import annotations

import logging
from typing import Any, cast

from flapjack_py import keys
from flapjack_py.model import staleness
from flapjack_py.model.events import Event
from flapjack_py.model.staleness import Stale
from flapjack_py.store.events import push_events
from flapjack_py.store.plumbing.client import StrRedis
from flapjack_py.store.plumbing.writes import Writes

log = logging.getLogger(__name__)


def remember(pipe: Writes, entity: str, check: str, interval: int | None) -> None:
    """Store a check's learned interval (in its check hash: the executive reads it with the snapshot)."""
    if interval is not None:
        pipe.hset(keys.check(entity, check), "interval", interval)


def write_stale_result(pipe: Writes, event: Event) -> None:
    """What a stale check's synthetic result writes besides its state change: the summary shown, not last_update."""
    pipe.hset(keys.check(event.entity, event.check), mapping={"summary": event.summary or "", "details": ""})


def take_turn(client: StrRedis, holder: str, seconds: int) -> bool:
    """True when this executive sweeps this period (nobody else has in the last `seconds`)."""
    return bool(client.set(keys.stale_sweep_lock(), holder, nx=True, ex=max(seconds, 1)))


def sweep(client: StrRedis, stale_after: int | None, now: int, unknown: bool, queue: str,
          max_backlog: int) -> list[Stale]:
    """Mark the checks gone stale since the last sweep (queueing their unknown results when `unknown`), unmark
    those heard from again; return the newly stale. Nothing is marked while more than `max_backlog` events wait
    (their checks are not silent, the executives are behind)."""
    if client.llen(keys.events(queue)) > max_backlog:
        log.info("stale check sweep skipped: more than %d events queued", max_backlog)
        return []
    _unmark_heard(client)
    floor = stale_after if stale_after is not None else staleness.MIN_STALE_AFTER
    rows = client.zrangebyscore(keys.all_checks(), "-inf", now - floor, withscores=True)
    ids = [check_id for check_id, _ in rows]
    p = client.pipeline(transaction=False)
    for check_id in ids:
        entity, check = keys.split_check_id(check_id)
        p.hget(keys.check(entity, check), "interval")
        p.zscore(keys.current_checks(entity), check)
    replies = p.execute()
    candidates = {check_id: (int(heard), _int(replies[2 * i])) for i, (check_id, heard) in enumerate(rows)
                  if replies[2 * i + 1] is not None}
    found = staleness.stale_verdicts(candidates, stale_after, now)
    p = client.pipeline(transaction=False)
    for stale in found:
        p.zadd(keys.stale_checks(), {stale.check_id: stale.heard}, nx=True)
    fresh = [stale for stale, added in zip(found, p.execute(), strict=True) if added]
    if fresh:
        log.info("%d checks went stale: %s", len(fresh), ", ".join(s.check_id for s in fresh[:20]))
    if fresh and unknown:
        push_events(client, [staleness.stale_event(s, *keys.split_check_id(s.check_id)) for s in fresh], queue)
    return fresh


def stale_checks(client: StrRedis) -> dict[str, int]:
    """Checks stale now (not heard from since they were marked): E:C -> when last heard from."""
    marked = cast(list[tuple[str, float]], client.zrange(keys.stale_checks(), 0, -1, withscores=True))
    if not marked:
        return {}
    scores = client.zmscore(keys.all_checks(), [check_id for check_id, _ in marked])
    return {check_id: int(heard) for (check_id, heard), score in zip(marked, scores, strict=True)
            if score is not None and int(score) <= int(heard)}


def _unmark_heard(c: StrRedis) -> None:
    marked = cast(list[tuple[str, float]], c.zrange(keys.stale_checks(), 0, -1, withscores=True))
    if not marked:
        return
    scores = c.zmscore(keys.all_checks(), [check_id for check_id, _ in marked])
    gone = [check_id for (check_id, heard), score in zip(marked, scores, strict=True)
            if score is None or int(score) > int(heard)]
    if gone:
        c.zrem(keys.stale_checks(), *gone)


def _int(value: Any) -> int | None:
    try:
        return int(value) if value is not None else None
    except ValueError:
        return None
