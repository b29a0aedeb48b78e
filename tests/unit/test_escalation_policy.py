"""Escalation policies (flapjack_py.model.escalation): steps, delays, repeats, who a level pages. Pure."""

from __future__ import annotations

import pytest

from flapjack_py.model.escalation import (
    REPEAT_DELAY,
    InvalidPolicy,
    Page,
    Paged,
    advance,
    on_notification,
    policy_from_json,
    policy_to_json,
    resolve,
    start,
    state_from_json,
    state_to_json,
    step_due,
    with_alerted,
)
from flapjack_py.model.notification import NotificationType
from flapjack_py.oncall.schedule_data import schedule_from_json

T = 1_700_000_000
POLICY = {"levels": [{"delay": 0, "targets": [{"schedule": "primary"}, {"contact": "lead"}]},
                     {"delay": 600, "targets": [{"contact": "bob"}]}], "repeat": 1}


def test_steps_delays_and_repeats():
    policy = policy_from_json(POLICY, "ops")
    assert policy.steps == 4
    state = start(policy, T, ["ann", "lead"])
    assert (state.step, state.next_at, state.pages) == (0, T + 600, (Page(T, 1, ("ann", "lead")),))
    state = advance(state, policy, T + 600, ["bob"])
    assert (state.step, state.next_at, state.pages[-1].level) == (1, T + 600 + REPEAT_DELAY, 2)
    state = advance(state, policy, T + 1500, ["ann"])  # the repeat of level 1 waits REPEAT_DELAY
    assert (state.pages[-1].level, state.next_at) == (1, T + 2100)
    state = advance(state, policy, T + 2100, ["bob"])
    assert state.next_at is None and state.paged == ("ann", "lead", "bob")
    assert state_from_json(state_to_json(state)) == state


def test_a_level_pages_who_is_on_call_now_and_its_contacts():
    policy = policy_from_json(POLICY, "ops")
    primary = schedule_from_json({"timezone": "UTC", "layers": [
        {"start": "2023-11-13T00:00Z", "rotation": "P1D", "contacts": ["ann", "cat"]}]}, T, "primary")
    assert resolve(policy.levels[0], {"primary": primary}, T, {}) == ("cat", "lead")  # Tuesday 14th: cat
    assert resolve(policy.levels[0], {}, T, {}) == ("lead",)  # an unknown schedule pages nobody


def test_json_round_trip():
    assert policy_to_json(policy_from_json(POLICY, "ops")) == {"id": "ops", "name": "", **POLICY}


@pytest.mark.parametrize("bad", [
    {"levels": "x"}, {"levels": [{"delay": 0, "targets": []}]}, {**POLICY, "repeat": -1},
    {"levels": [{"delay": "soon", "targets": [{"contact": "a"}]}]},
    {"levels": [{"delay": 0, "targets": [{"contact": "a", "schedule": "b"}]}]},
])
def test_invalid_policies(bad):
    with pytest.raises(InvalidPolicy):
        policy_from_json(bad, "x")


def test_a_problem_starts_and_an_ack_or_recovery_ends_with_everyone_paged():
    policy = policy_from_json(POLICY, "ops")
    paged, state = on_notification(NotificationType.PROBLEM, None, policy, ("ann", "lead"), T)
    assert paged == {"ann": Paged("ops", 1), "lead": Paged("ops", 1)} and state.running
    assert on_notification(NotificationType.PROBLEM, state, policy, ("cat",), T + 60) == (paged, None)  # runs: same
    state = with_alerted(advance(state, policy, T + 600, ["bob"]), [("bob", "sms")])
    for kind in (NotificationType.RECOVERY, NotificationType.ACKNOWLEDGEMENT):
        told, ended = on_notification(kind, state, policy, (), T + 700)
        assert set(told) == {"ann", "lead", "bob"} and told["bob"] == Paged("ops", 2)
        assert (ended.ended, ended.ended_by, ended.next_at, ended.alerted) == (T + 700, kind.value, None,
                                                                                (("bob", "sms"),))
        assert on_notification(kind, ended, policy, (), T + 800) == ({}, None)  # already over
    assert on_notification(NotificationType.PROBLEM, None, None, ("ann",), T) == ({}, None)  # no policy


@pytest.mark.parametrize(("at", "flags", "what"), [
    (599, {}, "none"), (600, {}, "page"), (600, {"failing": False}, "end"), (600, {"acknowledged": True}, "end"),
    (600, {"in_maintenance": True}, "wait"),
])
def test_what_a_due_step_does(at, flags, what):
    policy = policy_from_json(POLICY, "ops")
    state = start(policy, T, ["ann"])
    args = {"failing": True, "acknowledged": False, "in_maintenance": False, **flags}
    assert step_due(state, policy, T + at, **args) == what
    assert step_due(state, None, T + at, **args) == ("none" if at < 600 else "end")
