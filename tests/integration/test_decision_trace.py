"""Decision trace (issue 14 point 4): one scripted scenario per reason, each asserting the recorded reason.

Events go through the Executive into a real Redis; the trace is read back from
Redis as the API and `flapjack explain` read it (flapjack_py.store.decisions).
"""

from __future__ import annotations

from typing import Any

import pytest
import redis
from notifier_world import CHECK, ENTITY, WEEKDAYS_8_TO_18, World, rule

from flapjack_py.notify import decisions
from flapjack_py.store import decisions as decision_store

pytestmark = pytest.mark.real

EMAIL_SMS = {"email": "ada@example.com", "sms": "+61400000000"}


def trace(world: World, check: str = CHECK) -> dict[str, Any]:
    """The newest trace entry of ENTITY:check."""
    entries = decision_store.load(world.s, ENTITY, check)
    assert entries, "no decision recorded"
    return entries[0]


def contact(entry: dict[str, Any], cid: str = "ada") -> dict[str, Any]:
    return next(c for c in entry["contacts"] if c["id"] == cid)


def media(entry: dict[str, Any], cid: str = "ada") -> dict[str, str]:
    return {m["medium"]: m["outcome"] for m in contact(entry, cid)["media"]}


def rules(entry: dict[str, Any], cid: str = "ada") -> dict[str, tuple[bool, str | None, list[str]]]:
    """The verdicts of the scenario's own rules (not the automatic general rule a contact gets without one)."""
    return {r["id"]: (r["matched"], r.get("why"), r.get("by", [])) for r in contact(entry, cid)["rules"]
            if r["id"].startswith(f"{cid}-rule-")}


# --- filters -------------------------------------------------------------------


def test_initial_failure_delay_left(world: World) -> None:
    world.contact("ada", EMAIL_SMS)
    assert world.event("critical") == []
    stop = trace(world)["stopped_by"]
    assert (stop["filter"], stop["code"], stop["until"]) == ("delays", "initial_delay", world.clock.now + 30)
    assert trace(world)["result"] == "blocked"
    assert "initial failure delay not over" in decisions.describe(trace(world))[0]


def test_repeat_failure_delay(world: World) -> None:
    world.contact("ada", EMAIL_SMS)
    world.fail("critical")
    notified = world.clock.now
    world.advance(10)
    assert world.event("critical") == []
    stop = trace(world)["stopped_by"]
    assert (stop["code"], stop["until"]) == ("repeat_delay", notified + 60)


def test_scheduled_maintenance_until(real_r: redis.Redis, clock: Any) -> None:
    world = World(real_r, clock, executive={"new_check_scheduled_maintenance_duration": 3600})
    world.contact("ada", EMAIL_SMS)
    started = world.clock.now
    assert world.fail("critical") == []
    stop = trace(world)["stopped_by"]
    assert (stop["filter"], stop["code"]) == ("scheduled_maintenance", "scheduled_maintenance")
    assert (stop["maintenance_start"], stop["maintenance_until"]) == (started, started + 3600)


def test_acknowledged_until(world: World) -> None:
    world.contact("ada", EMAIL_SMS)
    world.fail("critical")
    acked = world.clock.now
    assert world.ack(duration=600)  # the acknowledgement notification goes out
    assert trace(world)["type"] == "acknowledgement"
    world.advance(120)
    assert world.event("critical") == []
    stop = trace(world)["stopped_by"]
    assert (stop["code"], stop["maintenance_until"]) == ("acknowledged", acked + 600)


def test_ok_after_ok_is_not_traced(world: World) -> None:
    world.contact("ada", EMAIL_SMS)
    world.event("ok")
    world.event("ok")
    assert decision_store.load(world.s, ENTITY, CHECK) == []


def test_recovery_nobody_was_told_about(world: World) -> None:
    world.contact("ada", EMAIL_SMS)
    world.event("critical")
    world.advance(5)
    world.event("ok")
    assert trace(world)["stopped_by"]["code"] == "never_notified"


# --- contacts and rules --------------------------------------------------------


def test_no_contacts(world: World) -> None:
    world.fail("critical")
    assert trace(world)["result"] == "no_contacts"


def test_contact_without_media(world: World) -> None:
    world.contact("ada", {})
    world.fail("critical")
    assert contact(trace(world))["outcome"] == "no_media"


def test_rule_matched_by_entities_and_not(world: World) -> None:
    world.contact("ada", EMAIL_SMS, rules=[rule(entities=["bar"], critical_media=["sms"]),
                                           rule(entities=[ENTITY], critical_media=["email"])])
    world.fail("critical")
    entry = trace(world)
    assert rules(entry) == {"ada-rule-0": (False, "entities", ["entities"]),
                            "ada-rule-1": (True, None, ["entities"])}
    assert media(entry) == {"email": "gateway_disabled", "sms": "not_in_rule"}
    automatic = [r for r in contact(entry)["rules"] if not r["id"].startswith("ada-rule-")]
    assert [(r["matched"], r["why"], r["by"]) for r in automatic] == [(False, "overridden", ["general"])]


def test_rule_matched_by_tags_and_not(world: World) -> None:
    world.contact("ada", EMAIL_SMS, rules=[rule(tags=["database"], critical_media=["sms"]),
                                           rule(tags=["ping"], critical_media=["email"])])  # 'ping': the check's word
    world.fail("critical")
    assert rules(trace(world)) == {"ada-rule-0": (False, "tags", ["tags"]), "ada-rule-1": (True, None, ["tags"])}


def test_rule_matched_by_regex_and_not(world: World) -> None:
    world.contact("ada", EMAIL_SMS, rules=[rule(regex_tags=["^db-"], critical_media=["sms"]),
                                           rule(regex_entities=["^fo+$"], critical_media=["email"])])
    world.fail("critical")
    assert rules(trace(world)) == {"ada-rule-0": (False, "regex_tags", ["regex_tags"]),
                                   "ada-rule-1": (True, None, ["regex_entities"])}
    assert media(trace(world)) == {"email": "gateway_disabled", "sms": "not_in_rule"}


def test_general_rule_overridden_by_a_specific_one(world: World) -> None:
    world.contact("ada", EMAIL_SMS, rules=[rule(critical_media=["sms"]),
                                           rule(entities=[ENTITY], critical_media=["email"])])
    world.fail("critical")
    assert rules(trace(world)) == {"ada-rule-0": (False, "overridden", ["general"]),
                                   "ada-rule-1": (True, None, ["entities"])}


def test_blackhole(world: World) -> None:
    world.contact("ada", EMAIL_SMS, rules=[rule(entities=[ENTITY], critical_blackhole=True)])
    assert world.fail("critical") == []
    entry = trace(world)
    assert (contact(entry)["outcome"], entry["result"]) == ("blackhole", "not_alerted")
    assert "blackholes" in "\n".join(decisions.describe(entry))


def test_time_restriction_outside(world: World) -> None:
    # START is Tuesday 22:13 UTC: outside Mon-Fri 08:00-18:00
    world.contact("ada", EMAIL_SMS, rules=[rule(critical_media=["email"], time_restrictions=[WEEKDAYS_8_TO_18])])
    assert world.fail("critical") == []
    entry = trace(world)
    assert rules(entry) == {"ada-rule-0": (False, "time_restrictions", ["general", "time_restrictions"])}
    assert contact(entry)["outcome"] == "no_rule"
    assert media(entry) == {"email": "not_in_rule", "sms": "not_in_rule"}


# --- media ------------------------------------------------------------------------


def test_medium_interval_running(world: World) -> None:
    world.contact("ada", {"email": {"address": "a@x", "interval": 900}, "sms": {"address": "+6140", "interval": 60}})
    world.fail("critical")
    world.advance(60)  # the repeat failure delay (60 s) and sms's interval are over, email's is not
    assert world.event("critical") == [("ada", "sms", "problem", "", "critical")]
    assert media(trace(world)) == {"email": "interval", "sms": "gateway_disabled"}


def test_rollup_holds_a_medium_back(world: World) -> None:
    world.contact("ada", {"email": {"address": "a@x", "rollup_threshold": 1}})
    world.fail("critical", check="a")
    assert media(trace(world, "a")) == {"email": "gateway_disabled"}
    assert trace(world, "a")["contacts"][0]["media"][0]["rollup"] == "problem"
    assert world.fail("critical", check="b") == []
    assert media(trace(world, "b")) == {"email": "rollup"}


def test_gateway_enabled_alerted_and_disabled(real_r: redis.Redis, clock: Any) -> None:
    world = World(real_r, clock, gateways={"email": {"enabled": True}})
    world.contact("ada", EMAIL_SMS)
    world.fail("critical")
    entry = trace(world)
    assert media(entry) == {"email": "alerted", "sms": "gateway_disabled"}
    assert entry["result"] == "alerted"
    alert_ids = {m["alert"] for m in contact(entry)["media"]}
    assert alert_ids == {a["id"] for a in world.alert_records()}


# --- bounds and switch -------------------------------------------------------------


def test_trace_is_bounded_per_check(real_r: redis.Redis, clock: Any) -> None:
    world = World(real_r, clock, executive={"decision_trace_length": 3})
    for _ in range(5):
        world.event("critical")
        world.advance(1)
    entries = decision_store.load(world.s, ENTITY, CHECK)
    assert len(entries) == 3
    assert entries[0]["at"] == world.clock.now - 1  # newest first


def test_length_zero_records_nothing(real_r: redis.Redis, clock: Any) -> None:
    world = World(real_r, clock, executive={"decision_trace_length": 0})
    world.contact("ada", EMAIL_SMS)
    world.fail("critical")
    assert not real_r.exists(f"{ENTITY}:{CHECK}:decisions")
