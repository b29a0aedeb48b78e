"""Benchmark: events per second one executive processes against a real Redis server.

Usage: python benchmarks/executive.py [--events 50000] [--checks 1000] [--failing 0.05] [--executives 1]
       [--redis-url URL]

Queues `--events` service events spread over `--checks` checks (a fraction
`--failing` of them critical, the rest ok; new-check maintenance off, no
contacts), then times `Executive.drain()` in `--executives` processes draining the queue together, and
reports the CPU time per event of the Redis server and of the executives (on a machine with C CPUs the
throughput cannot exceed C / (Redis + executive CPU per event)) and how many CPUs the run kept busy (on a
loaded machine: the share the scheduler gave it). Without --redis-url an
embedded server (persistence off) is started in a temporary directory.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import random
import sys
import time
from typing import Any

import redis
from lab import executive, private_redis, queue_events, server_cpu


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


def drain_one(url: str, batch_size: int, start: Any, cpu: Any) -> None:
    """One executive process: wait for the start signal, drain the queue, report its CPU seconds."""
    client = redis.Redis.from_url(url)
    ex = executive(client, batch_size=batch_size)
    ex._boot()
    start.wait()
    before = time.process_time()
    ex.drain()
    cpu.put(time.process_time() - before)


def run(client: redis.Redis, url: str, events: list[str], batch_size: int,
        executives: int) -> tuple[float, float, float]:
    """Queue the events, drain them with `executives` processes.

    Returns (events/s, Redis CPU µs per event, executives' CPU µs per event).
    """
    client.flushdb()
    queue_events(client, events, chunk=10_000)
    start, cpu_used = multiprocessing.Event(), multiprocessing.Queue()
    procs = [multiprocessing.Process(target=drain_one, args=(url, batch_size, start, cpu_used))
             for _ in range(executives)]
    for proc in procs:
        proc.start()
    time.sleep(2.0)  # every process imported and booted
    cpu = server_cpu(client)
    started = time.perf_counter()
    start.set()
    for proc in procs:
        proc.join()
    elapsed = time.perf_counter() - started
    used = server_cpu(client) - cpu
    assert client.llen("events") == 0, client.llen("events")
    assert int(client.hget("event_counters", "all")) == len(events)
    executive_cpu = sum(cpu_used.get() for _ in procs)
    return len(events) / elapsed, used / len(events) * 1e6, executive_cpu / len(events) * 1e6


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=50_000)
    parser.add_argument("--checks", type=int, default=1_000)
    parser.add_argument("--failing", type=float, default=0.05)
    parser.add_argument("--batch-size", type=int, default=1000)
    parser.add_argument("--executives", type=int, default=1, help="executive processes draining together")
    parser.add_argument("--redis-url")
    args = parser.parse_args(argv)
    events = make_events(args.events, args.checks, args.failing)
    if args.redis_url:
        rate, cpu, ex_cpu = run(redis.Redis.from_url(args.redis_url), args.redis_url, events, args.batch_size,
                                args.executives)
    else:
        with private_redis() as server:
            rate, cpu, ex_cpu = run(server.client(), server.url, events, args.batch_size, args.executives)
    busy = rate * (cpu + ex_cpu) / 1e6  # CPU-seconds per second the executives and Redis kept busy
    print(f"{args.events} events over {args.checks} checks ({args.failing:.0%} failing), "
          f"batch {args.batch_size}, {args.executives} executive(s): {rate:,.0f} events/s, "
          f"CPU per event: Redis {cpu:.1f} us, executives {ex_cpu:.1f} us; CPUs busy {busy:.2f} "
          f"of {os.cpu_count()}, load average {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
