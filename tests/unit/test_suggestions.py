"""The pure parts of analytics' suggestions (issue 32): what is proposed, how a replay is worded, check changes in
a backtest proposal, and the period people type."""

from __future__ import annotations

import json

import pytest

from flapjack_py.analysis.backtest import BadProposal
from flapjack_py.analysis.incidents import Ack, Facts, Incident, Page
from flapjack_py.analysis.parents import propose_parents
from flapjack_py.analysis.period import BadPeriod, period
from flapjack_py.analysis.suggestions import outcome, propose, read_check_changes, with_check_changes

ROW = {"check": "web:HTTP", "incidents": 4}


def incident(start: int, lasted: int | None, acked: bool = False, check: str = "web:HTTP") -> Incident:
    found = Incident(check, start, None if lasted is None else start + lasted, start + 30, 1)
    if acked:
        found.ack = Ack(start + 60, "ada")
    return found


def test_the_delay_proposed_is_the_next_step_past_the_longest_self_resolved_failure() -> None:
    found = [incident(0, 90), incident(1000, 170), incident(2000, 3600), incident(9000, 100, acked=True)]
    [proposal] = propose([ROW], found, 300, 5, 30)
    assert proposal.change == {"initial_failure_delay": 180}
    assert proposal.why == "2 of its 4 paged problems recovered by themselves within 170 s, nobody acting"
    assert propose([ROW], found, 300, 5, 180)[0].change == {"initial_failure_delay": 300}  # past the current one
    assert propose([ROW], found, 300, 5, 1800) == []  # already longer than any step: nothing to propose
    assert propose([ROW], [incident(0, 3600)], 300, 5, 30) == []  # nothing self-resolved


def test_outcome_counts_the_checks_pages_and_the_long_failures_that_lost_their_page() -> None:
    found = [incident(0, 90), incident(1000, 600)]
    [proposal] = propose([ROW], found, 300, 5, 30)
    before = [("ada", "email", "web:HTTP", "problem", "critical", 30), ("ada", "email", "web:HTTP", "recovery", "ok", 90),
              ("ada", "email", "web:HTTP", "problem", "critical", 1030), ("ada", "email", "db:PG", "problem", "critical", 5)]
    after = [("ada", "email", "db:PG", "problem", "critical", 5)]  # the 600 s failure lost its page too: a miss
    shown = outcome(proposal, found, before, after)
    assert (shown["pages_before"], shown["pages_after"], shown["missed_problems"]) == (3, 0, 1)
    assert shown["reason"].startswith("raise initial_failure_delay of web:HTTP to 120 s: 3 of 3 pages would not "
                                      "have been sent; 1 incidents that lasted longer than 120 s would have been missed")
    assert shown["backtest"] == {"checks": [{"check": "web:HTTP", "initial_failure_delay": 120}]}


def test_a_parent_is_proposed_when_the_checks_failures_began_during_its_own() -> None:
    facts = Facts(0, 10_000, [], {"switch:PING": [(0, "critical"), (700, "ok"), (5000, "critical"), (5700, "ok")],
                                  "web:HTTP": [(10, "critical"), (600, "ok"), (5010, "critical"), (5600, "ok")]})
    found = [incident(10, 590), incident(5010, 590)]
    [proposal] = propose_parents([ROW], facts, found, 5, [{"parent": "a:b", "child": {"tag": "x"}}], {})
    assert proposal.change == {"depends_on": "switch:PING"} and proposal.replayed == ("switch:PING", "web:HTTP")
    assert proposal.rules_file() == {"dependencies": [{"parent": "a:b", "child": {"tag": "x"}},
                                                      {"parent": "switch:PING", "child": {"check": "web:HTTP"}}]}
    assert propose_parents([ROW], facts, found, 5, [], {"web:HTTP": {"switch:PING"}}) == []  # it depends already
    assert propose_parents([ROW], facts, found[:1], 5, [], {}) == []  # one failure proves nothing


def test_check_changes_of_a_proposal_file_are_set_on_that_checks_service_events() -> None:
    changes = read_check_changes({"checks": [{"check": "web:HTTP", "initial_failure_delay": 120}]})
    events = [(1, json.dumps({"type": "service", "entity": "web", "check": "HTTP", "state": "ok"}).encode()),
              (2, json.dumps({"entity": "db", "check": "PG", "state": "ok"}).encode()),
              (3, json.dumps({"type": "action", "entity": "web", "check": "HTTP", "state": "acknowledgement"}).encode()),
              (4, b"not json")]
    changed = with_check_changes(events, changes)
    assert json.loads(changed[0][1])["initial_failure_delay"] == 120
    assert changed[1:] == events[1:]
    for bad in ({"checks": {}}, {"checks": [{"check": "nocolon", "initial_failure_delay": 1}]},
                {"checks": [{"check": "a:b", "initial_failure_delay": "2m"}]}, {"checks": [{"check": "a:b"}]},
                {"checks": [{"check": "a:b", "colour": 1}]}):
        with pytest.raises(BadProposal):
            read_check_changes(bad)


def test_the_period_people_type() -> None:
    now = 1_730_000_000
    assert period(None, None, now) == (now - 7 * 86400, now)
    assert period("36 hours", None, now) == (now - 36 * 3600, now)
    assert period("1729000000", "1729500000", now) == (1729000000, 1729500000)  # unix times, not seconds back
    for since, until, problem in (("yesterday-ish", None, "since: could not read"), ("1d", "nope", "until:"),
                                  ("2024-10-02", "2024-10-01", "is after until"), ("200d", None, "longer than 92")):
        with pytest.raises(BadPeriod, match=problem):
            period(since, until, now)


def test_a_page_is_a_small_tuple() -> None:
    assert Page(1, "ada", "email", "web:HTTP", "problem") == (1, "ada", "email", "web:HTTP", "problem", "", "")
