"""flapjack_py.analysis.backtest: the proposal file, event times and the comparison (pure)."""

from __future__ import annotations

import json

import pytest

from flapjack_py.analysis import backtest


def test_proposal_is_checked_and_read() -> None:
    found = backtest.read_proposal(json.dumps({"contacts": [
        {"id": "ada", "timezone": "Europe/Paris", "media": {"email": "a@x"}, "rules": [{"critical_media": ["email"]}],
         "entities": ["foo"]}, {"id": "bob"}]}))
    assert found[0] == backtest.ProposedContact("ada", {"timezone": "Europe/Paris", "media": {"email": "a@x"}},
                                                [{"critical_media": ["email"]}], ["foo"])
    assert (found[1].rules, found[1].entities) == (None, None)
    for bad, message in (("[", "not JSON"), ("{}", '"contacts"'), ('{"contacts": [{"id": ""}]}', "contacts[0]"),
                         ('{"contacts": [{"id": "a", "entities": "foo"}]}', "contacts[0].entities")):
        with pytest.raises(backtest.BadProposal, match=message.replace("[", r"\[").replace("]", r"\]")):
            backtest.read_proposal(bad)


def test_event_times_use_the_events_time_and_keep_the_order() -> None:
    hour = 1_699_999_200
    raws = [json.dumps({"time": hour + 100}).encode(), b"{}", json.dumps({"time": hour + 50}).encode(),
            json.dumps({"time": hour + 7200}).encode()]
    assert [t for t, _ in backtest.event_times(hour, raws)] == [hour + 100, hour + 900, hour + 900, hour + 2700]


def test_compare_counts_duplicates() -> None:
    a = ("ada", "email", "foo:PING", "problem", "critical", 100)
    b = ("bob", "sms", "foo:PING", "problem", "critical", 100)
    result = backtest.compare([a, a, b], [a, b, b])
    assert (result.current, result.proposed) == (3, 3)
    assert result.added == {("bob", "sms"): [b]} and result.removed == {("ada", "email"): [a]}
    assert backtest.report(backtest.compare([a], [a]), 1)[-1] == "no difference"
