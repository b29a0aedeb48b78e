"""Dependencies (issue 33.1) through the real Executive and notifier on a real Redis: inhibited problems, the
decision trace, the release of children when their parent recovers, recoveries of paged children, what the UI
reads as handled. Alerts are read back from the alert records (notifier_world.World)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from notifier_world import World

from flapjack_py.model.dependencies import Dependency
from flapjack_py.notify import decisions
from flapjack_py.store import decisions as decision_store
from flapjack_py.store import dependencies as store
from flapjack_py.store import metrics as metric_store
from flapjack_py.store import tags as tag_store
from flapjack_py.store import triage

pytestmark = pytest.mark.real

SWITCH, WEB = "switch-3", "web"
EMAIL = {"email": "ada@example.com"}
PROBLEM, RECOVERY = ("ada", "email", "problem", "", "critical"), ("ada", "email", "recovery", "", "ok")


def depend(world: World, *deps: tuple[str, str, str]) -> None:
    store.add(world.s, [Dependency(f"d{i}", parent, kind, value) for i, (parent, kind, value) in enumerate(deps)])


def stop(world: World, check: str, entity: str = WEB) -> dict[str, Any]:
    entries = decision_store.load(world.s, entity, check)
    assert entries, f"no decision recorded for {entity}:{check}"
    return dict(entries[0].get("stopped_by") or {})


def paged(world: World) -> list[str]:
    """Checks of every problem alert so far, sorted (each once per alert)."""
    return sorted(r["check"] for r in world.alert_records() if r["type"] == "problem")


def both(world: World, state: str, checks: list[str], entity: str = WEB) -> list[Any]:
    """One event per check in one batch (as a storm brings them), drained; the alerts made."""
    for check in checks:
        world.r.lpush("events", json.dumps({"type": "service", "state": state, "entity": entity, "check": check,
                                            "summary": f"{check} is {state}"}))
    world.executive.drain()
    return world.new_alerts()


@pytest.fixture
def world(real_r: Any, clock: Any) -> World:
    found = World(real_r, clock, executive={"initial_failure_delay": 0})
    found.contact("ada", EMAIL, entities=(SWITCH, WEB))
    for check in ("PING", *(f"APP{i}" for i in range(4))):
        found.event("ok", check, WEB)
    found.event("ok", "PING", SWITCH)
    return found


def test_children_of_a_failing_parent_are_not_paged_and_their_traces_say_inhibited(world: World) -> None:
    depend(world, (f"{SWITCH}:PING", "entity", WEB))
    assert world.event("critical", "PING", SWITCH) == [PROBLEM]
    assert both(world, "critical", ["APP0", "APP1", "APP2"]) == []
    world.advance(120)
    assert both(world, "critical", ["APP0", "APP1", "APP2"]) == []  # the repeat too
    for check in ("APP0", "APP1", "APP2"):
        assert stop(world, check) == {"filter": "dependency", "code": "inhibited", "parent": f"{SWITCH}:PING",
                                      "reason": f"inhibited by {SWITCH}:PING"}
        assert world.s.hget(f"check:{WEB}:{check}", "state") == "critical"  # state recorded as usual
        assert world.s.zscore("failed_checks", f"{WEB}:{check}") is not None
    assert "inhibited by switch-3:PING" in decisions.describe(decision_store.load(world.s, WEB, "APP0")[0])[0]
    assert world.s.hget("event_counters", "failure") == "7"  # the parent's and the 6 children's results counted


def test_when_the_parent_recovers_the_children_still_failing_page_at_once(world: World) -> None:
    depend(world, (f"{SWITCH}:PING", "entity", WEB))
    world.event("critical", "PING", SWITCH)
    world.new_alerts()
    assert both(world, "critical", ["APP0", "APP1", "APP2", "APP3"]) == []
    world.advance(60)
    assert both(world, "ok", ["APP2", "APP3"]) == []  # recovered while inhibited: nobody was paged, nobody told
    world.advance(60)
    released = world.event("ok", "PING", SWITCH)  # the parent's recovery and the children's release results
    assert released == sorted([RECOVERY, PROBLEM, PROBLEM])
    assert paged(world) == [f"{SWITCH}:PING", f"{WEB}:APP0", f"{WEB}:APP1"]
    assert world.s.llen("events") == 0
    assert decision_store.load(world.s, WEB, "APP0")[0]["result"] == "alerted"
    world.advance(30)
    assert both(world, "critical", ["APP0"]) == []  # their own repeat failure delay from then on
    assert stop(world, "APP0")["code"] == "repeat_delay"


def test_a_paged_child_s_recovery_reaches_who_was_paged(world: World) -> None:
    depend(world, (f"{SWITCH}:PING", "check", f"{WEB}:APP0"))
    assert world.event("critical", "APP0", WEB) == [PROBLEM]  # before its parent failed: paged
    world.event("critical", "PING", SWITCH)
    world.new_alerts()
    world.advance(120)
    assert world.event("critical", "APP0", WEB) == []  # the repeat is inhibited
    assert stop(world, "APP0")["code"] == "inhibited"
    assert world.event("ok", "APP0", WEB) == [RECOVERY]  # the recovery is not held back


def test_a_release_is_dropped_when_the_child_moved_on(world: World) -> None:
    depend(world, (f"{SWITCH}:PING", "entity", WEB))
    world.event("critical", "PING", SWITCH)
    world.event("critical", "APP0", WEB)
    world.new_alerts()
    world.r.lpush("events", json.dumps({"type": "service", "state": "ok", "entity": SWITCH, "check": "PING"}))
    world.r.lpush("events", json.dumps({"type": "service", "state": "warning", "entity": WEB, "check": "APP0"}))
    world.executive.drain()  # the parent's recovery then the child's warning: the child pages once, as warning
    assert world.new_alerts() == sorted([RECOVERY, ("ada", "email", "problem", "", "warning")])


def test_a_parent_failing_in_the_same_batch_inhibits_and_a_tag_names_children(world: World) -> None:
    tag_store.add_check_tags(world.s, WEB, "APP1", ["rack-7"])
    depend(world, (f"{SWITCH}:PING", "tag", "rack-7"))
    world.r.lpush("events", json.dumps({"type": "service", "state": "critical", "entity": SWITCH, "check": "PING"}))
    assert both(world, "critical", ["APP1", "APP0"]) == sorted([PROBLEM, PROBLEM])  # the switch and APP0
    assert stop(world, "APP1")["code"] == "inhibited"


def test_a_second_failing_parent_keeps_the_child_inhibited(world: World) -> None:
    depend(world, (f"{SWITCH}:PING", "entity", WEB), (f"{WEB}:PING", "check", f"{WEB}:APP0"))
    world.event("critical", "PING", SWITCH)
    world.event("critical", "PING", WEB)  # inhibited by the switch itself
    world.event("critical", "APP0", WEB)
    world.new_alerts()
    assert stop(world, "APP0")["parent"] == f"{SWITCH}:PING"
    assert world.event("ok", "PING", SWITCH) == sorted([RECOVERY, PROBLEM])  # web:PING released, APP0 not
    assert paged(world) == [f"{SWITCH}:PING", f"{WEB}:PING"]
    assert stop(world, "APP0")["parent"] == f"{WEB}:PING"
    assert world.event("ok", "PING", WEB) == sorted([RECOVERY, PROBLEM])  # now APP0
    assert paged(world) == [f"{SWITCH}:PING", f"{WEB}:APP0", f"{WEB}:PING"]


def test_a_disabled_parent_inhibits_nothing(world: World) -> None:
    depend(world, (f"{SWITCH}:PING", "entity", WEB))
    world.event("critical", "PING", SWITCH)
    world.s.zrem(f"current_checks:{SWITCH}", "PING")
    world.new_alerts()
    assert world.event("critical", "APP0", WEB) == [PROBLEM]


def test_the_ui_rows_and_the_unhandled_gauge_count_an_inhibited_check_as_handled(world: World) -> None:
    depend(world, (f"{SWITCH}:PING", "entity", WEB))
    world.event("critical", "PING", SWITCH)
    both(world, "critical", ["APP0", "APP1"])
    since = triage.failing_since(world.s)
    rows = {r.id: r for r in triage.load_facts(world.s, list(since), since)}
    assert rows[f"{WEB}:APP0"].inhibited_by == f"{SWITCH}:PING" and rows[f"{WEB}:APP0"].handled
    assert rows[f"{SWITCH}:PING"].unhandled and not rows[f"{SWITCH}:PING"].inhibited_by
    assert metric_store.check_counts(world.s).unhandled == 1
    world.event("ok", "PING", SWITCH)
    rows = {r.id: r for r in triage.load_facts(world.s, list(triage.failing_since(world.s)), since)}
    assert not rows[f"{WEB}:APP0"].inhibited_by and rows[f"{WEB}:APP0"].unhandled


def test_the_executive_follows_dependency_writes(world: World) -> None:
    world.event("critical", "PING", SWITCH)
    world.new_alerts()
    assert world.event("critical", "APP0", WEB) == [PROBLEM]  # no dependency yet
    depend(world, (f"{SWITCH}:PING", "entity", WEB))
    assert both(world, "critical", ["APP1"]) == []
    store.delete(world.s, ["d0"])
    assert both(world, "critical", ["APP2"]) == [PROBLEM]
