"""Check state in Redis: load snapshots for the executive, write state changes, read for API/bot/notifier.

Layout: seed 004 "Storing all check state changes", "Failed checks", "Current
checks and entities", "All checks", plus checks_by_hash/check_hashes_by_id.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable, Sequence
from typing import Any, cast

from flapjack_py import keys
from flapjack_py.model.checks import NOTIFICATION_KINDS, CheckSnapshot, StateChange
from flapjack_py.model.events import Event, parse_perfdata
from flapjack_py.store.plumbing import scripts, staged
from flapjack_py.store.plumbing.client import StrRedis, call_read_script, to_int
from flapjack_py.store.plumbing.writes import Writes

SNAPSHOT_CHUNK = 100
"""Checks per LOAD_SNAPSHOTS call: bounds how long one call holds Redis (every other client waits)."""


def load_snapshots(client: StrRedis, check_ids: Sequence[tuple[str, str]],
                   ok_only: Collection[tuple[str, str]] = ()) -> dict[tuple[str, str], CheckSnapshot]:
    """Read the snapshots of several checks in one round trip: one Lua call per SNAPSHOT_CHUNK checks,
    pipelined, so no single call holds Redis for long (each check is read atomically).

    Of the checks in `ok_only` (the caller only applies `ok` results to them, which read neither), a check
    whose state is ok comes without notification times (all None) and tags: fewer keys read.
    """
    replies = call_read_script(client, scripts.LOAD_SNAPSHOTS, snapshot_calls(check_ids, ok_only))
    return snapshots_from(check_ids, replies)


def snapshot_calls(check_ids: Sequence[tuple[str, str]],
                   ok_only: Collection[tuple[str, str]] = ()) -> list[tuple[list[str], list[str]]]:
    """The LOAD_SNAPSHOTS calls (keys, args) reading `check_ids`, one per SNAPSHOT_CHUNK checks (see
    load_snapshots; the executive sends them with its commit guard, store/guard.py)."""
    calls = []
    for first in range(0, len(check_ids), SNAPSHOT_CHUNK):
        chunk = check_ids[first:first + SNAPSHOT_CHUNK]
        args = [v for ids in chunk for v in (keys.check_id(*ids), ids[0], "1" if ids in ok_only else "0")]
        calls.append((_snapshot_keys(chunk), args))
    return calls


def snapshots_from(check_ids: Sequence[tuple[str, str]], replies: list[Any]) -> dict[tuple[str, str], CheckSnapshot]:
    """The snapshots of `check_ids` from the replies of their snapshot_calls."""
    flat = [reply for chunk in replies for reply in chunk]
    return {ids: _snapshot_from(ids, reply) for ids, reply in zip(check_ids, flat, strict=True)}


def _snapshot_keys(check_ids: Sequence[tuple[str, str]]) -> list[str]:
    found = [keys.entity_ids_by_name(), keys.all_checks(), keys.check_hashes_by_id(), keys.failed_checks()]
    for entity, check in check_ids:
        found += [keys.check(entity, check), keys.maintenances(entity, check, "scheduled"),
                  keys.check_tags(entity, check)]
        found += [keys.last_notification(entity, check, kind) for kind in NOTIFICATION_KINDS]
        found += [keys.maintenance(entity, check, "scheduled"), keys.maintenance(entity, check, "unscheduled")]
    return found


def _pairs(flat: list[Any]) -> list[tuple[Any, Any]]:
    return list(zip(flat[::2], flat[1::2], strict=True))


def _snapshot_from(ids: tuple[str, str], r: list[Any]) -> CheckSnapshot:
    entity, check = ids
    state, last_change, last_update, ifd, rfd, interval, flap_history, flapping_since = r[3]
    values = r[4]
    n = len(NOTIFICATION_KINDS)
    return CheckSnapshot(
        entity=entity, check=check, entity_id=r[0] or None, registered=bool(r[1]),
        ack_hash_stored=bool(r[2]), state=state or None, last_change=to_int(last_change),
        last_update=to_int(last_update), initial_failure_delay=to_int(ifd), repeat_failure_delay=to_int(rfd),
        interval=to_int(interval), flap_history=flap_history or "", flapping_since=to_int(flapping_since),
        last_notifications=dict(zip(NOTIFICATION_KINDS, map(to_int, values[:n]), strict=True)),
        scheduled_start=to_int(values[n]), unscheduled_start=to_int(values[n + 1]),
        scheduled_windows={int(float(m)): int(float(s)) for m, s in _pairs(r[5])} if r[5] else {},
        failing_since=to_int(r[6]),
        check_tags=frozenset(r[7]) if r[7] else frozenset(),
    )


# --- writes used by the executive (into its MULTI pipeline) ---------------


def add_entity(pipe: Writes, entity_id: str, name: str) -> None:
    """Map a new entity id <-> name."""
    pipe.hset(keys.entity_ids_by_name(), name, entity_id)
    pipe.hset(keys.entity_names_by_id(), entity_id, name)


def register_check(pipe: Writes, entity: str, check: str, now: int) -> None:
    """Add a check to all_checks and all_checks:E (score = now)."""
    pipe.zadd(keys.all_checks(), {keys.check_id(entity, check): now})
    pipe.zadd(keys.all_checks_for(entity), {check: now})


def add_ack_hash(pipe: Writes, event_id: str, hash_: str) -> None:
    """Store the ack hash <-> E:C mapping."""
    pipe.hset(keys.checks_by_hash(), hash_, event_id)
    pipe.hset(keys.check_hashes_by_id(), event_id, hash_)


def write_state_change(pipe: Writes, event: Event, now: int, counter: int) -> None:
    """Record a new state: check hash, failed_checks, history list, per-timestamp keys, sorted mirror."""
    e, c = event.entity, event.check
    if event.is_failure:
        pipe.hset(keys.check(e, c), mapping={"state": event.state, "last_change": now})
        pipe.zadd(keys.failed_checks(), {event.id: now})
    else:  # the ack codes of its failure close (store/ack_codes.py)
        pipe.hset(keys.check(e, c), mapping={"state": event.state, "last_change": now, "ack_closed": now})
        pipe.zrem(keys.failed_checks(), event.id)
    pipe.rpush(keys.check_states(e, c), now)
    pipe.set(keys.check_state_at(e, c, now), event.state)
    if event.summary is not None:
        pipe.set(keys.check_summary_at(e, c, now), event.summary)
    if event.details is not None:
        pipe.set(keys.check_details_at(e, c, now), event.details)
    pipe.set(keys.check_count_at(e, c, now), counter)
    pipe.zadd(keys.sorted_state_timestamps(e, c), {str(now): now})


def write_update(pipe: Writes, event: Event, now: int, ifd: int, rfd: int) -> None:
    """What every service event writes, changed state or not (engine.md 2.3 'Always')."""
    e, c = event.entity, event.check
    fields: dict[str, Any] = {"last_update": now, "summary": event.summary or "", "details": event.details or "",
                              "initial_failure_delay": ifd, "repeat_failure_delay": rfd}
    if event.perfdata is not None:
        fields["perfdata"] = json.dumps(parse_perfdata(event.perfdata))
    pipe.hset(keys.check(e, c), mapping=fields)
    pipe.zadd(keys.all_checks(), {event.id: now})
    pipe.zadd(keys.all_checks_for(e), {c: now})
    pipe.zadd(keys.current_checks(e), {c: now})
    pipe.zadd(keys.current_entities(), {e: now})


def write_action(pipe: Writes, event: Event, now: int) -> None:
    """Record an action event in E:C:actions."""
    pipe.hset(keys.check_actions(event.entity, event.check), str(now), event.state)


def write_notification(pipe: Writes, entity: str, check: str, kinds: Iterable[str], now: int) -> None:
    """Set last_<kind>_notification and append to <kind>_notifications for each kind."""
    for kind in kinds:
        pipe.set(keys.last_notification(entity, check, kind), now)
        pipe.rpush(keys.notifications(entity, check, kind), now)


# --- reads used by the executive, API, bot and notifier --------------------


def load_recent_state_changes(client: StrRedis, check_ids: Sequence[tuple[str, str]]
                              ) -> dict[tuple[str, str], list[StateChange]]:
    """The two newest recorded state changes (newest first) of each check, in two round trips."""
    return staged.run(client, recent_state_changes_reads(check_ids))


def recent_state_changes_reads(check_ids: Sequence[tuple[str, str]]
                               ) -> staged.Reads[dict[tuple[str, str], list[StateChange]]]:
    """load_recent_state_changes in two steps (flapjack_py.store.plumbing.staged): the timestamps name the records."""
    def stamps_of(p: Any) -> None:
        for entity, check in check_ids:
            p.zrevrange(keys.sorted_state_timestamps(entity, check), 0, 1)

    replies = (yield staged.Step(stamps_of)) if check_ids else []
    stamps = [list(found) for found in replies]

    def records(p: Any) -> None:  # one MGET per check: its changes' states and summaries
        for (entity, check), found in zip(check_ids, stamps, strict=True):
            if found:
                p.mget([k for ts in found for k in (keys.check_state_at(entity, check, ts),
                                                     keys.check_summary_at(entity, check, ts))])

    values = iter((yield staged.Step(records)) if any(stamps) else [])
    return {ids: _state_changes(found, next(values)) if found else []
            for ids, found in zip(check_ids, stamps, strict=True)}


def load_check(client: StrRedis, entity: str, check: str) -> dict[str, str]:
    """The check:E:C hash as str -> str ({} if never seen)."""
    return dict(client.hgetall(keys.check(entity, check)))


def check_id_for_hash(client: StrRedis, hash_: str) -> str | None:
    """E:C for an ack hash (compared lower-cased), or None."""
    return cast("str | None", client.hget(keys.checks_by_hash(), hash_.lower()))


def failed_check_count(client: StrRedis) -> int:
    """How many checks are failing (failed_checks)."""
    return int(client.zcard(keys.failed_checks()))


def failed_check_ids(client: StrRedis) -> list[str]:
    """E:C of every failing check, oldest failure first."""
    return list(client.zrange(keys.failed_checks(), 0, -1))


def current_check_names(client: StrRedis, entity: str) -> list[str]:
    """Names of an entity's enabled checks, sorted."""
    return sorted(m for m in client.zrange(keys.current_checks(entity), 0, -1))


def all_check_ids(client: StrRedis) -> list[str]:
    """Every E:C ever seen."""
    return list(client.zrange(keys.all_checks(), 0, -1))


def check_exists(client: StrRedis, entity: str, check: str) -> bool:
    """True when the check was ever seen (in all_checks, or its check:E:C hash exists)."""
    return client.zscore(keys.all_checks(), keys.check_id(entity, check)) is not None or \
        bool(client.exists(keys.check(entity, check)))


def check_state(client: StrRedis, entity: str, check: str) -> str | None:
    """Current state of a check, or None if never seen."""
    return cast("str | None", client.hget(keys.check(entity, check), "state"))


def is_enabled(client: StrRedis, entity: str, check: str) -> bool:
    """True when the check is in current_checks:E."""
    return client.zscore(keys.current_checks(entity), check) is not None


def _state_changes(stamps: list[str], states_and_summaries: list[str | None]) -> list[StateChange]:
    """The changes at `stamps` from their MGET'd state and summary, in turn."""
    return [StateChange(int(float(ts)), states_and_summaries[2 * i], states_and_summaries[2 * i + 1])
            for i, ts in enumerate(stamps)]
