"""Retention against a real Redis (issue 11, "retention frees what it should"): checks that fail, recover,
flap, are acknowledged and tested, with contacts alerted on two media, a maintenance series and a rejected
event, through the real Executive and notifier; then `flapjack purge check_history`, `alerts` and
`rejected_events`, each with `--days 0`. What is left
must be the current facts only (configuration, each check's state, counters, keys that expire by
themselves): a family of keys the executive writes that the purge leaves behind fails the test by name.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import Any

import pytest
import redis
from click.testing import CliRunner
from notifier_world import World

from flapjack_py import keys
from flapjack_py.cli import main
from flapjack_py.oncall import recurrence
from flapjack_py.runtime.embedded_redis import EmbeddedRedis
from flapjack_py.store import maintenance as maint
from flapjack_py.store import maintenance_series as series_store
from flapjack_py.store import retention

pytestmark = pytest.mark.real

NOW_EVENT = {"initial_failure_delay": 0, "repeat_failure_delay": 0}
FIRST_BACKUP = 1_700_000_040  # 2023-11-14 22:14 UTC, 40 s after the frozen clock's START

KEPT = {  # what may outlive a purge of everything up to now: the current facts, bounded by checks/contacts
    "configuration": r"contact.*|notification_rule:.*|all_entity_(ids_by_name|names_by_id)|contacts_for:.*",
    "check state": r"check:[^:]+:[^:]+|all_checks(:.*)?|current_(checks:.*|entities)|failed_checks"
                   r"|checks_by_hash|check_hashes_by_id|[^:]+:[^:]+:last_[a-z_]+_notification",
    "in force": r"foo:LOAD:(unscheduled_maintenances|sorted_unscheduled_maintenance_timestamps"
                r"|\d+:unscheduled_maintenance:summary|unscheduled_maintenance)",
    "ahead": r"maintenance_series(:backup(:occurrences)?)?|foo:SWAP:(scheduled_maintenances"
             r"|sorted_scheduled_maintenance_timestamps|\d+:scheduled_maintenance:summary)",
    "executives": r"executives_taking(:scanned)?",  # the executives recovery looks at, bounded by executives
    "counters": r"event_counters|event_counter_sequence|flapjack_metrics:.*|rq:queues|ack_codes:issued",
    "open episode": r"foo:LOAD:paged",  # who was paged for the failing check: its recovery is owed to them
}
EXPIRING = ("drop_", "executive_", "event_counters:", "stale_sweep_lock", "heartbeats", "health:", "ack_code:")
"""Prefixes of keys that expire by TTL or describe the running executive (checked to have a TTL below)."""


def family(name: str) -> str | None:
    """The KEPT family of a key name, or None when the purge should have taken it."""
    return next((kind for kind, pattern in KEPT.items() if re.fullmatch(pattern, name)), None)


@pytest.fixture
def world(real_r: redis.Redis, clock: Any) -> World:
    """The notifier World with both gateways enabled: every alert is also an rq job on its queue."""
    return World(real_r, clock, gateways={"email": {"enabled": True},
                                          "sms": {"enabled": True, "username": "u", "password": "p"}})


@pytest.fixture
def purge(redis_server: EmbeddedRedis, monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> Any:
    config = tmp_path / "flapjack.yml"
    config.write_text("logging:\n  level: ERROR\n")
    monkeypatch.setenv("FLAPJACK_REDIS_URL", redis_server.url)
    monkeypatch.setenv("FLAPJACK_CONFIG", str(config))

    def run(*args: str) -> str:
        result = CliRunner().invoke(main, ["purge", *args], catch_exceptions=False)
        assert result.exit_code == 0, result.output
        return result.stdout
    return run


def busy_day(world: World) -> None:
    """Two contacts on email and sms; checks that fail, flap, recover, get acked and tested; a daily two-minute
    maintenance series on foo:SWAP whose first window (22:14 UTC) ends during the day."""
    world.contact("ada", {"email": {"address": "ada@x", "interval": 0}, "sms": {"address": "+1", "interval": 0}})
    world.contact("bob", {"email": {"address": "bob@x", "interval": 0}, "sms": "+2"})
    series_store.save_series(world.s, recurrence.new_series("backup", {
        "rrule": "FREQ=DAILY;BYHOUR=22;BYMINUTE=14", "duration": 120, "checks": ["foo:SWAP"]}, world.clock.now))
    world.r.lpush("events", b"{not json")  # filed on events_rejected:2023111422
    world.event("ok", check="SWAP")  # the executive's housekeeping materialises 14 days of windows
    for n in range(6):
        for check in ("PING", "HTTP"):
            world.event("critical" if n % 2 == 0 else "ok", check=check, **NOW_EVENT)
        world.advance(40)
    for check in ("DISK", "LOAD"):
        world.event("warning", check=check, **NOW_EVENT)
        world.ack(check=check)
    world.advance(20)
    world.event("ok", check="DISK", **NOW_EVENT)  # ends DISK's unscheduled maintenance; LOAD's is in force
    world.test_notifications(check="PING")
    world.event("unknown", check="HTTP", **NOW_EVENT)
    world.advance(60)


def memory_by_family(r: redis.Redis) -> Counter[str]:
    return Counter({keys.key_family(k.decode()): r.memory_usage(k, samples=0) or 0 for k in r.scan_iter()})


def test_purging_up_to_now_leaves_only_the_current_facts(world: World, purge: Any) -> None:
    busy_day(world)
    written = {k.decode() for k in world.r.scan_iter()}
    assert FIRST_BACKUP in maint.load_windows(world.s, "foo", "SWAP", maint.SCHEDULED)
    occurrences = world.r.zcard("maintenance_series:backup:occurrences")
    assert {"decisions", "notification_times", "state_history", "alert_records", "alert_indexes"} <= {
        keys.key_family(k) for k in written}
    assert {f"foo:PING:{kind}_notifications" for kind in ("problem", "critical", "recovery", "test")} <= written
    assert {"foo:DISK:actions", "foo:DISK:unscheduled_maintenances",
            "events_rejected:2023111422", "events_rejected_reasons:2023111422"} <= written and world.r.zcard("alerts") > 20

    world.advance(3600)  # the UTC hour of the rejected event is over
    purge("check_history", "--days", "0")
    purge("alerts", "--days", "0")
    assert purge("rejected_events", "--days", "0") == "Purged 2 lists of rejected events.\n"

    left = {k.decode() for k in world.r.scan_iter()}
    stray = sorted(k for k in left if family(k) is None and not k.startswith(EXPIRING))
    assert stray == []
    assert all(world.r.ttl(k) > 0 for k in left if k.startswith(("drop_", "executive_", "event_counters:", "ack_code:")))
    gone = memory_by_family(world.r)
    assert not {"decisions", "notification_times", "state_history", "alert_records", "alert_indexes"} & set(gone)
    assert world.r.get("foo:PING:last_problem_notification") is not None  # the filters' facts stay
    assert world.r.hget("check:foo:HTTP", "state") == b"unknown"
    assert world.r.zcard("foo:LOAD:unscheduled_maintenances") == 1 and world.r.ttl("foo:LOAD:unscheduled_maintenance") > 0
    assert not world.r.exists("foo:DISK:unscheduled_maintenances", "foo:DISK:sorted_unscheduled_maintenance_timestamps")
    windows = maint.load_windows(world.s, "foo", "SWAP", maint.SCHEDULED)
    assert min(windows) == FIRST_BACKUP + 86400 and len(windows) == occurrences - 1  # the ended one went
    assert world.r.zcard("maintenance_series:backup:occurrences") == occurrences - 1


def test_a_purge_keeps_what_is_newer_than_the_cut_off(world: World, purge: Any) -> None:
    busy_day(world)
    world.advance(86400)
    world.event("critical", check="PING", **NOW_EVENT)
    newest = world.clock.now
    world.advance(3600)
    problems, traces = len(world.r.lrange("foo:PING:problem_notifications", 0, -1)), world.r.llen("foo:PING:decisions")

    purge("check_history", "--days", "1")

    assert [int(t) for t in world.r.lrange("foo:PING:problem_notifications", 0, -1)] == [newest] and problems > 1
    assert world.r.lrange("foo:PING:critical_notifications", 0, -1) == [str(newest).encode()]
    assert not world.r.exists("foo:PING:recovery_notifications", "foo:DISK:actions", "foo:HTTP:decisions")
    assert world.r.llen("foo:PING:decisions") == 1 < traces
    assert b'"at":%d' % newest in world.r.lindex("foo:PING:decisions", 0)


def test_long_logs_are_cut_exactly_at_the_cut_off(real_s: Any) -> None:
    """A thousand notification times, a hundred traces (the oldest unreadable), actions: cut at T0 + 499."""
    t0 = 1_700_000_000
    real_s.rpush("foo:X:problem_notifications", *range(t0, t0 + 1000))
    real_s.rpush("foo:X:decisions", "not json")
    for n in range(100):
        real_s.lpush("foo:X:decisions", json.dumps({"at": t0 + 10 * n, "check": "foo:X"}))
    real_s.hset("foo:X:actions", mapping={str(t0): "acknowledgement", str(t0 + 500): "test_notifications"})

    assert retention.purge_check_history(real_s, "foo", "X", t0 + 499) == 0  # no state records

    assert real_s.lrange("foo:X:problem_notifications", 0, -1) == [str(t) for t in range(t0 + 500, t0 + 1000)]
    assert [json.loads(e)["at"] for e in real_s.lrange("foo:X:decisions", 0, -1)] == [
        t0 + 10 * n for n in range(99, 49, -1)]
    assert real_s.hgetall("foo:X:actions") == {str(t0 + 500): "test_notifications"}
