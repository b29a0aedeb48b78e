"""Benchmark: what one event costs the executive and Redis, and what a check and a queued event cost in memory.

Usage: python benchmarks/capacity.py [--events 50000] [--checks 10000] [--failing 0.05]

Starts a private redis/valkey server (persistence off), queues the events,
drains them with one in-process executive and reads the CPU seconds of both
sides (the executive's process time, the server's INFO cpu) and the server's
memory. Per event CPU turns into the ceiling of each side: one executive
saturates one core at 1 / its CPU per event, Redis (single-threaded) at
1 / its CPU per event, however many executives feed it (docs/scaling.md).
"""

from __future__ import annotations

import argparse
import time

import redis
from executive import make_events  # the same event mix as benchmarks/executive.py
from lab import executive, private_redis, queue_events, server_cpu


def used_memory(client: redis.Redis) -> int:
    return int(client.info("memory")["used_memory"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=50_000)
    parser.add_argument("--checks", type=int, default=10_000)
    parser.add_argument("--failing", type=float, default=0.05)
    args = parser.parse_args()
    with private_redis() as server:
        measure(server.client(), args)


def measure(client: redis.Redis, args: argparse.Namespace) -> None:
    empty = used_memory(client)
    queue_events(client, make_events(args.events, args.checks, args.failing))
    queued = used_memory(client) - empty
    cpu0, proc0, wall0 = server_cpu(client), time.process_time(), time.perf_counter()
    executive(client).drain()
    wall, proc, cpu = time.perf_counter() - wall0, time.process_time() - proc0, server_cpu(client) - cpu0
    checks = int(client.zcard("all_checks"))
    per_check = (used_memory(client) - empty) / max(checks, 1)
    n = args.events
    print(f"{n} events over {checks} checks ({args.failing:.0%} failing): {n / wall:,.0f} events/s wall")
    print(f"executive CPU {proc / n * 1e6:.0f} us/event -> one executive saturates one core at "
          f"{n / proc:,.0f} events/s")
    print(f"Redis CPU {cpu / n * 1e6:.0f} us/event -> Redis saturates its core at {n / max(cpu, 1e-9):,.0f} events/s")
    print(f"memory: {queued / n:,.0f} B per queued event, {per_check:,.0f} B per check after processing")


if __name__ == "__main__":
    main()
