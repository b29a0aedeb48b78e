"""flapjack_py.views.triage: what is handled, how filters combine, how lists sort (pure, no Redis)."""

from __future__ import annotations

from typing import Any

import pytest

from flapjack_py.views import triage
from flapjack_py.views.rows import CheckRow
from flapjack_py.views.triage import Filter, parse_filter


def facts(entity: str = "web-01", check: str = "HTTP", state: str | None = "critical", **over: Any) -> CheckRow:
    values: dict[str, Any] = {"summary": f"{check} is {state}", "last_change": 1000, "last_update": 2000,
                              "failing_since": 1000 if state in ("critical", "warning", "unknown") else None,
                              "acknowledged": False, "scheduled": False, "enabled": True}
    values.update(over)
    return CheckRow(entity, check, state, **values)


@pytest.mark.parametrize(("over", "handled"), [
    ({}, False), ({"acknowledged": True}, True), ({"scheduled": True}, True), ({"enabled": False}, True),
])
def test_a_failing_check_is_handled_when_acked_in_maintenance_or_disabled(over: dict[str, Any], handled: bool) -> None:
    f = facts(**over)
    assert (f.handled, f.unhandled) == (handled, not handled)


def test_an_ok_check_is_neither_handled_nor_unhandled() -> None:
    f = facts(state="ok", acknowledged=True)
    assert not f.handled and not f.unhandled and not f.failing


def test_parse_filter_keeps_known_values_and_cuts_long_text() -> None:
    flt = parse_filter({"state": "critical", "entity": " db ", "check": "x" * 500, "tag": "Prod", "text": "refused",
                        "sort": "summary", "desc": "1"})
    assert flt == Filter("critical", "db", "x" * triage.MAX_TEXT, "Prod", "refused", "summary", True)
    assert parse_filter({"state": "bogus", "sort": "bogus"}) == Filter()
    assert parse_filter({"q": "db-01", "show": "failing"}) == Filter(state="failing", entity="db-01")


def test_filter_args_rebuild_the_filter_without_defaults() -> None:
    flt = Filter(state="ok", tag="db", sort="severity")
    assert flt.args() == {"state": "ok", "tag": "db"}
    assert parse_filter(flt.args(sort="check", desc="1")) == Filter(state="ok", tag="db", sort="check", descending=True)


def test_names_match_by_substring_case_insensitively_and_tags_exactly() -> None:
    match = triage.name_matcher(Filter(entity="WEB", check="http"))
    assert match("web-01.example.com:HTTP port 80") and not match("db-01:HTTP") and not match("web-01:Disk")
    tagged = triage.name_matcher(Filter(tag="prod"), tagged={"db-01:Disk"})
    assert tagged("db-01:Disk") and not tagged("db-01:Load")
    assert tagged("prod.example.com:Load")  # a derived tag: the entity name up to its first '.'
    assert triage.name_matcher(Filter(tag="port"))("db-01:HTTP port 80")  # a word of the check name


@pytest.mark.parametrize(("state", "expected"), [
    ("failing", {"crit", "warn", "acked", "off"}), ("unhandled", {"crit", "warn"}), ("handled", {"acked", "off"}),
    ("critical", {"crit", "acked", "off"}), ("ok", {"fine"}), ("acknowledged", {"acked"}),
    ("disabled", {"off"}), ("maintenance", set()),
])
def test_state_filters(state: str, expected: set[str]) -> None:
    rows = [facts(check="crit"), facts(check="warn", state="warning"), facts(check="acked", acknowledged=True),
            facts(check="off", enabled=False), facts(check="fine", state="ok")]
    assert {f.check for f in rows if triage.facts_match(Filter(state=state), f)} == expected


def test_summary_text_combines_with_state() -> None:
    rows = [facts(check="a", summary="Connection refused"), facts(check="b", summary="timeout"),
            facts(check="c", state="ok", summary="connection REFUSED earlier")]
    flt = Filter(state="failing", text="refused")
    assert [f.check for f in rows if triage.facts_match(flt, f)] == ["a"]


def test_default_order_is_worst_first_then_longest_failing() -> None:
    rows = [facts(check="new-crit", failing_since=900), facts(check="warn", state="warning", failing_since=10),
            facts(check="old-crit", failing_since=100), facts(check="unk", state="unknown", failing_since=1)]
    assert [f.check for f in triage.sort_facts(rows)] == ["old-crit", "new-crit", "warn", "unk"]


def test_sort_by_columns_and_reverse() -> None:
    rows = [facts("b", "x", summary="zeta", last_update=5), facts("a", "y", summary="Alpha", last_update=9)]
    assert [f.entity for f in triage.sort_facts(rows, "entity")] == ["a", "b"]
    assert [f.entity for f in triage.sort_facts(rows, "summary")] == ["a", "b"]
    assert [f.entity for f in triage.sort_facts(rows, "updated")] == ["a", "b"]  # most recently updated first
    assert [f.entity for f in triage.sort_facts(rows, "entity", descending=True)] == ["b", "a"]
    assert triage.sort_ids(["b:x", "a:y", "a:b"], "check") == ["a:b", "b:x", "a:y"]


def test_split_problems_keeps_the_order() -> None:
    rows = [facts(check="1"), facts(check="2", acknowledged=True), facts(check="3"), facts(check="4", state="ok")]
    unhandled, handled = triage.split_problems(rows)
    assert [f.check for f in unhandled] == ["1", "3"] and [f.check for f in handled] == ["2"]
