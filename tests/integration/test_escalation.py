"""Escalation with moved time (time-machine, real Redis): level 1 (whoever a schedule has on call) is paged
with the problem, level 2 after its delay when nobody acknowledges, an acknowledgement stops it, a
recovery reaches everyone paged, a restarted executive goes on, and two executives page a step once."""

from __future__ import annotations

import json
from typing import Any

import pytest
from notifier_world import ENTITY, World

from flapjack_py import keys
from flapjack_py.executive import Executive
from flapjack_py.executive import escalation_chore as escalation_steps
from flapjack_py.model.escalation import policy_from_json, state_from_json
from flapjack_py.oncall.schedule_data import schedule_from_json
from flapjack_py.store import escalation as escalation_store
from flapjack_py.store import rules as rule_store
from flapjack_py.store import schedules as schedule_store

pytestmark = pytest.mark.real


@pytest.fixture
def oncall(world: World) -> World:
    """ann is on call in schedule `primary`; policy `ops`: primary now, bob after 900 s, cat after 900 s more."""
    for name in ("ann", "bob", "cat"):
        world.contact(name, {"email": f"{name}@example.com"}, entities=())
    world.entity(ENTITY)
    schedule = {"timezone": "UTC", "layers": [{"start": "2023-11-01T00:00Z", "rotation": "P1W", "contacts": ["ann"]}]}
    schedule_store.save_schedule(world.s, schedule_from_json(schedule, world.clock.now, "primary"))
    policy = {"levels": [{"delay": 0, "targets": [{"schedule": "primary"}]}, {"delay": 900, "targets": [{"contact": "bob"}]},
                         {"delay": 900, "targets": [{"contact": "cat"}]}]}
    escalation_store.save_policy(world.s, policy_from_json(policy, "ops"))
    escalation_store.link(world.s, f"id-{ENTITY}", ["ops"])
    return world


def housekeeping(world: World, executive: Executive | None = None) -> list[tuple[str, str, str, str, str]]:
    """Let an executive with nothing queued do its housekeeping; the alerts that made."""
    (executive or world.executive).drain()
    return world.new_alerts()


def problem(who: str) -> tuple[str, str, str, str, str]:
    return (who, "email", "problem", "", "critical")


def test_level_2_after_its_delay_and_an_ack_stops_level_3(oncall: World):
    assert oncall.fail() == [problem("ann")]
    [record] = oncall.alert_records()
    assert (record["escalation_policy"], record["escalation_level"]) == ("ops", "1")
    oncall.advance(899)
    assert housekeeping(oncall) == []
    oncall.advance(1)
    assert housekeeping(oncall) == [problem("bob")]
    assert oncall.alert_records()[-1]["escalation_level"] == "2"
    acked = oncall.ack()
    assert {a[0] for a in acked} == {"ann", "bob"} and {a[2] for a in acked} == {"acknowledgement"}
    ended = escalation_store.load_state(oncall.s, ENTITY, "PING")
    assert (ended.ended, ended.ended_by, ended.paged) == (oncall.clock.now, "acknowledgement", ("ann", "bob"))
    assert oncall.r.zscore(keys.escalations_due(), f"{ENTITY}:PING") is None
    oncall.advance(3600)
    assert housekeeping(oncall) == []


def test_recovery_reaches_everyone_paged_even_after_the_schedule_and_rules_changed(oncall: World):
    oncall.fail()
    oncall.advance(900)
    assert housekeeping(oncall) == [problem("bob")]
    schedule = {"timezone": "UTC", "layers": [{"start": "2023-11-01T00:00Z", "rotation": "P1W", "contacts": ["cat"]}]}
    schedule_store.save_schedule(oncall.s, schedule_from_json(schedule, oncall.clock.now, "primary"))
    for rule_id in rule_store.rule_ids(oncall.s, "bob"):  # bob's rules now blackhole everything
        rule_store.delete_rule(oncall.s, rule_id)
    oncall.raw_rule("bob", "bob-quiet", {"critical_blackhole": True, "warning_blackhole": True,
                                         "unknown_blackhole": True})
    recovered = oncall.event("ok")
    assert [(a[0], a[2]) for a in recovered] == [("ann", "recovery"), ("bob", "recovery")]
    oncall.advance(900)
    assert housekeeping(oncall) == []


def test_a_restarted_executive_goes_on_with_the_escalation(oncall: World):
    oncall.fail()
    oncall.advance(900)
    restarted = Executive(oncall.r, oncall.config)
    assert housekeeping(oncall, restarted) == [problem("bob")]
    oncall.advance(900)
    assert housekeeping(oncall, Executive(oncall.r, oncall.config)) == [problem("cat")]
    assert not oncall.r.zscore(keys.escalations_due(), f"{ENTITY}:PING")  # no step after the last


def test_two_executives_page_a_step_once(oncall: World, monkeypatch: pytest.MonkeyPatch):
    oncall.fail()
    oncall.advance(900)
    other = Executive(oncall.r, oncall.config)
    real_resolve = escalation_store.resolve_level
    raced: list[int] = []

    def resolve_after_the_other_executive(*args: Any) -> Any:
        if not raced:  # between this executive's WATCH and its EXEC, the other one takes the step
            raced.append(0)
            raced[0] = escalation_steps.escalate_due(other.housekeeping.escalating, oncall.clock.now)
        return real_resolve(*args)

    monkeypatch.setattr(escalation_store, "resolve_level", resolve_after_the_other_executive)
    assert housekeeping(oncall) == [problem("bob")]
    assert raced == [1]
    assert [a["contact"] for a in oncall.alert_records()].count("bob") == 1
    assert escalation_store.load_state(oncall.s, ENTITY, "PING").step == 1


def test_a_check_without_a_policy_is_alerted_as_before(world: World):
    world.contact("ann", {"email": "ann@example.com"})
    assert world.fail() == [problem("ann")]
    assert "escalation_policy" not in world.alert_records()[0]
    assert not world.r.exists(keys.escalation(ENTITY, "PING"))


def test_the_check_page_shows_the_escalation_timeline(oncall: World):
    from web import create_app

    oncall.fail()
    oncall.advance(900)
    housekeeping(oncall)
    page = create_app(redis=oncall.r, config=oncall.config).test_client().get(f"/checks/{ENTITY}/PING")
    html = page.get_data(as_text=True)
    timeline = html.split('id="escalation"')[1].split("</section>")[0]
    assert 'Escalating under policy <a href="/escalation_policies/ops"><strong>ops</strong></a>' in timeline and "next level" in timeline
    rows = [row for row in timeline.split("<tr>")[2:]]
    assert [("Ann" in r, "Bob" in r) for r in rows] == [(True, False), (False, True)]
    assert ">1</td>" in rows[0] and ">2</td>" in rows[1]


def test_a_problem_and_its_acknowledgement_in_one_batch(oncall: World):
    """The batch's notifier sees the escalation its own problem started: the ack reaches level 1 and ends it."""
    oncall.event("critical")
    oncall.advance(30)
    for event in ({"type": "service", "state": "critical"}, {"type": "action", "state": "acknowledgement"}):
        oncall.r.lpush("events", json.dumps({**event, "entity": ENTITY, "check": "PING", "summary": "x"}))
    oncall.executive.drain()
    assert oncall.new_alerts() == [("ann", "email", "acknowledgement", "", "acknowledgement"), problem("ann")]
    state = state_from_json(json.loads(oncall.r.get(keys.escalation(ENTITY, "PING"))))
    assert (state.ended_by, state.paged) == ("acknowledgement", ("ann",))
    oncall.advance(900)
    assert housekeeping(oncall) == []


def test_a_recovered_check_left_due_is_ended_by_housekeeping(oncall: World):
    """A check that is ok by the time its step is due (its recovery was not notified) is not escalated."""
    oncall.fail()
    oncall.r.hset(keys.check(ENTITY, "PING"), "state", "ok")
    oncall.advance(900)
    assert housekeeping(oncall) == []
    assert escalation_store.load_state(oncall.s, ENTITY, "PING").ended_by == "housekeeping"


def test_the_check_page_says_how_the_last_escalation_ended(oncall: World):
    from web import create_app

    oncall.fail()
    oncall.ack()
    page = create_app(redis=oncall.r, config=oncall.config).test_client().get(f"/checks/{ENTITY}/PING")
    timeline = page.get_data(as_text=True).split('id="escalation"')[1].split("</section>")[0]
    assert "<strong>ops</strong></a>, ended" in timeline and "(acknowledgement) after level 1" in timeline
    assert "Escalating" not in timeline


def test_the_decision_trace_says_which_level_paged_whom_and_what_an_ended_escalation_was_owed(oncall: World):
    from flapjack_py.notify.decisions import OWED_TEXT, describe
    from flapjack_py.store import decisions as decision_store

    oncall.fail()
    oncall.advance(900)
    housekeeping(oncall)
    step = decision_store.load(oncall.s, ENTITY, "PING")[0]
    [bob] = step["contacts"]
    assert (step["type"], step["result"], bob["id"], bob["escalation"]) == ("problem", "alerted", "bob",
                                                                           {"policy": "ops", "level": 2})
    assert "  contact bob: rules chose media (paged by escalation policy ops, level 2)" in describe(step), describe(step)
    for rule_id in rule_store.rule_ids(oncall.s, "bob"):  # bob's rules now blackhole everything
        rule_store.delete_rule(oncall.s, rule_id)
    oncall.raw_rule("bob", "bob-quiet", {"critical_blackhole": True, "warning_blackhole": True,
                                         "unknown_blackhole": True})
    oncall.event("ok")
    recovery = decision_store.load(oncall.s, ENTITY, "PING")[0]
    by_id = {c["id"]: c for c in recovery["contacts"]}
    assert by_id["ann"]["escalation"]["level"] == 1 and "owed" not in by_id["ann"]["media"][0]
    assert (by_id["bob"]["outcome"], by_id["bob"]["media"]) == (
        "blackhole", [{"medium": "email", "outcome": "gateway_disabled", "alert": by_id["bob"]["media"][0]["alert"],
                      "owed": True}])
    assert any(OWED_TEXT in line for line in describe(recovery))


def test_an_api_acknowledgement_then_a_recovery_reaches_both_levels_and_nobody_else(oncall: World):
    """Issue 33 item 3: the acknowledgement ends the escalation; its recovery still reaches everyone paged."""
    from web import create_app

    oncall.contact("dan", {"email": "dan@example.com"}, entities=())  # never paged: must not hear of it
    assert oncall.fail() == [problem("ann")]
    oncall.advance(900)
    assert housekeeping(oncall) == [problem("bob")]
    http = create_app(redis=oncall.r, config=oncall.config).test_client()
    answer = http.post(f"/api/unscheduled_maintenances/checks/{ENTITY}:PING",
                       json={"unscheduled_maintenances": [{"duration": 3600, "summary": "on it"}]})
    assert answer.status_code == 204, answer.get_data(as_text=True)
    oncall.executive.drain()
    assert {(a[0], a[2]) for a in oncall.new_alerts()} == {("ann", "acknowledgement"), ("bob", "acknowledgement")}
    assert escalation_store.load_state(oncall.s, ENTITY, "PING").ended_by == "acknowledgement"
    oncall.advance(60)
    recovered = oncall.event("ok")
    assert [(a[0], a[1], a[2]) for a in recovered] == [("ann", "email", "recovery"), ("bob", "email", "recovery")]
    assert not oncall.r.exists(keys.paged_for(ENTITY, "PING"))  # cleared once the recovery was decided
    oncall.fail()
    oncall.advance(60)
    assert [a[0] for a in oncall.event("ok")] == ["ann"]  # a new episode: only who it paged
