"""Unit tests of the notifier's pure decisions: rollup (engine.md 5.4) and the alert payload (5.5)."""

from __future__ import annotations

import json
import uuid
import zlib
from typing import Any

import fakeredis
import pytest

from flapjack_py.bench.workload import GATEWAYS
from flapjack_py.config.settings import load_config
from flapjack_py.model.alerting import AlertingSet, CheckFacts
from flapjack_py.model.contacts import Contact, Medium
from flapjack_py.model.notification import Notification, NotificationType
from flapjack_py.notify import enqueue as delivery
from flapjack_py.notify.notifier import alert_id, build_alert, shared_fields
from flapjack_py.notify.rollup import RollupDecision, current_check_facts, decide_rollup
from flapjack_py.store import queues, rq_jobs
from flapjack_py.store.plumbing.writes import WriteBuffer

NOW = 1_700_000_000


def make_notification(**over: Any) -> Notification:
    fields: dict[str, Any] = {"event_id": "foo:a", "entity": "foo", "check": "a", "state": "critical",
                              "type": NotificationType.PROBLEM, "severity": "critical", "count": 7,
                              "event_hash": "abcd1234", "summary": "down", "state_duration": 40}
    fields.update(over)
    return Notification(**fields)


def failing(check_id: str, **over: Any) -> CheckFacts:
    fields: dict[str, Any] = {"check_id": check_id, "state": "critical", "last_change": NOW - 100, "summary": "s",
                              "enabled": True, "contact_ids": frozenset({"c1"})}
    fields.update(over)
    return CheckFacts(**fields)


def decide(members: dict[str, float], facts: dict[str, CheckFacts], threshold: int | None = 2,
           drop: bool = False, medium: str = "email", **over: Any) -> RollupDecision:
    notification = make_notification(**over)
    facts.setdefault(notification.event_id, failing(notification.event_id))
    return decide_rollup(notification, "c1", Medium("c1", medium, "x", None, threshold),
                         AlertingSet(members, drop), facts, NOW)


def test_below_threshold_no_rollup_and_the_problem_is_added() -> None:
    decision = decide({}, {})
    assert (decision.rollup, decision.skip, decision.add, decision.members) == ("", False, True, ("foo:a",))


def test_reaching_threshold_is_a_rollup_problem_setting_the_drop_key() -> None:
    decision = decide({"foo:b": 1.0}, {"foo:b": failing("foo:b")})
    assert (decision.rollup, decision.drop_rollup, decision.members) == ("problem", "set", ("foo:b", "foo:a"))


def test_live_drop_key_skips_the_medium() -> None:
    assert decide({"foo:b": 1.0}, {"foo:b": failing("foo:b")}, drop=True).skip


def test_recovery_still_at_threshold_is_rollup_problem_and_clears_the_key() -> None:
    facts = {"foo:b": failing("foo:b"), "foo:c": failing("foo:c"), "foo:a": failing("foo:a", state="ok")}
    decision = decide({"foo:a": 1.0, "foo:b": 2.0, "foo:c": 3.0}, facts, state="ok",
                      type=NotificationType.RECOVERY, severity="critical")
    assert (decision.rollup, decision.drop_rollup, decision.removed, decision.add) == (
        "problem", "clear", ("foo:a",), False)


@pytest.mark.parametrize("gone", [{"state": "ok"}, {"enabled": False}, {"in_scheduled_maintenance": True},
                                  {"in_unscheduled_maintenance": True}, {"contact_ids": frozenset({"c2"})}])
def test_cleaning_below_threshold_is_a_rollup_recovery(gone: dict[str, Any]) -> None:
    facts = {"foo:b": failing("foo:b", **gone)}
    decision = decide({"foo:b": 1.0}, facts)
    assert (decision.rollup, decision.drop_rollup, decision.removed) == ("recovery", "clear", ("foo:b",))


def test_pagerduty_and_no_threshold_never_roll_up() -> None:
    assert decide({"foo:b": 1.0}, {"foo:b": failing("foo:b")}, medium="pagerduty").rollup == ""
    assert decide({"foo:b": 1.0}, {"foo:b": failing("foo:b")}, threshold=None).rollup == ""
    assert decide({"foo:b": 1.0}, {"foo:b": failing("foo:b")}, threshold=0).rollup == ""


def test_acks_and_tests_are_not_added() -> None:
    assert not decide({}, {}, type=NotificationType.ACKNOWLEDGEMENT, state="acknowledgement").add
    assert not decide({}, {}, type=NotificationType.TEST, state="test_notifications").add


def test_current_check_facts_apply_the_events_own_writes() -> None:
    stored = failing("foo:a", state="ok", enabled=False, last_change=1)
    facts = current_check_facts(make_notification(), stored, NOW)
    assert (facts.state, facts.enabled, facts.last_change, facts.summary) == ("critical", True, NOW - 40, "down")
    ack = current_check_facts(make_notification(type=NotificationType.ACKNOWLEDGEMENT), failing("foo:a"), NOW)
    assert ack.in_unscheduled_maintenance and not ack.alerting_for("c1")


def test_alert_payload_fields() -> None:
    decision = RollupDecision(rollup="problem", members=("foo:a",), threshold=1)
    alert = build_alert(make_notification(tags=("b", "a")), Contact("c1", "Ada", "L"), Medium("c1", "sms", "+1"),
                        decision, {"foo:a": failing("foo:a")}, NOW)
    assert {k: alert[k] for k in ("timestamp", "contact", "media", "address", "check", "type", "rollup", "state",
                                  "contact_first_name", "notification_type", "event_count", "tags",
                                  "rollup_threshold")} == {
        "timestamp": NOW, "contact": "c1", "media": "sms", "address": "+1", "check": "foo:a", "type": "problem",
        "rollup": "problem", "state": "critical", "contact_first_name": "Ada", "notification_type": "problem",
        "event_count": 7, "tags": ["a", "b"], "rollup_threshold": 1}
    assert alert["rollup_alerts"] == {"foo:a": {"duration": 100, "state": "critical", "summary": "s"}}


def test_without_threshold_only_the_notified_check_is_cleaned() -> None:
    """No rollup decision reads the set without a threshold, so other (even stale) members are not examined."""
    stale = {"foo:b": failing("foo:b", state="ok")}
    problem = decide({"foo:b": 1.0}, dict(stale), threshold=None)
    assert (problem.rollup, problem.add, problem.removed) == ("", True, ())
    recovery = decide({"foo:a": 1.0, "foo:b": 2.0}, {**stale, "foo:a": failing("foo:a", state="ok")},
                      threshold=None, state="ok", type=NotificationType.RECOVERY)
    assert (recovery.rollup, recovery.add, recovery.removed) == ("", False, ("foo:a",))


def test_alert_ids_are_random_uuid4_hex() -> None:
    ids = {alert_id() for _ in range(1000)}
    assert len(ids) == 1000
    for found in ids:
        parsed = uuid.UUID(hex=found)
        assert (parsed.hex, parsed.version, parsed.variant) == (found, 4, uuid.RFC_4122)



@pytest.mark.parametrize("rollup", [None, "problem"])
def test_alert_jobs_carry_the_json_of_their_records(rollup: str | None, monkeypatch: pytest.MonkeyPatch) -> None:
    """The notifier's alerts hand their jobs the notification's shared fields encoded once: each job's data is
    json.dumps of its record (what rq writes), also for a record whose shared fields no longer match."""
    notification = make_notification(tags=("b", "ä"), summary='dïsk "full"\n', details=None, duration=3)
    shared = shared_fields(notification)
    members = rq_jobs.shared_members(shared)
    decision = RollupDecision(rollup=rollup, members=("foo:a",) if rollup else (), threshold=2 if rollup else None)
    writes = WriteBuffer()
    config = load_config({"gateways": GATEWAYS})
    for contact, medium in [(Contact("c1", "Ada", "L"), Medium("c1", "sms", "+1")),
                            (Contact("c2", "Zoë", None), Medium("c2", "email", "z@x"))]:
        alert = build_alert(notification, contact, medium, decision, {"foo:a": failing("foo:a")}, NOW, shared)
        delivery.add_alert(writes, alert, config, {}, members)
    assert len(writes.jobs) == 2 and all(job.shared is members for job in writes.jobs)
    writes.jobs.append(writes.jobs[0]._replace(record=dict(writes.jobs[0].record, summary="changed")))
    encoded: list[int] = []  # members encoded per record, the shared ones aside
    members_of = rq_jobs._members
    monkeypatch.setattr(rq_jobs, "_members", lambda out, *args: encoded.append(len(args[0])) or members_of(out, *args))
    r = fakeredis.FakeRedis()
    with r.pipeline() as pipe:
        queues.enqueue_jobs(r, pipe, writes.jobs)
        hsets = [args for args, _ in pipe.command_stack if args[0] == "HSET"]
    sizes = [len(job.record) for job in writes.jobs]
    assert len(encoded) == 5 and encoded[0] + encoded[1] == sizes[0] - len(shared)  # head and tail: shared taken
    assert encoded[2] + encoded[3] == sizes[1] - len(shared) and encoded[4] == sizes[2]  # the changed one: whole
    data = [zlib.decompress(args[args.index("data") + 1]) for args in hsets]
    assert data == [json.dumps((queues.DELIVER_FUNC, None, [job.record], {})).encode() for job in writes.jobs]
