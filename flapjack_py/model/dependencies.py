"""Dependencies (issue 33.1): a child check depends on a parent check; while a parent fails, the child's
problems are not paged (inhibited). Pure: the records, their validation, who a check's parents are, cycles.

A child is one check (`{"check": "E:C"}`), every check of an entity (`{"entity": "NAME"}`) or every check
carrying a stored check tag (`{"tag": "TAG"}`, the tags set through the API, the UI or `flapjack import`).
A check never depends on itself: an entity or tag child leaves out its own parent. A parent fails while it
is a current (enabled) check in warning, critical or unknown.

When a parent recovers, the executive queues a synthetic result per child still failing (`release_event`,
tagged RELEASE_TAG): processed like a result that changes nothing, it notifies the child's problem through
the filters (its own delays and rules), unless the child's state moved on meanwhile.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from flapjack_py.errors import FlapjackError
from flapjack_py.model.checks import CheckSnapshot, StateChange
from flapjack_py.model.events import FAILURE_STATES, Event
from flapjack_py.model.names import check_name_problem, entity_name_problem

CHILD_KINDS = ("check", "entity", "tag")
"""What a child names: one check, every check of an entity, every check with a tag."""
MAX_DEPENDENCIES = 10_000
"""Most dependencies stored at once."""
MAX_NAME = 1000
"""Longest parent, check, entity or tag name, in characters."""
MAX_ID = 100
"""Longest dependency id, in characters."""
RELEASE_TAG = "flapjack:released"
"""Tag of the synthetic result that notifies a child once its parent recovered (release_event)."""
RELEASE_SUMMARY = 4000
"""Characters of a child's summary its release result carries (well inside executive.max_event_bytes)."""


class InvalidDependency(FlapjackError):
    """A dependency that cannot be stored (the message names the problem)."""


class DependencyCycle(InvalidDependency):
    """Dependencies that would make checks depend on themselves (`cycle` names them in turn)."""

    def __init__(self, cycle: Sequence[str]) -> None:
        self.cycle = list(cycle)
        super().__init__("dependency cycle: " + " -> ".join(self.cycle) + " (each depends on the next)")


@dataclass(frozen=True)
class Dependency:
    """Checks named by `child` (kind, value) depend on check `parent` (E:C)."""

    id: str
    parent: str
    kind: str
    value: str
    created_at: int = 0

    @property
    def child(self) -> dict[str, str]:
        return {self.kind: self.value}


def to_json(dep: Dependency) -> dict[str, Any]:
    """The API (and stored) form of a dependency."""
    return {"id": dep.id, "parent": dep.parent, "child": dep.child, "created_at": dep.created_at}


def from_json(dep_id: str, text: str) -> Dependency | None:
    """A stored dependency, or None when the record is unreadable."""
    try:
        data = json.loads(text)
        (kind, value), = data["child"].items()
        return Dependency(dep_id, str(data["parent"]), str(kind), str(value), int(data.get("created_at") or 0))
    except (ValueError, TypeError, KeyError, AttributeError):
        return None


def parse_item(item: Any, dep_id: str, now: int) -> Dependency:
    """A dependency from its API item `{"parent": "E:C", "child": {"check"|"entity"|"tag": NAME}}`
    (entity names lower-cased, as events have them); InvalidDependency naming the problem."""
    if not isinstance(item, dict):
        raise InvalidDependency(f"a dependency must be an object, got {type(item).__name__}")
    unknown = sorted(set(item) - {"id", "parent", "child"})
    if unknown:
        raise InvalidDependency(f"unknown fields: {', '.join(map(str, unknown))}")
    parent = _check_id(item.get("parent"), "parent")
    child = item.get("child")
    if not isinstance(child, dict) or len(child) != 1 or next(iter(child)) not in CHILD_KINDS:
        raise InvalidDependency('child must be one of {"check": "ENTITY:CHECK"}, {"entity": "NAME"}, {"tag": "TAG"}')
    (kind, value), = child.items()
    if kind == "check":
        value = _check_id(value, "child.check")
        if value == parent:
            raise DependencyCycle([parent, parent])
    else:
        value = _name(value, f"child.{kind}", kind == "entity")
    return Dependency(dep_id, parent, kind, value, now)


def id_problem(dep_id: Any) -> str | None:
    """Why `dep_id` cannot be a dependency id, or None."""
    if not isinstance(dep_id, str) or not dep_id or len(dep_id) > MAX_ID or set(dep_id) & set(",/ ") \
            or check_name_problem(dep_id):
        return f"id must be a string of 1 to {MAX_ID} characters without ',', '/', spaces or control characters"
    return None


def _check_id(value: Any, where: str) -> str:
    if not isinstance(value, str) or len(value) > MAX_NAME:
        raise InvalidDependency(f"{where} must be a string 'ENTITY:CHECK' of at most {MAX_NAME} characters")
    entity, sep, check = value.partition(":")
    if not (sep and entity and check):
        raise InvalidDependency(f"{where} must be 'ENTITY:CHECK', got {json.dumps(value)[:80]}")
    problem = entity_name_problem(entity) or check_name_problem(check)
    if problem:
        raise InvalidDependency(f"{where}: {problem}")
    return f"{entity.lower()}:{check}"


def _name(value: Any, where: str, entity: bool) -> str:
    if not isinstance(value, str) or not value.strip() or len(value) > MAX_NAME:
        raise InvalidDependency(f"{where} must be a non-empty string of at most {MAX_NAME} characters")
    problem = entity_name_problem(value) if entity else check_name_problem(value)
    if problem:
        raise InvalidDependency(f"{where}: {problem}")
    return value.lower() if entity else value


@dataclass(frozen=True)
class DependencyTable:
    """Every dependency, indexed by what its child names: `parents_of` a check is a few dict reads."""

    by_check: Mapping[str, frozenset[str]] = field(default_factory=dict)
    by_entity: Mapping[str, frozenset[str]] = field(default_factory=dict)
    by_tag: Mapping[str, frozenset[str]] = field(default_factory=dict)
    parents: tuple[str, ...] = ()  # every parent, sorted
    tags: frozenset[str] = frozenset()  # every tag a child names
    parent_set: frozenset[str] = frozenset()

    def __bool__(self) -> bool:
        return bool(self.parents)

    def parents_of(self, check_id: str, entity: str, tags: Iterable[str]) -> list[str]:
        """The parents of check `check_id` (of `entity`, carrying stored check `tags`), sorted; never itself."""
        found = set(self.by_check.get(check_id, ())) | set(self.by_entity.get(entity, ()))
        for tag in tags:
            found.update(self.by_tag.get(tag, ()))
        found.discard(check_id)
        return sorted(found)


def table(deps: Iterable[Dependency]) -> DependencyTable:
    """The table of `deps`."""
    index: dict[str, dict[str, set[str]]] = {kind: {} for kind in CHILD_KINDS}
    for dep in deps:
        index[dep.kind].setdefault(dep.value, set()).add(dep.parent)
    frozen = {kind: {k: frozenset(v) for k, v in found.items()} for kind, found in index.items()}
    parents = sorted({p for found in frozen.values() for ps in found.values() for p in ps})
    return DependencyTable(frozen["check"], frozen["entity"], frozen["tag"], tuple(parents), frozenset(frozen["tag"]),
                           frozenset(parents))


def find_cycle(deps: Iterable[Dependency], tags_of: Mapping[str, Iterable[str]]) -> list[str] | None:
    """A cycle of checks each depending on the next (the first again at the end), or None. Only parents can be
    on a cycle, so the graph is that of the parents (`tags_of`: each parent's stored check tags)."""
    found = table(deps)
    edges = {p: found.parents_of(p, p.partition(":")[0], tags_of.get(p, ())) for p in found.parents}
    done: set[str] = set()
    for start in found.parents:
        cycle = None if start in done else _cycle_from(start, edges, done)
        if cycle:
            return cycle
    return None


def _cycle_from(start: str, edges: Mapping[str, list[str]], done: set[str]) -> list[str] | None:
    """Depth-first from `start` without recursion; `done` holds the nodes known to reach no cycle."""
    path = [start]
    stack = [iter(edges.get(start, ()))]
    while stack:
        nxt = next(stack[-1], None)
        if nxt is None:
            stack.pop()
            done.add(path.pop())
        elif nxt in path:
            return path[path.index(nxt):] + [nxt]
        elif nxt not in done:
            path.append(nxt)
            stack.append(iter(edges.get(nxt, ())))
    return None


Snapshots = Mapping[tuple[str, str], CheckSnapshot]
"""A batch's check snapshots, by (entity, check), as its events left them so far."""


@dataclass
class BatchDependencies:
    """What a batch knows of dependencies: the table, whether each parent failed before the batch (read with
    its snapshots), and the batch's own events (a parent in the batch fails as its snapshot says)."""

    table: DependencyTable = field(default_factory=DependencyTable)
    failing: Mapping[str, bool] = field(default_factory=dict)  # parent -> failing before the batch
    evaluated: dict[str, int] = field(default_factory=dict)  # child -> position of its latest failure decided

    def inhibitors(self, snap: CheckSnapshot, snapshots: Snapshots, index: int) -> tuple[str, ...]:
        """The failing parents of the check of `snap`, whose failure (the batch's item `index`) is decided now."""
        if not self.table:
            return ()
        parents = self.table.parents_of(snap.id, snap.entity, snap.check_tags)
        if not parents:
            return ()
        self.evaluated[snap.id] = index
        return tuple(p for p in parents if self.fails(p, snapshots))

    def fails(self, parent: str, snapshots: Snapshots) -> bool:
        """True when `parent` fails now, as far as the batch knows."""
        entity, _, check = parent.partition(":")
        snap = snapshots.get((entity, check))
        return snap.failed if snap is not None and snap.state is not None else bool(self.failing.get(parent))

    def recovered(self, snapshots: Snapshots, changes: Mapping[str, Sequence[StateChange]]) -> dict[str, int]:
        """Parents that failed before or during the batch and no longer fail -> the position of the event that
        ended their failure."""
        found = {}
        for check_id in changes.keys() & self.table.parent_set:
            moves = changes[check_id]
            if self.fails(check_id, snapshots) or not moves:
                continue
            if self.failing.get(check_id) or any(is_failing(m.state) for m in moves):
                found[check_id] = moves[-1].at
        return found

    def to_release(self, recovered: Mapping[str, int], candidates: Mapping[str, tuple[str, str | None]],
                   snapshots: Snapshots) -> list[tuple[str, str, str | None]]:
        """(child, state, summary) of each child a recovery releases: failing (as its snapshot says when in the
        batch, else as `candidates` read), not decided after the recovery, no other parent failing."""
        in_batch = {s.id: s for s in snapshots.values()}
        ids = set(candidates) | {i for i, s in in_batch.items() if recovered.keys() & set(self._parents(s))}
        found = []
        for child in sorted(ids):
            snap = in_batch.get(child)
            state = snap.state if snap is not None else candidates[child][0]
            parents = self._parents(snap) if snap is not None else []
            freed = [recovered[p] for p in parents if p in recovered] or list(recovered.values())
            if not is_failing(state) or self.evaluated.get(child, -1) > max(freed):
                continue
            if snap is not None and any(self.fails(p, snapshots) for p in parents):
                continue
            found.append((child, str(state), candidates.get(child, (None, None))[1]))
        return found

    def _parents(self, snap: CheckSnapshot) -> list[str]:
        return self.table.parents_of(snap.id, snap.entity, snap.check_tags)


def is_failing(state: str | None) -> bool:
    """True for warning, critical and unknown."""
    return state in FAILURE_STATES


def release_event(check_id: str, state: str, summary: str | None, now: int) -> dict[str, Any]:
    """The synthetic result that notifies child `check_id`, failing in `state`, now its parent recovered."""
    entity, _, check = check_id.partition(":")
    event: dict[str, Any] = {"type": "service", "state": state, "entity": entity, "check": check, "time": now,
                             "tags": [RELEASE_TAG]}
    if summary:
        event["summary"] = summary[:RELEASE_SUMMARY]
    return event


def is_release(event: Event) -> bool:
    """True for a child's synthetic release result (release_event)."""
    return event.is_service and RELEASE_TAG in event.tags


def still_released(event: Event, state: str | None) -> bool:
    """True when the check is still failing in the state its release result names (else it is dropped)."""
    return is_failing(state) and state == event.state
