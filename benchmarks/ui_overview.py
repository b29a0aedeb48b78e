"""Benchmark: how long the web UI's overview (GET /) takes with many checks, a share of them failing.

Usage: python benchmarks/ui_overview.py [--checks 10000] [--failing 1000] [--acknowledged 200] [--runs 15]

Starts a private redis/valkey server (persistence off), makes the checks through the real event path
(service events drained by one executive: 100 checks per entity, failing ones critical, warning or
unknown, some of them acknowledged, every tenth entity tagged `db`), then times the overview through
the Flask app (web.create_app, no user: open mode) for the default view and for filtered, sorted and
paged views. Reports the median and the slowest run of each, in milliseconds, and the CPU a request
costs the web process and the Redis server (what the wall time would be on an idle machine); asserts nothing.
"""

from __future__ import annotations

import argparse
import statistics
import time

import redis
from lab import executive, private_redis, queue_events, server_cpu

import web
from flapjack_py.store import entities as entity_store

VIEWS = ("/", "/?state=critical", "/?state=unhandled&sort=duration", "/?tag=db", "/?text=refused",
         "/?entity=host-01&check=check%205", "/?sort=summary", "/?page=40", "/?upage=3")
"""URLs timed: the default overview, then filters, sorts and pages."""
STATES = ("critical", "warning", "unknown")


def make_world(client: redis.Redis, checks: int, failing: int, acknowledged: int) -> None:
    """`checks` checks on checks/100 entities; the first `failing` fail, the first `acknowledged` are acked."""
    names = [(f"host-{i // 100:03d}.example.com", f"check {i % 100}") for i in range(checks)]
    queue_events(client, ({"type": "service", "entity": e, "check": c, "state": "ok", "summary": "fine"}
                          for e, c in names))
    executive(client).drain()
    queue_events(client, ({"type": "service", "entity": e, "check": c, "state": STATES[i % 3],
                           "initial_failure_delay": 0,
                           "summary": f"connection refused on port {i}" if i % 2 else f"disk {i % 100}% full"}
                          for i, (e, c) in enumerate(names[:failing])))
    queue_events(client, ({"type": "action", "entity": e, "check": c, "state": "acknowledgement", "duration": 3600,
                           "summary": "on it"} for e, c in names[:acknowledged]))
    executive(client).drain()
    for i in range(0, checks // 100, 10):
        entity_store.save_entity(client, f"id-{i}", f"host-{i:03d}.example.com")
        entity_store.add_entity_tags(client, f"id-{i}", ["db"])


def time_views(client: redis.Redis, runs: int) -> None:
    app = web.create_app(redis=client)
    with app.test_client() as browser:
        for url in VIEWS:
            browser.get(url)  # warm: templates compiled, scripts loaded
            took = []
            cpu, server = time.process_time(), server_cpu(client)
            for _ in range(runs):
                start = time.perf_counter()
                response = browser.get(url)
                took.append((time.perf_counter() - start) * 1000)
            cpu, server = (time.process_time() - cpu) * 1000 / runs, (server_cpu(client) - server) * 1000 / runs
            assert response.status_code == 200, (url, response.status_code)
            print(f"{url:<40} median {statistics.median(took):6.1f} ms  slowest {max(took):6.1f} ms  "
                  f"CPU web {cpu:5.1f} ms + Redis {server:5.1f} ms  {len(response.data) // 1024} KiB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checks", type=int, default=10_000)
    parser.add_argument("--failing", type=int, default=1000)
    parser.add_argument("--acknowledged", type=int, default=200)
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    with private_redis() as server:
        client = server.client()
        start = time.perf_counter()
        make_world(client, args.checks, args.failing, args.acknowledged)
        print(f"{client.zcard('all_checks')} checks, {client.zcard('failed_checks')} failing, "
              f"{args.acknowledged} acknowledged (made in {time.perf_counter() - start:.1f} s)")
        time_views(client, args.runs)


if __name__ == "__main__":
    main()
