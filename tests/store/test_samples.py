"""flapjack_py.store.samples on a real Redis (Lua): one rate sample per bucket, alerts between samples,
what a check's timeline is drawn from."""

from __future__ import annotations

import json

import redis

from flapjack_py import keys
from flapjack_py.store import samples
from flapjack_py.store.maintenance import create_scheduled
from flapjack_py.store.plumbing.client import StrRedis
from flapjack_py.views.pictures import SAMPLE_BUCKET, SAMPLES_KEPT

T = 1_700_000_010  # 10 s into a 30 s bucket


def test_one_sample_per_bucket_whoever_writes_it(real_r: redis.Redis, real_s: StrRedis) -> None:
    real_r.hset(keys.event_counters(), "all", 500)
    real_r.lpush(keys.events(), "{}", "{}")
    assert samples.record_sample(real_s, "events", T)
    assert not samples.record_sample(real_s, "events", T + 5)  # another executive, same bucket
    real_r.hset(keys.event_counters(), "all", 800)
    assert samples.record_sample(real_s, "events", T + SAMPLE_BUCKET)
    assert samples.load_samples(real_s, 0) == [(T, 500, 2), (T + SAMPLE_BUCKET, 800, 2)]
    assert samples.load_samples(real_s, T + 1) == [(T + SAMPLE_BUCKET, 800, 2)]


def test_samples_are_capped(real_r: redis.Redis, real_s: StrRedis) -> None:
    for i in range(SAMPLES_KEPT + 5):
        samples.record_sample(real_s, "events", T + i * SAMPLE_BUCKET)
    assert real_r.llen(keys.rate_samples()) == SAMPLES_KEPT
    assert samples.load_samples(real_s, 0)[0][0] == T + 5 * SAMPLE_BUCKET


def test_alerts_counted_between_sample_times(real_r: redis.Redis, real_s: StrRedis) -> None:
    real_r.zadd(keys.alerts(), {"a": T + 1, "b": T + 30, "c": T + 31, "d": T + 90})
    assert samples.alerts_between(real_s, [T, T + 30, T + 60]) == [2, 1]
    assert samples.alerts_between(real_s, [T]) == []


def test_timeline_data_of_a_check(real_r: redis.Redis, real_s: StrRedis) -> None:
    for ts, state in ((T - 100, "ok"), (T + 10, "critical")):
        real_r.zadd(keys.sorted_state_timestamps("web", "HTTP"), {str(ts): ts})
        real_r.set(keys.check_state_at("web", "HTTP", ts), state)
    create_scheduled(real_s, "web", "HTTP", T + 20, 60, "kernel", T)
    real_r.zadd(keys.alerts_by_check("web", "HTTP"), {"x": T + 11, "old": T - 5000})
    changes, windows, alerts = samples.timeline_data(real_s, "web", "HTTP", T, T + 100)
    assert changes == [(T - 100, "ok"), (T + 10, "critical")]
    assert windows == [(T + 20, 60, "scheduled", "kernel")]
    assert alerts == [T + 11]
    changes, _, _ = samples.timeline_data(real_s, "web", "HTTP", T + 50, T + 100)  # no change in the span
    assert changes == [(T + 10, "critical")]
    assert json.dumps(changes)  # plain data for the page
