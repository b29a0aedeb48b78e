"""Notifications decided in one batch equal the same events in consecutive batches (engine.md 5, issue 11).

The batched notifier reads once per batch and decides in batch order on an
in-memory view; these tests run one event stream event by event and all in
one batch against fresh Redis state at the same frozen time, and compare every
alert and every piece of notifier bookkeeping left in Redis.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import pytest
import redis
from notifier_world import World

from flapjack_py.executive import Executive

pytestmark = pytest.mark.real

NOW_EVENT = {"initial_failure_delay": 0, "repeat_failure_delay": 0}

STREAM: list[tuple[str, str, str]] = [
    # (check, state, event type): a..d fail, crossing ada's email threshold 3 at c
    ("a", "critical", "service"), ("b", "critical", "service"), ("c", "critical", "service"),
    ("d", "warning", "service"),  # in rollup and the drop_rollup key is live: no email
    ("a", "critical", "service"),  # repeat inside the interval: held back on every medium
    ("a", "warning", "service"),  # another failure state alerts at once
    ("d", "acknowledgement", "action"),  # d enters unscheduled maintenance
    ("a", "ok", "service"), ("b", "ok", "service"),  # a's recovery takes the count below 3: rollup recovery
    ("a", "critical", "service"),  # the recovery reset a's interval key: alerted again
    ("e", "unknown", "service"),  # unknown: bob's rules want it, ada's automatic rule does not
]


def setup(world: World) -> None:
    world.contact("ada", {"email": {"address": "ada@x", "rollup_threshold": 3, "interval": 600},
                          "sms": {"address": "+1", "interval": 300}})
    world.contact("bob", {"email": {"address": "bob@x", "interval": 900}, "jabber": "bob@j"},
                  rules=[{"unknown_media": ["email"], "warning_media": ["email", "jabber"],
                          "critical_media": ["email", "jabber"]}])


def push(r: redis.Redis, stream: list[tuple[str, str, str]]) -> None:
    for check, state, kind in stream:
        event: dict[str, Any] = {"type": kind, "state": state, "entity": "foo", "check": check,
                                 "summary": f"{check} {state}", **NOW_EVENT}
        r.lpush("events", json.dumps(event))


def outcome(r: redis.Redis) -> dict[str, Any]:
    """Every alert (without its random id) and the notifier's bookkeeping keys with their TTLs."""
    alerts = []
    for alert_id in r.zrange("alerts", 0, -1):
        record = {k.decode(): v.decode() for k, v in r.hgetall(f"alert:{alert_id.decode()}").items()}
        job = r.hget(f"rq:job:{alert_id.decode()}", "status")
        alerts.append((record["check"], record["contact"], record["media"], record["type"], record["rollup"],
                       record["state"], record["body"], record["status"], job))
    bookkeeping = {}
    for pattern in ("drop_alerts_for_contact:*", "drop_rollup_alerts_for_contact:*", "contact_alerting_checks:*"):
        for key in r.scan_iter(match=pattern):
            value = (r.zrange(key, 0, -1, withscores=True) if r.type(key) == b"zset" else r.get(key))
            bookkeeping[key.decode()] = (value, round(r.ttl(key) / 60))  # minutes: real seconds pass between runs
    queues = {q: r.llen(f"rq:queue:{q}") for q in ("email", "sms", "jabber")}
    return {"alerts": Counter(alerts), "bookkeeping": bookkeeping, "queues": queues}


def run(world: World, batch_size: int) -> dict[str, Any]:
    config = dict(world.config, gateways={"email": {"enabled": True}, "sms": {"enabled": True, "username": "u", "password": "p"}})
    config["executive"] = dict(config["executive"], batch_size=batch_size)
    executive = Executive(world.r, config)
    push(world.r, STREAM)
    batches = []
    take = executive.queue.take
    executive.queue.take = lambda most: batches.append(taken := take(most)) or taken  # type: ignore[method-assign]
    assert executive.drain() == len(STREAM)
    assert [len(b) for b in batches if b] == [batch_size] * (len(STREAM) // batch_size) + (
        [len(STREAM) % batch_size] if len(STREAM) % batch_size else [])
    return outcome(world.r)


def test_one_batch_decides_what_consecutive_batches_decide(world: World) -> None:
    setup(world)
    one_by_one = run(world, batch_size=1)
    world.r.flushall()
    setup(world)
    together = run(world, batch_size=100)
    assert together == one_by_one
    summary = Counter((a[0], a[1], a[2], a[3], a[4], a[5]) for a in together["alerts"].elements())
    # the scenario exercises what it claims to (so equal outcomes are not equally empty)
    assert summary[("foo:c", "ada", "email", "problem", "problem", "critical")] == 1  # threshold crossed
    assert not any(k[:3] == ("foo:d", "ada", "email") and k[3] == "problem" for k in summary)  # held back
    assert summary[("foo:a", "ada", "sms", "problem", "", "critical")] == 2  # the repeat was held back once
    assert summary[("foo:a", "ada", "sms", "problem", "", "warning")] == 1
    assert summary[("foo:a", "ada", "email", "recovery", "recovery", "ok")] == 1  # a's recovery ends the rollup
    assert summary[("foo:b", "ada", "email", "recovery", "", "ok")] == 1
    assert summary[("foo:e", "bob", "email", "problem", "", "unknown")] == 1
    assert not any(k[0] == "foo:e" and k[1] == "ada" for k in summary)
    assert together["queues"] == {"email": sum(n for k, n in summary.items() if k[2] == "email"),
                                  "sms": sum(n for k, n in summary.items() if k[2] == "sms"), "jabber": 0}
    statuses = {a[7] for a in together["alerts"]}
    assert statuses == {"queued", "undeliverable"}  # jabber is not enabled: recorded, not queued


def test_rollup_threshold_crossed_inside_one_batch(world: World) -> None:
    world.contact("ada", {"email": {"address": "ada@x", "rollup_threshold": 2}})
    config = dict(world.config, executive=dict(world.config["executive"], batch_size=10))
    push(world.r, [("a", "critical", "service"), ("b", "critical", "service"), ("c", "critical", "service")])
    assert Executive(world.r, config).drain() == 3
    records = sorted((a["check"], a["rollup"]) for a in world.alert_records())
    assert records == [("foo:a", ""), ("foo:b", "problem")]  # c is summarised by b's rollup: held back
    rollup = next(a for a in world.alert_records() if a["rollup"] == "problem")
    assert "You have 2 alerting checks" in rollup["body"]
    assert world.r.ttl("drop_rollup_alerts_for_contact:ada:email") == 900
    assert [m.decode() for m in world.r.zrange("contact_alerting_checks:ada:media:email", 0, -1)] == [
        "foo:a", "foo:b", "foo:c"]
