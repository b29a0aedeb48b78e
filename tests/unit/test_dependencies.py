"""Dependencies (issue 33.1), the pure part: records and their validation, parents of a check, cycles, the
dependency filter, a batch's view of failing and recovered parents, release results. No Redis."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from flapjack_py.executive.filters.dependency import dependency_filter
from flapjack_py.model.checks import CheckSnapshot, StateChange
from flapjack_py.model.dependencies import (
    BatchDependencies,
    Dependency,
    DependencyCycle,
    InvalidDependency,
    find_cycle,
    from_json,
    id_problem,
    is_release,
    parse_item,
    release_event,
    still_released,
    table,
    to_json,
)
from flapjack_py.model.events import Event, parse_event
from flapjack_py.model.verdicts import FilterInput
from flapjack_py.notify.decisions import blocked, describe

NOW = 1_700_000_000


def dep(parent: str, kind: str, value: str, dep_id: str = "") -> Dependency:
    return Dependency(dep_id or f"{parent}>{kind}:{value}", parent, kind, value)


# --- records --------------------------------------------------------------------


def test_an_item_becomes_a_dependency_with_the_entity_lower_cased() -> None:
    found = parse_item({"parent": "Switch-3:PING", "child": {"entity": "Web-1"}}, "d1", NOW)
    assert found == Dependency("d1", "switch-3:PING", "entity", "web-1", NOW)
    assert from_json("d1", json.dumps(to_json(found))) == found


@pytest.mark.parametrize(("item", "message"), [
    ([], "must be an object"),
    ({"parent": "switch-3:PING", "child": {"check": "web:HTTP"}, "colour": 1}, "unknown fields: colour"),
    ({"child": {"check": "web:HTTP"}}, "parent must be a string"),
    ({"parent": "no-colon", "child": {"check": "web:HTTP"}}, "parent must be 'ENTITY:CHECK'"),
    ({"parent": "a:b", "child": {"host": "web"}}, "child must be one of"),
    ({"parent": "a:b", "child": {"check": "web:HTTP", "tag": "x"}}, "child must be one of"),
    ({"parent": "a:b", "child": "web:HTTP"}, "child must be one of"),
    ({"parent": "a:b", "child": {"tag": ""}}, "child.tag must be a non-empty string"),
    ({"parent": "a:b", "child": {"entity": "we:b"}}, "must not contain a colon"),
    ({"parent": "a:b", "child": {"tag": "x\x00"}}, "control character"),
    ({"parent": "a:" + "b" * 1000, "child": {"tag": "x"}}, "at most 1000 characters"),
    ({"parent": "a:b", "child": {"check": "a:b"}}, "dependency cycle: a:b -> a:b"),
])
def test_a_bad_item_is_refused_naming_the_problem(item: Any, message: str) -> None:
    with pytest.raises(InvalidDependency, match=message.replace("(", r"\(")):
        parse_item(item, "d1", NOW)


def test_ids_are_short_plain_strings() -> None:
    assert id_problem("core-switch") is None
    assert id_problem("a,b") and id_problem("") and id_problem(7) and id_problem("x" * 101)


def test_an_unreadable_record_reads_as_none() -> None:
    assert from_json("d", "{") is None
    assert from_json("d", json.dumps({"parent": "a:b", "child": {}})) is None


# --- parents and cycles ---------------------------------------------------------


def test_parents_of_a_check_by_check_entity_and_tag_never_itself() -> None:
    found = table([dep("sw:PING", "check", "web:HTTP"), dep("rt:PING", "entity", "web"),
                   dep("dc:POWER", "tag", "rack-1"), dep("web:PING", "entity", "web")])
    assert found.parents_of("web:HTTP", "web", {"rack-1"}) == ["dc:POWER", "rt:PING", "sw:PING", "web:PING"]
    assert found.parents_of("web:PING", "web", ()) == ["rt:PING"]  # its own entity's child leaves it out
    assert found.parents_of("db:HTTP", "db", {"rack-2"}) == []
    assert not table([]) and found.parent_set == {"sw:PING", "rt:PING", "dc:POWER", "web:PING"}


def test_a_direct_cycle_is_found_and_named() -> None:
    assert find_cycle([dep("a:X", "check", "b:Y"), dep("b:Y", "check", "a:X")], {}) in (
        ["a:X", "b:Y", "a:X"], ["b:Y", "a:X", "b:Y"])


def test_a_cycle_through_entities_and_tags_is_found() -> None:
    deps = [dep("a:PING", "entity", "b"), dep("b:PING", "tag", "core"), dep("c:PING", "check", "x:Y")]
    assert find_cycle(deps, {"a:PING": {"core"}}) in (["a:PING", "b:PING", "a:PING"], ["b:PING", "a:PING", "b:PING"])
    assert find_cycle(deps, {}) is None  # without the tag, a:PING does not depend on b:PING


def test_a_chain_and_an_entity_depending_on_its_own_check_are_no_cycle() -> None:
    deps = [dep("core:PING", "entity", "core"), dep("core:PING", "entity", "edge"), dep("edge:PING", "entity", "web")]
    assert find_cycle(deps, {}) is None


def test_a_long_cycle_is_named_in_order() -> None:
    deps = [dep(f"n{i}:C", "check", f"n{(i + 1) % 5}:C") for i in range(5)]  # n{i+1} depends on n{i}
    cycle = find_cycle(deps, {})
    assert cycle is not None and len(cycle) == 6 and cycle[0] == cycle[-1]
    assert str(DependencyCycle(cycle)).startswith("dependency cycle: n")


# --- the filter -------------------------------------------------------------------


def test_a_failure_with_a_failing_parent_is_inhibited_and_the_trace_says_by_whom(
        make_input: Callable[..., FilterInput], make_event: Callable[..., Event]) -> None:
    data = make_input()
    inhibited = FilterInput(**{**data.__dict__, "failing_parents": ("switch-3:PING", "rt:PING")})
    verdict = dependency_filter(inhibited)
    assert verdict.block and verdict.code == "inhibited" and verdict.parent == "switch-3:PING"
    trace = blocked(inhibited.event, inhibited.snapshot, "dependency_filter", verdict, NOW)
    assert trace is not None and trace.entry()["stopped_by"]["parent"] == "switch-3:PING"
    assert "inhibited by switch-3:PING" in describe(trace.entry())[0]
    assert not dependency_filter(data).block  # no failing parent
    ok = FilterInput(**{**inhibited.__dict__, "event": make_event(state="ok")})
    ack = FilterInput(**{**inhibited.__dict__, "event": make_event(type="action", state="acknowledgement")})
    assert not dependency_filter(ok).block and not dependency_filter(ack).block


# --- a batch's view ---------------------------------------------------------------


def snap(check_id: str, state: str | None, tags: frozenset[str] = frozenset()) -> CheckSnapshot:
    entity, _, check = check_id.partition(":")
    return CheckSnapshot(entity=entity, check=check, state=state, check_tags=tags)


def test_a_parent_fails_as_the_batch_left_it_else_as_read() -> None:
    view = BatchDependencies(table([dep("sw:PING", "entity", "web"), dep("rt:PING", "entity", "web")]),
                             {"sw:PING": True, "rt:PING": False})
    child = snap("web:HTTP", "critical")
    assert view.inhibitors(child, {}, 3) == ("sw:PING",)
    assert view.inhibitors(child, {("sw", "PING"): snap("sw:PING", "ok")}, 4) == ()
    assert view.inhibitors(child, {("rt", "PING"): snap("rt:PING", "unknown")}, 5) == ("rt:PING", "sw:PING")
    assert view.evaluated == {"web:HTTP": 5}
    assert BatchDependencies().inhibitors(child, {}, 0) == ()


def test_a_parent_that_stopped_failing_in_the_batch_has_recovered() -> None:
    view = BatchDependencies(table([dep("sw:PING", "entity", "web"), dep("rt:PING", "entity", "web")]),
                             {"sw:PING": True, "rt:PING": False})
    snapshots = {("sw", "PING"): snap("sw:PING", "ok"), ("rt", "PING"): snap("rt:PING", "ok")}
    changes = {"sw:PING": [StateChange(NOW, "ok", None, 7)], "rt:PING": [StateChange(NOW, "ok", None, 2)],
               "web:HTTP": [StateChange(NOW, "critical", None, 1)]}
    assert view.recovered(snapshots, changes) == {"sw:PING": 7}  # rt:PING did not fail before
    changes["rt:PING"] = [StateChange(NOW, "critical", None, 1), StateChange(NOW, "ok", None, 4)]
    assert view.recovered(snapshots, changes) == {"sw:PING": 7, "rt:PING": 4}


def test_the_children_a_recovery_releases() -> None:
    view = BatchDependencies(table([dep("sw:PING", "entity", "web"), dep("db:PING", "check", "web:DB")]),
                             {"sw:PING": True, "db:PING": True})
    candidates = {"web:HTTP": ("critical", "down"), "web:DB": ("warning", "slow"), "web:SSH": ("unknown", None)}
    snapshots = {("sw", "PING"): snap("sw:PING", "ok"), ("web", "SSH"): snap("web:SSH", "ok"),
                 ("web", "NEW"): snap("web:NEW", "critical")}
    view.inhibitors(snapshots[("web", "NEW")], snapshots, 2)  # decided before the recovery (item 5)
    found = view.to_release({"sw:PING": 5}, candidates, snapshots)
    # web:DB still has db:PING failing but is not in the batch: its release result is decided when processed
    assert found == [("web:DB", "warning", "slow"), ("web:HTTP", "critical", "down"), ("web:NEW", "critical", None)]
    view.inhibitors(snapshots[("web", "NEW")], snapshots, 6)  # decided again after the recovery: its own event did it
    assert [c for c, _, _ in view.to_release({"sw:PING": 5}, candidates, snapshots)] == ["web:DB", "web:HTTP"]


# --- release results ----------------------------------------------------------------


def test_a_release_result_is_an_event_the_executive_knows_as_one() -> None:
    raw = json.dumps(release_event("web:HTTP", "critical", "down", NOW))
    event = parse_event(raw)
    assert event is not None and is_release(event) and event.state == "critical" and event.summary == "down"
    assert still_released(event, "critical") and not still_released(event, "warning")
    assert not still_released(event, "ok")
    assert not is_release(Event(type="service", state="critical", entity="web", check="HTTP"))
    long = parse_event(json.dumps(release_event("web:HTTP", "critical", "x" * 70_000, NOW)))
    assert long is not None and len(long.summary or "") == 4000  # a long summary cannot make it too large
