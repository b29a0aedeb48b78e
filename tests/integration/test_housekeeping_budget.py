"""Issue 35: housekeeping cannot starve the event loop. Series stored by an older version (a year-1
start, a rule that never matches, a rule firing every second) are evaluated at a bounded cost, the
materialisation round is split into CHORE_BUDGET slices, a chore that overran is in the heartbeat and
in /api/health's warnings, and a real `flapjack executive` keeps processing events promptly."""

from __future__ import annotations

import json
import time

import pytest
import redis

from flapjack_py import keys
from flapjack_py.config.settings import load_config
from flapjack_py.executive import Executive, housekeeping
from flapjack_py.oncall.recurrence import Series
from flapjack_py.runtime.embedded_redis import EmbeddedRedis
from flapjack_py.runtime.health import check_health
from flapjack_py.store import maintenance_series as series_store
from flapjack_py.store.events import push_event
from flapjack_py.store.plumbing.client import StrRedis
from tests.integration.executives import counted, start_executives, stop, wait_registered
from tests.polling import wait_for

pytestmark = pytest.mark.real
YEAR_1 = -62135510400  # 0001-01-02T00:00:00Z
EVERY_SECOND = "FREQ=HOURLY;BYMINUTE=" + ",".join(map(str, range(60))) + ";BYSECOND=" + ",".join(map(str, range(60)))
LEGACY_RULES = ["FREQ=HOURLY", "FREQ=HOURLY;BYMONTH=2;BYMONTHDAY=30", "FREQ=DAILY;BYMONTH=4;BYMONTHDAY=31",
                EVERY_SECOND]


def store_legacy_series(client: StrRedis, copies: int, checks: list[str]) -> None:
    """Series as an older version stored them, without today's checks (save_series does not validate)."""
    for n in range(copies):
        for i, rule in enumerate(LEGACY_RULES):
            series_store.save_series(client, Series(id=f"legacy-{n}-{i}", rrule=rule, timezone="UTC",
                                                    start=YEAR_1, duration=60, checks=tuple(checks)))


def test_each_housekeeping_call_stays_within_its_budget(real_r: redis.Redis, real_s: StrRedis, monkeypatch):
    monkeypatch.setattr(housekeeping, "SERIES_EVERY", 0)
    store_legacy_series(real_s, 5, ["web-01:HTTP"])
    executive = Executive(real_r, {})
    slowest, rounds = 0.0, 0
    for _ in range(40):
        began = time.monotonic()
        executive.housekeeping.run()
        slowest = max(slowest, time.monotonic() - began)
        rounds += executive.housekeeping._series_next is None
    assert slowest < housekeeping.CHORE_BUDGET + 0.5, slowest
    assert rounds >= 2  # every series was visited, round after round
    # the hourly year-1 series was materialised from near now (the every-second one: at most MAX_OCCURRENCES)
    windows = real_s.zrange(keys.maintenances("web-01", "HTTP", "scheduled"), 0, -1, withscores=True)
    assert windows and min(int(float(start)) for start, _ in windows) > time.time() - 86400


def test_a_chore_that_overran_is_in_the_heartbeat_and_in_health(real_r: redis.Redis, real_s: StrRedis, monkeypatch):
    executive = Executive(real_r, {})
    executive.housekeeping.register()
    monkeypatch.setattr(executive.housekeeping, "_sweep_stale", lambda: time.sleep(housekeeping.CHORE_BUDGET + 0.1))
    executive.housekeeping._last_beat = 0.0  # beat in this run
    executive.housekeeping.run()
    assert executive.heartbeat.slow_chore == "stale_checks"
    assert executive.heartbeat.slow_chore_seconds > housekeeping.CHORE_BUDGET
    executive.housekeeping._last_beat = 0.0
    executive.housekeeping.run()  # the next beat carries it
    health = check_health(real_s, load_config({}), int(time.time()))
    assert any("housekeeping chore stale_checks took" in w for w in health.warnings), health.warnings
    assert health.to_json()["warnings"] == list(health.warnings)


def test_a_running_executive_keeps_processing_events(redis_server: EmbeddedRedis, real_r: redis.Redis,
                                                      real_s: StrRedis, tmp_path):
    store_legacy_series(real_s, 10, [f"web-{n:02}:HTTP" for n in range(10)])
    procs = start_executives(redis_server, {}, tmp_path, 1)
    try:
        wait_registered(real_r, 1)
        slowest = 0.0
        for n in range(40):
            before = counted(real_r)
            began = time.monotonic()
            push_event(real_s, {"type": "service", "entity": f"web-{n % 10:02}", "check": "HTTP", "state": "ok"})
            wait_for(lambda before=before: counted(real_r) > before, 20, "the event processed")
            slowest = max(slowest, time.monotonic() - began)
            time.sleep(0.1)
        assert slowest < 1.5, f"an event waited {slowest:.2f} s"
        assert json.loads(real_s.get(next(iter(real_s.scan_iter(match="executive_heartbeat:*")))))["processed"] >= 1
    finally:
        stop(procs)
