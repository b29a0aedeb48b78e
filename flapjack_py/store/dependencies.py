"""Dependencies in Redis (flapjack_py.model.dependencies): the records, guarded writes that refuse a cycle, the
parents' states the executive reads with a batch's snapshots, the children a recovered parent releases, and
which failing checks the UI shows as inhibited.

Layout: `dependencies` (hash: id -> JSON record) and `dependencies:version` (raised by every write, so each
executive keeps a copy of the records and reads only the version and its parents' states per batch).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, cast

import redis

from flapjack_py import keys
from flapjack_py.errors import FlapjackError
from flapjack_py.model.dependencies import (
    MAX_DEPENDENCIES,
    Dependency,
    DependencyCycle,
    DependencyTable,
    InvalidDependency,
    find_cycle,
    from_json,
    is_failing,
    table,
    to_json,
)
from flapjack_py.store.plumbing.client import StrRedis
from flapjack_py.store.plumbing.writes import Writes

log = logging.getLogger(__name__)

Command = tuple[Any, ...]
"""One Redis command as sent: name, then arguments (flapjack_py.store.plumbing.guard.watch_list `extra`)."""


class DependencyExists(FlapjackError):
    """A dependency given already exists: its id is taken, or the same parent and child are stored (the
    message names them)."""


# --- records -------------------------------------------------------------------


def load_all(client: StrRedis) -> list[Dependency]:
    """Every stored dependency, by parent then id."""
    return _records(cast(dict[str, str], client.hgetall(keys.dependencies())))


def load(client: StrRedis, ids: Sequence[str]) -> list[Dependency]:
    """The stored dependencies of `ids` (missing ones left out), in that order."""
    if not ids:
        return []
    found = cast(list[str | None], client.hmget(keys.dependencies(), list(ids)))
    return [d for i, text in zip(ids, found, strict=True) if text is not None and (d := from_json(i, text))]


def add(client: StrRedis, new: Sequence[Dependency], replace: bool = False) -> None:
    """Store `new`, unless an id is taken (DependencyExists; with `replace` the stored one is replaced), the same
    parent and child are stored (DependencyExists), there would be more than MAX_DEPENDENCIES (InvalidDependency)
    or checks would depend on themselves through the stored ones, with the parents' current tags
    (DependencyCycle). Guarded by WATCH: two writers cannot each add half of a cycle."""
    with client.pipeline(transaction=True) as pipe:
        while True:
            try:
                pipe.watch(keys.dependencies_version(), keys.dependencies())
                stored = _records(pipe.hgetall(keys.dependencies()))
                if replace:
                    stored = [d for d in stored if d.id not in {n.id for n in new}]
                _check_addable(client, stored, new)
                pipe.multi()
                pipe.hset(keys.dependencies(), mapping={d.id: json.dumps(to_json(d)) for d in new})
                pipe.incr(keys.dependencies_version())
                pipe.execute()
                log.info("dependencies added: %s", ", ".join(f"{d.id} ({d.kind} {d.value} on {d.parent})" for d in new))
                return
            except redis.WatchError:
                continue


def replace_all(client: StrRedis, new: Sequence[Dependency]) -> None:
    """Put `new` in place of every stored dependency (a backtest's scratch database); DependencyCycle as `add`."""
    check_all(client, new)
    with client.pipeline(transaction=True) as pipe:
        pipe.delete(keys.dependencies())
        if new:
            pipe.hset(keys.dependencies(), mapping={d.id: json.dumps(to_json(d)) for d in new})
        pipe.incr(keys.dependencies_version())
        pipe.execute()


def check_all(client: StrRedis, deps: Sequence[Dependency]) -> None:
    """Raise as `add` would if `deps` were the only dependencies (with the parents' current tags)."""
    _check_addable(client, [], deps)


def delete(client: StrRedis, ids: Sequence[str]) -> None:
    """Remove dependencies `ids`."""
    with client.pipeline(transaction=True) as pipe:
        pipe.hdel(keys.dependencies(), *ids)
        pipe.incr(keys.dependencies_version())
        pipe.execute()
    log.info("dependencies deleted: %s", ", ".join(ids))


def _check_addable(client: StrRedis, stored: list[Dependency], new: Sequence[Dependency]) -> None:
    taken = sorted({d.id for d in stored} & {d.id for d in new})
    if taken:
        raise DependencyExists(f"dependencies already exist with the following ids: {', '.join(taken)}")
    same = {(d.parent, d.kind, d.value): d.id for d in stored}
    for dep in new:
        if (dep.parent, dep.kind, dep.value) in same:
            raise DependencyExists(f"{dep.kind} {dep.value} already depends on {dep.parent} "
                                   f"(dependency {same[dep.parent, dep.kind, dep.value]})")
        same[dep.parent, dep.kind, dep.value] = dep.id
    if len(stored) + len(new) > MAX_DEPENDENCIES:
        raise InvalidDependency(f"at most {MAX_DEPENDENCIES} dependencies can be stored ({len(stored)} are)")
    every = [*stored, *new]
    cycle = find_cycle(every, _tags_of(client, table(every).parents))
    if cycle:
        raise DependencyCycle(cycle)


def _tags_of(client: StrRedis, check_ids: Sequence[str]) -> dict[str, set[str]]:
    """The stored check tags of `check_ids` (one round trip)."""
    pipe = client.pipeline(transaction=False)
    for check_id in check_ids:
        pipe.smembers(keys.check_tags(*keys.split_check_id(check_id)))
    return {check_id: set(tags) for check_id, tags in zip(check_ids, pipe.execute(), strict=True)}


def _records(raw: Mapping[str, str]) -> list[Dependency]:
    found = [d for i, text in raw.items() if (d := from_json(i, text)) is not None]
    return sorted(found, key=lambda d: (d.parent, d.id))


# --- the executive's reads -------------------------------------------------------


def state_reads(parents: Sequence[str]) -> list[Command]:
    """The commands reading the records' version and whether each of `parents` fails (in failed_checks and
    among its entity's current checks): sent with the batch's snapshot read (states_from reads the replies)."""
    reads: list[Command] = [("GET", keys.dependencies_version())]
    if parents:
        reads.append(("ZMSCORE", keys.failed_checks(), *parents))
        for entity, checks in _by_entity(parents).items():
            reads.append(("ZMSCORE", keys.current_checks(entity), *checks))
    return reads


def states_from(parents: Sequence[str], replies: Sequence[Any]) -> tuple[str | None, dict[str, bool]]:
    """(the version read, parent -> failing now) from the replies of state_reads(parents)."""
    version = None if replies[0] is None else str(replies[0])
    if not parents:
        return version, {}
    failed = {p for p, score in zip(parents, replies[1], strict=True) if score is not None}
    current: set[str] = set()
    for (entity, checks), scores in zip(_by_entity(parents).items(), replies[2:], strict=True):
        current.update(keys.check_id(entity, c) for c, score in zip(checks, scores, strict=True) if score is not None)
    return version, {p: p in failed and p in current for p in parents}


def load_table(client: StrRedis) -> tuple[str | None, list[Dependency], dict[str, bool]]:
    """(version, every dependency, parent -> failing) read afresh: when an executive's copy is older."""
    with client.pipeline(transaction=True) as pipe:
        pipe.get(keys.dependencies_version())
        pipe.hgetall(keys.dependencies())
        version, raw = pipe.execute()
    deps = _records(raw)
    return version, deps, parent_states(client, table(deps).parents)


def parent_states(client: StrRedis, parents: Sequence[str]) -> dict[str, bool]:
    """Parent -> failing now (one round trip)."""
    if not parents:
        return {}
    pipe = client.pipeline(transaction=False)
    for command in state_reads(parents):
        pipe.execute_command(*command)
    return states_from(parents, pipe.execute())[1]


def queue_releases(pipe: Writes, queue: str, raws: Sequence[str]) -> None:
    """Queue the release results of a recovered parent's children (with the batch's writes)."""
    if raws:
        pipe.lpush(keys.events(queue), *raws)


def release_candidates(client: StrRedis, deps: Iterable[Dependency]) -> dict[str, tuple[str, str | None]]:
    """The current checks the children of `deps` name that fail now: check id -> (state, summary). Two round
    trips (the children's members, then their state); made only when a parent recovered."""
    deps = list(deps)
    pipe = client.pipeline(transaction=False)
    for dep in deps:
        if dep.kind == "entity":
            pipe.zrange(keys.current_checks(dep.value), 0, -1)
        elif dep.kind == "tag":
            pipe.smembers(keys.check_tag(dep.value))
    members = iter(pipe.execute())
    ids: set[str] = set()
    for dep in deps:
        if dep.kind == "check":
            ids.add(dep.value)
        elif dep.kind == "entity":
            ids.update(keys.check_id(dep.value, c) for c in next(members))
        else:
            ids.update(next(members))
    return _failing_current(client, sorted(ids - {d.parent for d in deps}))


def _failing_current(client: StrRedis, ids: Sequence[str]) -> dict[str, tuple[str, str | None]]:
    pipe = client.pipeline(transaction=False)
    for check_id in ids:
        entity, check = keys.split_check_id(check_id)
        pipe.hmget(keys.check(entity, check), "state", "summary")
        pipe.zscore(keys.current_checks(entity), check)
    replies = pipe.execute()
    found = {}
    for i, check_id in enumerate(ids):
        (state, summary), current = replies[2 * i], replies[2 * i + 1]
        if current is not None and is_failing(state):
            found[check_id] = (str(state), summary)
    return found


# --- what the UI shows -------------------------------------------------------------


def inhibitors(client: StrRedis, check_ids: Sequence[str]) -> dict[str, str]:
    """Check id -> the (first) failing parent inhibiting it, for those of `check_ids` that have one. One round
    trip when there are no dependencies, two otherwise."""
    found = table(load_all(client)) if check_ids else DependencyTable()
    if not found:
        return {}
    tags = sorted(found.tags)
    pipe = client.pipeline(transaction=False)
    for command in state_reads(found.parents):
        pipe.execute_command(*command)
    for tag in tags:
        pipe.smembers(keys.check_tag(tag))
    replies = pipe.execute()
    reads = len(replies) - len(tags)
    failing = states_from(found.parents, replies[:reads])[1]
    tagged = {tag: set(members) for tag, members in zip(tags, replies[reads:], strict=True)}
    result = {}
    for check_id in check_ids:
        own = [tag for tag, members in tagged.items() if check_id in members]
        parents = [p for p in found.parents_of(check_id, keys.split_check_id(check_id)[0], own) if failing.get(p)]
        if parents:
            result[check_id] = parents[0]
    return result


def _by_entity(check_ids: Iterable[str]) -> dict[str, list[str]]:
    grouped: dict[str, list[str]] = {}
    for check_id in check_ids:
        entity, check = keys.split_check_id(check_id)
        grouped.setdefault(entity, []).append(check)
    return grouped
