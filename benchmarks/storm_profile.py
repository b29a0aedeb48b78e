"""Profile the storm scenario of `flapjack bench` in-process: 2,000 checks fail at once, 3 contacts x 2 media.

Usage: python benchmarks/storm_profile.py [--checks 2000] [--profile out.prof] [--repeat 3] [--aof] [--commands]
Prints, per alert of each drain, the executive's CPU, the Redis server's CPU and the commands it ran
(with --commands, Redis's own time per command name: INFO commandstats); with --profile a cProfile
summary. --aof: the append-only file on (fsync every second), as `flapjack bench` runs Redis.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import tempfile
import time
from typing import Any

from lab import queue_events

from flapjack_py.bench.workload import add_contacts, everyone_fails, executive_config, population_for, seed_events
from flapjack_py.executive import Executive
from flapjack_py.runtime.connection import clients_from_url
from flapjack_py.runtime.embedded_redis import EmbeddedRedis


def server_stats(client: Any) -> tuple[float, int, dict[str, tuple[int, int]]]:
    """(CPU seconds, commands processed, command name -> (calls, usec)) of the server now."""
    info = client.info("all")
    cpu = float(info["used_cpu_user"]) + float(info["used_cpu_sys"])
    stats = {k.removeprefix("cmdstat_"): (int(v["calls"]), int(v["usec"]))
             for k, v in info.items() if k.startswith("cmdstat_")}
    return cpu, int(info["total_commands_processed"]), stats


def run(url: str, checks: int, profile: str | None, commands: bool) -> None:
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
    before = server_stats(client)
    cpu, wall = time.process_time(), time.perf_counter()
    if profiler:
        profiler.enable()
    executive.drain()
    if profiler:
        profiler.disable()
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    after = server_stats(client)
    alerts = max(sum(client.llen(f"rq:queue:{m}") for m in ("email", "sms")), 1)
    print(f"alerts={alerts} cpu_s={cpu:.3f} wall_s={wall:.3f} cpu_us_per_alert={cpu / alerts * 1e6:.1f} "
          f"redis_cpu_us_per_alert={(after[0] - before[0]) / alerts * 1e6:.1f} "
          f"redis_cmds_per_alert={(after[1] - before[1] - 2) / alerts:.2f}")
    if commands:
        for name, (calls, usec) in sorted(after[2].items(), key=lambda kv: -kv[1][1]):
            was = before[2].get(name, (0, 0))
            if calls > was[0]:
                print(f"  {name:14} calls/alert={(calls - was[0]) / alerts:6.3f} "
                      f"us/alert={(usec - was[1]) / alerts:7.2f}")
    if profiler and profile:
        profiler.dump_stats(profile)
        pstats.Stats(profile).sort_stats("cumulative").print_stats(45)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--checks", type=int, default=2000)
    parser.add_argument("--profile")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--aof", action="store_true")
    parser.add_argument("--commands", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="fj-bench-") as tmp, EmbeddedRedis(tmp, persistent=args.aof) as server:
        for n in range(args.repeat):
            last = n == args.repeat - 1
            run(server.url, args.checks, args.profile if last else None, args.commands and last)


if __name__ == "__main__":
    main()
