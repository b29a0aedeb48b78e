"""flapjack_py.notify.decisions: building and wording a decision trace (pure: no Redis, no clock)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flapjack_py.model.rules import MediaChoice, NotificationRule
from flapjack_py.model.verdicts import Verdict
from flapjack_py.notify import decisions

NOW = 1_700_000_000  # 2023-11-14 22:13:20 UTC


def test_drop_outcome_names_the_interval_only_for_the_per_state_key() -> None:
    assert decisions.drop_outcome([False, False, False, True]) == "interval"
    assert decisions.drop_outcome([False, True, False, True]) == "dropped"
    assert decisions.drop_outcome([False] * 4) is None


def test_blocked_trace_keeps_the_filter_code_and_until_but_not_ok_after_ok(make_event: Callable[..., Any],
                                                                           make_snapshot: Callable[..., Any]) -> None:
    event, snap = make_event(state="critical"), make_snapshot(state="critical")
    verdict = Verdict(block=True, reason="failing for 5s, initial failure delay is 30s", code="initial_delay",
                      until=NOW + 25)
    entry = decisions.blocked(event, snap, "delays_filter", verdict, NOW)
    assert entry is not None
    assert entry.entry()["stopped_by"] == {"filter": "delays", "code": "initial_delay", "until": NOW + 25,
                                           "reason": "failing for 5s, initial failure delay is 30s"}
    assert decisions.blocked(event, snap, "ok_filter", Verdict(block=True, code="ok_unchanged"), NOW) is None


def test_describe_words_contacts_rules_and_media() -> None:
    trace = decisions.Trace(at=NOW, check="foo:PING", state="critical", kind="problem", severity="critical")
    rule = NotificationRule(id="r1", contact_id="ada", tags=["db"], critical_media=["email"])
    trace.contact("ada", "no_rule", [rule], MediaChoice(verdicts=(("r1", "tags"),)))
    trace.medium("ada", "email", "not_in_rule")
    assert decisions.describe(trace.entry()) == [
        "2023-11-14 22:13:20 UTC  foo:PING  critical: problem notification (critical), nobody alerted",
        "  contact ada: no rule of the contact matched",
        "    rule r1: did not match: a tag of the rule is missing (by tags)",
        "    email: not among the matching rules' media for this severity",
    ]


def test_at_or_before() -> None:
    entries = [{"at": NOW + 10}, {"at": NOW}, {"at": NOW - 10}]
    assert decisions.at_or_before(entries, NOW) == entries[1:]
    assert decisions.at_or_before(entries, None) == entries
