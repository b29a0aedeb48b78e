"""Incidents with moved time (issue 33 item 2; real Redis, real executive): a check joining an incident pages
nobody it already paged, at most one "incident updated" per contact medium per update_interval, a problem after
the window opens a new incident, per-check recoveries wait for the last one, and the decision traces say why."""

from __future__ import annotations

import pytest
from notifier_world import ENTITY, World

from flapjack_py import keys
from flapjack_py.model.incidents import head_from_hash
from flapjack_py.notify.decisions import describe
from flapjack_py.store import decisions as decision_store
from flapjack_py.store import incidents as incident_store

pytestmark = pytest.mark.real


@pytest.fixture
def grouped(real_r, clock) -> World:
    world = World(real_r, clock, incidents={"group_by": "entity"},
                  executive={"initial_failure_delay": 0, "repeat_failure_delay": 60})
    world.contact("ann", {"email": "ann@example.com", "sms": "+61400000000"})
    return world


def incident_ids(world: World) -> list[str]:
    return [i.decode() for i in world.r.zrange(keys.incidents(), 0, -1)]


def summaries(world: World) -> list[tuple[str, str, str]]:
    """(medium, type, body) of every alert, oldest first (the body tells the summary)."""
    return [(r["media"], r["type"], r["body"]) for r in world.alert_records()]


def test_joining_checks_fold_and_updates_come_at_most_every_update_interval(grouped: World):
    assert grouped.event("critical", "A") == [("ann", "email", "problem", "", "critical"),
                                              ("ann", "sms", "problem", "", "critical")]
    grouped.advance(200)
    assert grouped.event("critical", "B") == []  # joined: ann was paged for the incident 200 s ago
    trace = decision_store.load(grouped.s, ENTITY, "B")[0]
    assert trace["incident"]["what"] == "problem"
    assert {m["outcome"] for c in trace["contacts"] for m in c["media"]} == {"incident"}
    assert any("folded into the incident" in line for line in describe(trace))
    grouped.advance(200)  # 400 s after the page, 200 s after B joined: within the window
    assert grouped.event("critical", "C") == [("ann", "email", "problem", "", "critical"),
                                              ("ann", "sms", "problem", "", "critical")]
    [incident] = incident_ids(grouped)
    assert f"incident {incident} (entity {ENTITY}) updated: 3 checks failing" in summaries(grouped)[-1][2]
    grouped.advance(100)
    assert grouped.event("critical", "A") == []  # a repeat in an incident of several checks: folded
    grouped.advance(10)
    assert grouped.event("ok", "A") == [] and grouped.event("ok", "B") == []  # held: C still fails
    assert describe(decision_store.load(grouped.s, ENTITY, "B")[0])[1].startswith("  folded into incident")
    resolved = grouped.event("ok", "C")
    assert resolved == [("ann", "email", "recovery", "", "ok"), ("ann", "sms", "recovery", "", "ok")]
    assert f"incident {incident} (entity {ENTITY}) resolved: all its checks recovered" in summaries(grouped)[-1][2]
    assert grouped.r.hget(keys.incident(incident), "state") == b"resolved"
    left = grouped.s.hgetall(keys.incident_group(f"entity={ENTITY}"))
    assert not any(left.values()) and head_from_hash(left).live == {}  # at most emptied fields stay


def test_a_problem_after_the_window_opens_a_new_incident(grouped: World):
    grouped.event("critical", "A")
    grouped.advance(301)
    assert len(grouped.event("critical", "B")) == 2  # a new incident pages as today
    first, second = incident_ids(grouped)
    assert first != second
    assert grouped.event("ok", "A") == [("ann", "email", "recovery", "", "ok"), ("ann", "sms", "recovery", "", "ok")]
    assert grouped.r.hget(keys.incident(first), "state") == b"resolved"
    assert grouped.r.hget(keys.incident(second), "state") == b"open"


def test_a_single_check_incident_behaves_as_the_check_alone(grouped: World):
    grouped.event("critical", "A")
    grouped.advance(61)
    assert len(grouped.event("warning", "A")) == 2  # another failing state alerts at once, as without incidents
    assert len(grouped.event("ok", "A")) == 2
    assert "incident" not in summaries(grouped)[-1][2]


def test_an_escalation_pages_its_next_level_once_per_incident(real_r, clock):
    from flapjack_py.model.escalation import policy_from_json
    from flapjack_py.store import escalation as escalation_store

    world = World(real_r, clock, incidents={"group_by": "entity"}, executive={"initial_failure_delay": 0})
    for name in ("ann", "bob"):
        world.contact(name, {"email": f"{name}@example.com"}, entities=())
    world.entity(ENTITY)
    policy = {"levels": [{"delay": 0, "targets": [{"contact": "ann"}]}, {"delay": 900, "targets": [{"contact": "bob"}]}]}
    escalation_store.save_policy(world.s, policy_from_json(policy, "ops"))
    escalation_store.link(world.s, f"id-{ENTITY}", ["ops"])
    assert world.event("critical", "A") == [("ann", "email", "problem", "", "critical")]
    world.advance(5)
    assert world.event("critical", "B") == []  # joined: ann already paged for the incident
    world.advance(900)
    world.executive.drain()  # both checks' level 2 is due: bob is paged once, for the incident
    assert world.new_alerts() == [("bob", "email", "problem", "", "critical")]
    [incident] = incident_ids(world)
    kinds = [e["kind"] for e in incident_store.load_timeline(world.s, incident)]
    assert kinds.count("escalation") == 2
    world.advance(10)
    assert world.event("ok", "A") == []
    assert world.event("ok", "B") == [("ann", "email", "recovery", "", "ok"), ("bob", "email", "recovery", "", "ok")]
