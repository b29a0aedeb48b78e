"""Benchmark: events per second one executive processes against a real Redis server.

Usage: python benchmarks/executive.py [--events 50000] [--checks 1000] [--failing 0.05] [--redis-url URL]

Queues `--events` service events spread over `--checks` checks (a fraction
`--failing` of them critical, the rest ok; new-check maintenance off, no
contacts), then times `Executive.drain()` on one core. Without --redis-url an
embedded server (persistence off) is started in a temporary directory.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time

import redis

from flapjack_py.embedded_redis import EmbeddedRedis
from flapjack_py.executive import Executive


def make_events(n: int, checks: int, failing: float, seed: int = 1) -> list[str]:
    """`n` JSON events over `checks` checks, each check steadily ok or critical."""
    rng = random.Random(seed)
    bad = set(rng.sample(range(checks), int(checks * failing)))
    events = []
    for i in range(n):
        c = rng.randrange(checks)
        events.append(json.dumps({
            "entity": f"host-{c % 100:03d}.example.com", "check": f"check {c // 100}", "type": "service",
            "state": "critical" if c in bad else "ok", "summary": f"output {i}",
            "perfdata": "time=0.048s;;;0 size=909B;;;0", "time": int(time.time()),
        }))
    return events


def run(client: redis.Redis, events: list[str], batch_size: int) -> float:
    """Queue the events, drain them, return events/s."""
    client.flushdb()
    for i in range(0, len(events), 10_000):
        client.lpush("events", *events[i:i + 10_000])
    ex = Executive(client, {"executive": {"new_check_scheduled_maintenance_duration": 0, "batch_size": batch_size}})
    started = time.perf_counter()
    taken = ex.drain()
    elapsed = time.perf_counter() - started
    assert taken == len(events), (taken, len(events))
    assert int(client.hget("event_counters", "all")) == len(events)
    return len(events) / elapsed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=50_000)
    parser.add_argument("--checks", type=int, default=1_000)
    parser.add_argument("--failing", type=float, default=0.05)
    parser.add_argument("--batch-size", type=int, default=1000)
    parser.add_argument("--redis-url")
    args = parser.parse_args(argv)
    events = make_events(args.events, args.checks, args.failing)
    if args.redis_url:
        rate = run(redis.Redis.from_url(args.redis_url), events, args.batch_size)
    else:
        with EmbeddedRedis(tempfile.mkdtemp(prefix="fj-bench-"), persistent=False) as server:
            rate = run(server.client(), events, args.batch_size)
    print(f"{args.events} events over {args.checks} checks ({args.failing:.0%} failing), "
          f"batch {args.batch_size}: {rate:,.0f} events/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
