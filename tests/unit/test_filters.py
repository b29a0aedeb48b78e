"""The filters (engine.md 3.1-3.6) and the derived notification facts of 3.0. Pure: no Redis."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from flapjack_py.executive.filters import FILTERS
from flapjack_py.executive.filters.acknowledgement import acknowledgement_filter
from flapjack_py.executive.filters.delays import delays_filter
from flapjack_py.executive.filters.dependency import dependency_filter
from flapjack_py.executive.filters.flapping import flapping_filter
from flapjack_py.executive.filters.maintenance import scheduled_maintenance_filter, unscheduled_maintenance_filter
from flapjack_py.executive.filters.ok import ok_filter
from flapjack_py.model.checks import (
    CheckSnapshot,
    ack_hash,
    current_scheduled_window,
    last_notification_type,
    max_notified_severity,
    worst,
)
from flapjack_py.model.events import Event
from flapjack_py.model.verdicts import FilterInput

NOW = 1_700_000_000  # the builders' "now" (tests/unit/conftest.py)

MakeEvent = Callable[..., Event]
MakeSnapshot = Callable[..., CheckSnapshot]
MakeInput = Callable[..., FilterInput]

ACK = {"type": "action", "state": "acknowledgement"}
TEST = {"type": "action", "state": "test_notifications"}


def test_filters_run_in_flapjack_order() -> None:
    # flapping_filter (flapjack-py, issue 14) sits after the maintenance filters; it passes unless a check flaps;
    # dependency_filter (issue 33) before the delays: an inhibited failure's trace says so, not "initial delay"
    assert FILTERS == (ok_filter, scheduled_maintenance_filter, unscheduled_maintenance_filter, flapping_filter,
                       dependency_filter, delays_filter, acknowledgement_filter)


# --- 3.0 derived facts ----------------------------------------------------------------


@pytest.mark.parametrize(("last", "expected"), [
    ({}, None),
    ({"warning": None, "critical": None}, None),
    ({"critical": 0, "recovery": -5}, None),
    ({"problem": NOW}, None),
    ({"problem": NOW, "critical": NOW - 10}, "critical"),
    ({"critical": NOW - 10, "recovery": NOW - 5}, "recovery"),
    ({"recovery": NOW - 10, "critical": NOW - 5}, "critical"),
    ({"warning": NOW - 1, "critical": NOW - 2, "unknown": NOW - 3}, "warning"),
    ({"acknowledgement": NOW - 1, "critical": NOW - 100}, "acknowledgement"),
], ids=["none", "all-nil", "non-positive", "problem-never-candidate", "critical", "recovery-newer", "critical-newer",
        "greatest-wins", "ack-newer"])
def test_last_notification_type_is_the_newest_candidate(last: dict[str, int | None], expected: str | None) -> None:
    assert last_notification_type(last) == expected


@pytest.mark.parametrize(("earlier", "later"), [("warning", "critical"), ("critical", "unknown"), ("unknown", "recovery"),
                                                ("recovery", "acknowledgement"), ("warning", "acknowledgement"),
                                                ("critical", "recovery")])
def test_last_notification_tie_goes_to_the_later_name(earlier: str, later: str) -> None:
    assert last_notification_type({earlier: NOW, later: NOW}) == later
    assert last_notification_type({later: NOW, earlier: NOW}) == later


@pytest.mark.parametrize(("last", "expected"), [
    ({}, None),
    ({"critical": NOW}, "critical"),
    ({"warning": NOW}, "warning"),
    ({"unknown": NOW}, "unknown"),
    ({"warning": NOW, "critical": NOW - 50}, "critical"),
    ({"unknown": NOW, "warning": NOW - 50}, "warning"),
    ({"critical": NOW - 10, "recovery": NOW - 5}, None),
    ({"critical": NOW - 5, "recovery": NOW - 5}, None),
    ({"critical": NOW - 20, "recovery": NOW - 10, "warning": NOW}, "warning"),
    ({"critical": NOW - 20, "recovery": NOW - 10, "unknown": NOW - 9}, "unknown"),
    ({"critical": NOW, "recovery": None}, "critical"),
    ({"problem": NOW, "acknowledgement": NOW}, None),
], ids=["none", "critical", "warning", "unknown", "critical-beats-newer-warning", "warning-beats-unknown",
        "recovered", "same-second-as-recovery", "warning-after-recovery", "unknown-after-recovery",
        "never-recovered", "problem-and-ack-are-not-severities"])
def test_max_notified_severity_counts_strictly_after_last_recovery(last: dict[str, int | None],
                                                                   expected: str | None) -> None:
    assert max_notified_severity(last) == expected


@pytest.mark.parametrize(("severities", "expected"), [
    ((None,), "ok"), (("ok", None), "ok"), (("unknown", "ok"), "unknown"), (("warning", "unknown"), "warning"),
    (("critical", "warning"), "critical"), ((None, "critical"), "critical"), (("unknown", None, "warning"), "warning"),
])
def test_worst_orders_critical_warning_unknown_ok(severities: tuple[str | None, ...], expected: str) -> None:
    assert worst(*severities) == expected


@pytest.mark.parametrize(("event_id", "expected"), [
    ("web-01.example.com:HTTP", "5fc8c945"),
    ("a:B", "67aebfe4"),
])
def test_ack_hash_is_first_8_hex_of_sha1(event_id: str, expected: str) -> None:
    # expected values: `printf %s E:C | sha1sum | cut -c1-8`
    assert ack_hash(event_id) == expected


@pytest.mark.parametrize(("windows", "now", "expected"), [
    ({}, NOW, None),
    ({NOW: 100}, NOW, (NOW, NOW + 100)),
    ({NOW - 100: 100}, NOW, None),
    ({NOW - 99: 100}, NOW, (NOW - 99, NOW + 1)),
    ({NOW + 1: 100}, NOW, None),
    ({NOW - 50: 1000, NOW - 10: 100}, NOW, (NOW - 50, NOW + 950)),
    ({NOW - 50: 100, NOW - 10: 1000}, NOW, (NOW - 10, NOW + 990)),
], ids=["none", "starts-now", "ended-exactly-now", "last-second", "future", "latest-end-started-earlier",
        "latest-end-started-later"])
def test_current_scheduled_window_is_the_covering_one_ending_last(windows: dict[int, int], now: int,
                                                                  expected: tuple[int, int] | None) -> None:
    assert current_scheduled_window(windows, now) == expected


# --- 3.1 ok filter --------------------------------------------------------------------


@pytest.mark.parametrize("fields", [{"state": "critical"}, {"state": "warning"}, ACK, TEST],
                         ids=["critical", "warning", "ack", "test"])
def test_ok_filter_passes_non_ok_events_untouched(make_event: MakeEvent, make_input: MakeInput,
                                                  fields: dict[str, str]) -> None:
    verdict = ok_filter(make_input(event=make_event(**fields)))

    assert (verdict.block, verdict.end_unscheduled) == (False, False)


@pytest.mark.parametrize(("previous", "last", "block"), [
    ("ok", {"critical": NOW - 10}, True),
    ("critical", {}, True),
    ("critical", {"problem": NOW - 10}, True),
    ("critical", {"critical": NOW - 20, "recovery": NOW - 10}, True),
    ("critical", {"critical": NOW - 10, "recovery": NOW - 10}, True),
    ("critical", {"critical": NOW - 10}, False),
    ("warning", {"warning": NOW - 10}, False),
    ("unknown", {"unknown": NOW - 10}, False),
    ("critical", {"acknowledgement": NOW - 10}, False),
    ("critical", {"recovery": NOW - 20, "acknowledgement": NOW - 20}, False),
    ("critical", {"recovery": NOW - 20, "warning": NOW - 10}, False),
], ids=["ok-to-ok", "never-notified", "only-problem-key", "last-was-recovery", "tie-recovery-wins",
        "after-critical", "after-warning", "after-unknown", "after-ack", "tie-ack-wins", "failure-after-recovery"])
def test_ok_filter(make_event: MakeEvent, make_snapshot: MakeSnapshot, make_input: MakeInput, previous: str,
                   last: dict[str, int | None], block: bool) -> None:
    snapshot = make_snapshot(state="ok", last_change=NOW, failing_since=None, last_notifications=last)

    verdict = ok_filter(make_input(event=make_event(state="ok"), snapshot=snapshot, previous_state=previous))

    assert verdict.block is block
    assert verdict.end_unscheduled is True  # an ok always ends unscheduled maintenance, blocked or not


# --- 3.2 / 3.3 maintenance filters ----------------------------------------------------


@pytest.mark.parametrize("fields", [{"state": "critical"}, {"state": "ok"}, ACK, TEST],
                         ids=["critical", "ok", "ack", "test"])
def test_scheduled_maintenance_blocks_every_event(make_event: MakeEvent, make_snapshot: MakeSnapshot,
                                                  make_input: MakeInput, fields: dict[str, str]) -> None:
    event = make_event(**fields)

    inside = scheduled_maintenance_filter(make_input(event=event, snapshot=make_snapshot(scheduled_start=NOW - 5)))
    outside = scheduled_maintenance_filter(make_input(event=event, snapshot=make_snapshot(
        scheduled_windows={NOW - 500: 100})))

    assert inside.block is True
    assert outside.block is False


@pytest.mark.parametrize(("fields", "block"), [({"state": "critical"}, True), ({"state": "ok"}, True),
                                               ({"state": "unknown"}, True), (TEST, True), (ACK, False)],
                         ids=["critical", "ok", "unknown", "test", "ack"])
def test_unscheduled_maintenance_blocks_all_but_acknowledgements(make_event: MakeEvent, make_snapshot: MakeSnapshot,
                                                                 make_input: MakeInput, fields: dict[str, str],
                                                                 block: bool) -> None:
    event = make_event(**fields)

    inside = unscheduled_maintenance_filter(make_input(event=event, snapshot=make_snapshot(unscheduled_start=NOW - 5)))
    outside = unscheduled_maintenance_filter(make_input(event=event, snapshot=make_snapshot()))

    assert inside.block is block
    assert outside.block is False


# --- 3.4 delays -----------------------------------------------------------------------


@pytest.mark.parametrize("fields", [{"state": "ok"}, ACK, TEST, {"type": "action", "state": "critical"}],
                         ids=["ok", "ack", "test", "action-critical"])
def test_delays_pass_anything_but_failing_service_events(make_event: MakeEvent, make_snapshot: MakeSnapshot,
                                                        make_input: MakeInput, fields: dict[str, str]) -> None:
    snapshot = make_snapshot(last_change=NOW)  # failing for 0 s: a failure would be held back

    assert delays_filter(make_input(event=make_event(**fields), snapshot=snapshot)).block is False


@pytest.mark.parametrize("state", ["warning", "critical", "unknown"])
@pytest.mark.parametrize(("age", "block"), [(0, True), (29, True), (30, False), (31, False), (1000, False)])
def test_initial_failure_delay_default_30s(make_event: MakeEvent, make_snapshot: MakeSnapshot, make_input: MakeInput,
                                           state: str, age: int, block: bool) -> None:
    snapshot = make_snapshot(state=state, last_change=NOW - age, failing_since=NOW - age)

    assert delays_filter(make_input(event=make_event(state=state), snapshot=snapshot)).block is block


@pytest.mark.parametrize(("stored", "default", "age", "block"), [
    (None, 30, 29, True), (None, 30, 30, False),
    (None, 100, 99, True), (None, 100, 100, False),
    (10, 30, 9, True), (10, 30, 10, False),
    (0, 30, 0, False),
    (300, 30, 299, True), (300, 30, 300, False),
    (-1, 30, 29, True), (-1, 30, 30, False),
    (-100, 5, 5, False), (-100, 5, 4, True),
], ids=["default-held", "default-passes", "configured-held", "configured-passes", "event-10-held", "event-10-passes",
        "event-zero", "event-300-held", "event-300-passes", "negative-is-default-held", "negative-is-default-passes",
        "negative-configured-passes", "negative-configured-held"])
def test_initial_failure_delay_per_event_override(make_event: MakeEvent, make_snapshot: MakeSnapshot,
                                                  make_input: MakeInput, stored: int | None, default: int, age: int,
                                                  block: bool) -> None:
    snapshot = make_snapshot(last_change=NOW - age, initial_failure_delay=stored)

    assert delays_filter(make_input(snapshot=snapshot, ifd=default)).block is block


@pytest.mark.parametrize(("since_problem", "last_type", "block"), [
    (0, "critical", True), (59, "critical", True), (60, "critical", False), (61, "critical", False),
    (10, "warning", False), (10, "unknown", False), (10, "acknowledgement", False), (10, "recovery", False),
], ids=["same-second", "59s", "60s", "61s", "last-warning", "last-unknown", "last-ack", "last-recovery"])
def test_repeat_failure_delay_applies_only_to_same_state(make_event: MakeEvent, make_snapshot: MakeSnapshot,
                                                         make_input: MakeInput, since_problem: int, last_type: str,
                                                         block: bool) -> None:
    last = {"problem": NOW - since_problem, last_type: NOW - since_problem}
    snapshot = make_snapshot(last_change=NOW - 1000, last_notifications=last)

    assert delays_filter(make_input(event=make_event(state="critical"), snapshot=snapshot)).block is block


def test_repeat_failure_delay_counts_from_last_problem_of_any_severity(make_snapshot: MakeSnapshot,
                                                                       make_input: MakeInput) -> None:
    # last critical long ago but a problem (say a warning, since superseded in type order) 10 s ago
    last = {"problem": NOW - 10, "critical": NOW - 100}
    snapshot = make_snapshot(last_change=NOW - 1000, last_notifications=last)

    assert delays_filter(make_input(snapshot=snapshot)).block is True


def test_repeat_failure_delay_needs_a_problem_timestamp(make_snapshot: MakeSnapshot, make_input: MakeInput) -> None:
    snapshot = make_snapshot(last_change=NOW - 1000, last_notifications={"critical": NOW - 1})

    assert delays_filter(make_input(snapshot=snapshot)).block is False


@pytest.mark.parametrize(("stored", "default", "since", "block"), [
    (None, 60, 59, True), (None, 60, 60, False), (None, 300, 299, True), (None, 300, 300, False),
    (120, 60, 119, True), (120, 60, 120, False), (0, 60, 0, False), (-1, 60, 59, True), (-1, 60, 60, False),
], ids=["default-held", "default-passes", "configured-held", "configured-passes", "event-held", "event-passes",
        "event-zero", "negative-is-default-held", "negative-is-default-passes"])
def test_repeat_failure_delay_per_event_override(make_snapshot: MakeSnapshot, make_input: MakeInput,
                                                 stored: int | None, default: int, since: int, block: bool) -> None:
    last = {"problem": NOW - since, "critical": NOW - since}
    snapshot = make_snapshot(last_change=NOW - 1000, repeat_failure_delay=stored, last_notifications=last)

    assert delays_filter(make_input(snapshot=snapshot, rfd=default)).block is block


def test_initial_delay_restarts_on_every_state_change(make_event: MakeEvent, make_snapshot: MakeSnapshot,
                                                      make_input: MakeInput) -> None:
    # critical for ages, just changed to warning: the warning waits its own IFD
    snapshot = make_snapshot(state="warning", last_change=NOW - 5, failing_since=NOW - 5,
                             last_notifications={"problem": NOW - 500, "critical": NOW - 500})

    assert delays_filter(make_input(event=make_event(state="warning"), snapshot=snapshot)).block is True


# --- 3.5 acknowledgement --------------------------------------------------------------


@pytest.mark.parametrize("fields", [{"state": "critical"}, {"state": "ok"}, TEST], ids=["critical", "ok", "test"])
def test_acknowledgement_filter_passes_other_events(make_event: MakeEvent, make_snapshot: MakeSnapshot,
                                                    make_input: MakeInput, fields: dict[str, str]) -> None:
    verdict = acknowledgement_filter(make_input(event=make_event(**fields),
                                                snapshot=make_snapshot(state="ok", failing_since=None)))

    assert (verdict.block, verdict.create_unscheduled) == (False, None)


@pytest.mark.parametrize("state", ["ok", None], ids=["ok", "never-seen"])
def test_acknowledgement_of_a_check_not_failing_is_blocked(make_event: MakeEvent, make_snapshot: MakeSnapshot,
                                                           make_input: MakeInput, state: str | None) -> None:
    snapshot = make_snapshot(state=state, failing_since=None)

    verdict = acknowledgement_filter(make_input(event=make_event(**ACK), snapshot=snapshot, previous_state=None))

    assert (verdict.block, verdict.create_unscheduled) == (True, None)


@pytest.mark.parametrize(("duration", "expected"), [(None, 14400), (0, 14400), (-1, 14400), (-3600, 14400), (1, 1),
                                                    (600, 600), (86400, 86400)])
def test_acknowledgement_of_a_failing_check_creates_unscheduled_maintenance(
        make_event: MakeEvent, make_snapshot: MakeSnapshot, make_input: MakeInput, duration: int | None,
        expected: int) -> None:
    event = make_event(**ACK, duration=duration, summary="looking into it")

    verdict = acknowledgement_filter(make_input(event=event, snapshot=make_snapshot(), previous_state=None))

    assert verdict.block is False
    assert verdict.create_unscheduled == (NOW, expected, "looking into it")


# --- 3.6 test notifications across the whole chain ------------------------------------


def run_chain(data: FilterInput) -> str | None:
    """Name of the first filter that blocks, or None when all pass."""
    for check_filter in FILTERS:
        if check_filter(data).block:
            return check_filter.__name__
    return None


@pytest.mark.parametrize(("snapshot_over", "blocked_by"), [
    ({}, None),
    ({"state": None, "last_change": None, "failing_since": None, "registered": False}, None),
    ({"state": "ok", "failing_since": None}, None),
    ({"last_change": NOW}, None),
    ({"scheduled_start": NOW - 1}, "scheduled_maintenance_filter"),
    ({"unscheduled_start": NOW - 1}, "unscheduled_maintenance_filter"),
], ids=["failing", "never-seen", "ok", "inside-initial-delay", "scheduled", "unscheduled"])
def test_test_notifications_are_blocked_only_by_maintenance(make_event: MakeEvent, make_snapshot: MakeSnapshot,
                                                            make_input: MakeInput, snapshot_over: dict[str, object],
                                                            blocked_by: str | None) -> None:
    data = make_input(event=make_event(**TEST), snapshot=make_snapshot(**snapshot_over), previous_state=None)

    assert run_chain(data) == blocked_by


def test_ack_during_scheduled_maintenance_never_reaches_the_ack_filter(make_event: MakeEvent,
                                                                       make_snapshot: MakeSnapshot,
                                                                       make_input: MakeInput) -> None:
    data = make_input(event=make_event(**ACK), snapshot=make_snapshot(scheduled_start=NOW - 1), previous_state=None)

    assert run_chain(data) == "scheduled_maintenance_filter"
