"""Profile the storm scenario of `flapjack bench` in-process: 2,000 checks fail at once, 3 contacts x 2 media.

Usage: python benchmarks/storm_profile.py [--checks 2000] [--profile out.prof] [--repeat 3]
Prints executive CPU per alert of each drain (and a cProfile summary with --profile).
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import time

from lab import private_redis, queue_events

from flapjack_py.bench.workload import add_contacts, everyone_fails, executive_config, population_for, seed_events
from flapjack_py.connection import clients_from_url
from flapjack_py.executive import Executive


def run(url: str, checks: int, profile: str | None) -> None:
    clients = clients_from_url(url)
    client = clients.raw
    client.flushall()
    add_contacts(clients.text)
    pop = population_for(checks, False)
    executive = Executive(clients, executive_config(url))
    queue_events(client, seed_events(pop, int(time.time())))
    executive.drain()
    work = everyone_fails(pop, checks, int(time.time()))
    queue_events(client, work.raws)
    profiler = cProfile.Profile() if profile else None
    cpu, wall = time.process_time(), time.perf_counter()
    if profiler:
        profiler.enable()
    executive.drain()
    if profiler:
        profiler.disable()
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    alerts = sum(client.llen(f"rq:queue:{m}") for m in ("email", "sms"))
    print(f"alerts={alerts} cpu_s={cpu:.3f} wall_s={wall:.3f} cpu_us_per_alert={cpu / max(alerts, 1) * 1e6:.1f}")
    if profiler and profile:
        profiler.dump_stats(profile)
        pstats.Stats(profile).sort_stats("cumulative").print_stats(45)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--checks", type=int, default=2000)
    parser.add_argument("--profile")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with private_redis() as server:
        for n in range(args.repeat):
            run(server.url, args.checks, args.profile if n == args.repeat - 1 else None)


if __name__ == "__main__":
    main()
