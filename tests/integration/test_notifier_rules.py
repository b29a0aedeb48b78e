"""End-to-end notifier scenarios: who is told and on which media (engine.md 5.1, 5.2, 9).

Events go through the Executive into a real Redis; each step asserts the exact
alerts recorded per contact and medium.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
import redis
from notifier_world import World, rule

pytestmark = pytest.mark.real

EMAIL_SMS = {"email": "ada@example.com", "sms": "+61400000000"}


def test_default_general_rule_alerts_all_media_and_records_contract_fields(world: World) -> None:
    world.contact("ada", EMAIL_SMS)
    assert world.fail("critical") == [("ada", "email", "problem", "", "critical"),
                                      ("ada", "sms", "problem", "", "critical")]
    record = next(a for a in world.alert_records() if a["media"] == "email")
    assert record["address"] == "ada@example.com"
    assert record["check"] == "foo:PING"
    assert record["status"] == "undeliverable"  # no gateway enabled
    assert record["timestamp"] == str(world.clock.now)
    assert record["subject"] and record["body"]
    assert world.r.zcard("alerts_by_contact:ada:email") == 1
    assert world.r.zcard("alerts_by_check:foo:PING") == 2


def test_enabled_gateway_gets_an_rq_job_with_the_alert(real_r: redis.Redis, clock: Any) -> None:
    world = World(real_r, clock, gateways={"email": {"enabled": True}})
    world.contact("ada", EMAIL_SMS)
    world.fail("critical")
    assert real_r.llen("rq:queue:email") == 1
    assert real_r.llen("rq:queue:sms") == 0
    statuses = sorted((a["media"], a["status"]) for a in world.alert_records())
    assert statuses == [("email", "queued"), ("sms", "undeliverable")]


def test_no_contacts_writes_notification_keys_and_no_alerts(tmp_path: Any, real_r: redis.Redis, clock: Any) -> None:
    log_file = tmp_path / "notify.log"
    world = World(real_r, clock, executive={"notification_log_file": str(log_file)})
    assert world.fail("critical") == []
    assert real_r.get("foo:PING:last_problem_notification") is not None
    assert log_file.read_text() == "foo:PING | problem | NO CONTACTS\n"


def test_contact_without_media_is_skipped(world: World) -> None:
    world.contact("ada", {})
    world.contact("bob", {"email": "bob@example.com"})
    assert world.fail("critical") == [("bob", "email", "problem", "", "critical")]


def test_rule_by_entity_beats_general_rule_only_where_it_matches(world: World) -> None:
    world.contact("ada", EMAIL_SMS, entities=("foo", "bar"),
                  rules=[rule(critical_media=["email", "sms"]), rule(entities=["foo"], critical_media=["sms"])])
    assert world.fail("critical", entity="foo") == [("ada", "sms", "problem", "", "critical")]
    assert world.fail("critical", entity="bar") == [("ada", "email", "problem", "", "critical"),
                                                    ("ada", "sms", "problem", "", "critical")]


def test_rule_by_tags_uses_event_and_derived_tags(world: World) -> None:
    world.contact("ada", EMAIL_SMS, rules=[rule(tags=["database", "disk"], critical_media=["sms"]),
                                           rule(critical_media=["email"])])
    assert world.fail("critical", check="Disk Usage", tags=["database"]) == [("ada", "sms", "problem", "", "critical")]
    assert world.fail("critical", check="Disk Space") == [("ada", "email", "problem", "", "critical")]


def test_rule_by_regex_entities_and_regex_tags(world: World) -> None:
    world.contact("ada", EMAIL_SMS, entities=("db-01.example.com", "web-01.example.com"),
                  rules=[rule(regex_entities=["^db-\\d+", "example"], regex_tags=["^prod"], critical_media=["sms"]),
                         rule(critical_media=["email"])])
    assert world.fail("critical", entity="db-01.example.com", tags=["production"]) == [
        ("ada", "sms", "problem", "", "critical")]
    assert world.fail("critical", entity="web-01.example.com", tags=["production"]) == [
        ("ada", "email", "problem", "", "critical")]


def test_invalid_regex_excludes_only_that_rule(world: World, caplog: pytest.LogCaptureFixture) -> None:
    world.contact("ada", EMAIL_SMS, rules=[rule(regex_entities=["fo(o"], critical_media=["sms"]),
                                           rule(critical_media=["email"])])
    assert world.fail("critical") == [("ada", "email", "problem", "", "critical")]
    assert "invalid regex" in caplog.text


def test_matching_specific_rules_are_additive(world: World) -> None:
    world.contact("ada", {"email": "a@x", "sms": "+1", "jabber": "ada@jabber"},
                  rules=[rule(entities=["foo"], critical_media=["email"]), rule(tags=["ping"], critical_media=["sms"]),
                         rule(critical_media=["jabber"])])
    assert world.fail("critical") == [("ada", "email", "problem", "", "critical"),
                                      ("ada", "sms", "problem", "", "critical")]


def test_blackholes_per_severity_include_the_recovery(world: World) -> None:
    world.contact("ada", EMAIL_SMS, rules=[rule(entities=["foo"], warning_blackhole=True, critical_media=["email"],
                                                warning_media=["sms"])])
    world.contact("bob", {"email": "bob@x"})
    assert world.fail("warning") == [("bob", "email", "problem", "", "warning")]
    world.advance(60)
    assert world.event("ok") == [("bob", "email", "recovery", "", "ok")]
    world.advance(60)
    assert world.fail("critical") == [("ada", "email", "problem", "", "critical"),
                                      ("bob", "email", "problem", "", "critical")]
    world.advance(60)
    assert world.event("ok") == [("ada", "email", "recovery", "", "ok"), ("bob", "email", "recovery", "", "ok")]


def test_media_follow_the_highest_severity_since_the_last_recovery(world: World) -> None:
    world.contact("ada", EMAIL_SMS, rules=[rule(warning_media=["email"], critical_media=["sms"])])
    assert world.fail("warning") == [("ada", "email", "problem", "", "warning")]
    world.advance(60)
    assert world.fail("critical") == [("ada", "sms", "problem", "", "critical")]
    world.advance(60)
    # a warning after a notified critical is still sent as critical
    assert world.fail("warning") == [("ada", "sms", "problem", "", "warning")]
    world.advance(60)
    assert world.event("ok") == [("ada", "sms", "recovery", "", "ok")]
    world.advance(60)
    # the recovery went to sms only, so only sms interval keys were reset: email's warning key still holds
    assert world.r.exists("drop_alerts_for_contact:ada:email:foo:PING:warning")
    assert world.fail("warning") == []
    world.advance(900)
    assert world.event("warning") == [("ada", "email", "problem", "", "warning")]


def test_unknown_needs_unknown_media(world: World) -> None:
    world.contact("ada", EMAIL_SMS)  # automatic general rule: no unknown media
    world.contact("bob", {"sms": "+2"}, rules=[rule(unknown_media=["sms"])])
    assert world.fail("unknown") == [("bob", "sms", "problem", "", "unknown")]
    world.advance(60)
    assert world.event("ok") == [("bob", "sms", "recovery", "", "ok")]


def test_test_notifications_go_to_critical_media_once_per_interval(world: World) -> None:
    world.contact("ada", EMAIL_SMS)
    assert world.test_notifications() == [("ada", "email", "test", "", "test_notifications"),
                                          ("ada", "sms", "test", "", "test_notifications")]
    assert world.r.exists("drop_alerts_for_contact:ada:email:foo:PING:test_notifications")
    world.advance(60)
    assert world.test_notifications() == []
    # a real problem right after a test is still subject to the initial failure delay
    assert world.event("critical") == []
    world.advance(29)
    assert world.event("critical") == []
    world.advance(1)
    assert world.event("critical") == [("ada", "email", "problem", "", "critical"),
                                       ("ada", "sms", "problem", "", "critical")]


def test_acknowledgement_alerts_only_after_a_problem(world: World) -> None:
    world.contact("ada", EMAIL_SMS)
    assert world.event("critical") == []
    assert world.ack() == []  # inside the initial delay: severity ok, nobody alerted
    world.advance(5)
    world.r.delete("foo:PING:unscheduled_maintenance")
    world.advance(30)
    assert world.event("critical") == [("ada", "email", "problem", "", "critical"),
                                       ("ada", "sms", "problem", "", "critical")]
    world.advance(10)
    assert world.ack() == [("ada", "email", "acknowledgement", "", "acknowledgement"),
                           ("ada", "sms", "acknowledgement", "", "acknowledgement")]
    assert not world.r.exists("drop_alerts_for_contact:ada:email:foo:PING:critical")


def test_rule_fields_written_by_flapjack_with_entity_tags_are_read_as_tags(world: World) -> None:
    world.contact("ada", EMAIL_SMS, rules=[rule(critical_media=["email"])])
    world.r.hset("notification_rule:legacy", mapping={
        "id": "legacy", "contact_id": "ada", "entity_tags": json.dumps(["database"]),
        "critical_media": json.dumps(["sms"]), "critical_blackhole": "false"})
    world.r.sadd("contact_notification_rules:ada", "legacy")
    assert world.fail("critical", tags=["database"]) == [("ada", "sms", "problem", "", "critical")]
