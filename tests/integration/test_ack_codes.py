"""Ack codes (issue 30): each problem alert carries a short code, stored with its record and in an index
that closes when the check recovers, alerts again or the TTL passes. Events go through the Executive into a
real Redis."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
import redis
from notifier_world import World

from flapjack_py.model import ack_codes
from flapjack_py.store import ack_codes as code_store

pytestmark = pytest.mark.real

MEDIA = {"email": "ada@example.com", "sms": "+61400000000"}


def _codes(world: World, alert_type: str = "problem") -> set[str]:
    return {a.get("ack_code", "") for a in world.alert_records() if a["type"] == alert_type}


def test_a_problem_alert_carries_one_code_shown_in_its_text(world: World) -> None:
    world.contact("ada", MEDIA)
    world.fail("critical")
    records = world.alert_records()
    codes = {r["ack_code"] for r in records}
    assert len(codes) == 1
    code = codes.pop()
    assert re.fullmatch(f"[{ack_codes.ALPHABET}]{{5}}", code)
    sms = next(r for r in records if r["media"] == "sms")
    email = next(r for r in records if r["media"] == "email")
    assert f"Reply ACK {code} to acknowledge." in sms["body"]
    assert f"Reply ACK {code} to acknowledge" in email["body"]
    assert code_store.resolve(world.s, code.lower()) == (code, "foo:PING")
    assert 86300 < world.r.ttl(f"ack_code:{code}") <= 86400


def test_recovery_closes_the_code_and_a_new_problem_gets_a_new_one(world: World) -> None:
    world.contact("ada", MEDIA)
    world.fail("critical")
    (first,) = _codes(world)
    world.advance(60)
    world.event("ok")
    assert code_store.resolve(world.s, first) is None
    assert not any(a.get("ack_code") for a in world.alert_records() if a["type"] == "recovery")
    world.advance(60)
    world.fail("critical")
    codes = _codes(world)
    assert len(codes) == 2 and first in codes
    (second,) = codes - {first}
    assert code_store.resolve(world.s, first) is None  # failing again does not reopen the old code
    assert code_store.resolve(world.s, second) == (second, "foo:PING")


def test_every_code_of_one_failure_stays_open_until_the_recovery(world: World) -> None:
    world.contact("ada", MEDIA)
    world.fail("critical")
    (first,) = _codes(world)
    world.advance(600)
    world.fail("warning")  # a new problem notification, a new code; the first still works
    codes = _codes(world)
    assert len(codes) == 2
    assert all(code_store.resolve(world.s, code) is not None for code in codes)
    world.advance(60)
    world.event("ok")
    assert all(code_store.resolve(world.s, code) is None for code in codes)


def test_the_ttl_is_configurable(real_r: redis.Redis, clock: Any) -> None:
    world = World(real_r, clock, executive={"ack_code_ttl": "2 hours"})
    world.contact("ada", MEDIA)
    world.fail("critical")
    (code,) = _codes(world)
    assert 7100 < real_r.ttl(f"ack_code:{code}") <= 7200
    world.advance(7201)
    assert code_store.resolve(world.s, code) is None


def test_codes_of_a_storm_are_unique_and_cost_one_counter_round_trip(world: World) -> None:
    checks = [f"CHECK{i}" for i in range(300)]
    world.contact("ada", {"sms": "+61400000000"})
    for state in ("critical", "critical"):
        for check in checks:
            world.r.lpush("events", json.dumps({"type": "service", "state": state, "entity": "foo",
                                                "check": check, "summary": "down"}))
        world.executive.drain()
        world.advance(30)
    records = [a for a in world.alert_records() if a["type"] == "problem"]
    assert len(records) == 300
    codes = {a["ack_code"] for a in records}
    assert len(codes) == 300
    assert int(world.r.get("ack_codes:issued") or 0) == code_store.MIN_BLOCK  # one block reserved
    for record in records[:20]:
        assert code_store.resolve(world.s, record["ack_code"]) == (record["ack_code"], record["check"])


def test_unknown_or_malformed_codes_resolve_to_nothing(world: World) -> None:
    assert code_store.resolve(world.s, "ZZZZZ") is None
    assert code_store.resolve(world.s, "0O1I2") is None
    assert code_store.resolve(world.s, "") is None
