"""Per-batch fixed costs of the executive, in-process: round trips, executive CPU and Redis CPU of ok batches
and notifying batches (one flapping check's event among ok ones) at batch sizes 1-10.

Usage: python benchmarks/batch_profile.py [--sizes 1,2,5,10] [--batches 200] [--profile out.prof] [--aof]
Seeds the latency scenario's population (`flapjack bench`: 1,000 checks, 3 contacts x 2 media, one check in
ten flapping), then for each size queues and processes `--batches` batches of exactly that size, one at a
time (take + process, as the run() loop does). Prints, per kind and size: round trips (client writes) per
batch, Redis commands per batch, executive CPU and Redis server CPU per batch in microseconds. With
--profile: a cProfile of the notifying batches of the largest size.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import tempfile
import time
from typing import Any

import redis
from lab import queue_events

from flapjack_py.bench.workload import (
    add_contacts,
    executive_config,
    make_event,
    population_for,
    seed_events,
)
from flapjack_py.executive import Executive
from flapjack_py.runtime.connection import clients_from_url
from flapjack_py.runtime.embedded_redis import EmbeddedRedis


class Writes:
    """Counts the client's writes to Redis (each write is one round trip: the reply is awaited before the next)."""

    def __init__(self) -> None:
        self.count = 0
        self.on = self.show = False
        original = redis.connection.AbstractConnection.send_packed_command
        counter = self

        def send(conn: Any, command: Any, check_health: bool = True) -> None:
            if counter.on:
                counter.count += 1
                if counter.show:
                    data = b"".join(bytes(c) for c in command) if isinstance(command, list) else bytes(command)
                    print("   ", command_names(data))
            original(conn, command, check_health)

        redis.connection.AbstractConnection.send_packed_command = send  # type: ignore[method-assign]


def command_names(data: bytes) -> list[str]:
    """The command names in packed RESP commands."""
    names, lines = [], iter(data.split(b"\r\n"))
    for line in lines:
        if line.startswith(b"*"):
            args = [next(lines) and next(lines) for _ in range(int(line[1:]))]
            names.append(args[0].decode())
    return names


def server_cpu(pid: int) -> float:
    """The server's main thread's CPU seconds (schedstat: nanoseconds on the CPU)."""
    with open(f"/proc/{pid}/schedstat") as f:
        return int(f.read().split()[0]) / 1e9


def server_commands(client: Any) -> int:
    return int(client.info("stats")["total_commands_processed"])


def command_stats(client: Any) -> dict[str, tuple[int, int]]:
    """Command name -> (calls, usec) of the server now (INFO commandstats)."""
    return {k.removeprefix("cmdstat_"): (int(v["calls"]), int(v["usec"]))
            for k, v in client.info("commandstats").items()}


class Feed:
    """Events of the latency population: ok events of steady checks, alternating critical/ok of flapping ones."""

    def __init__(self, checks: int) -> None:
        self.pop = population_for(checks, True)
        self.steady = [i for i in range(self.pop.size) if not self.pop.flaps(i)]
        self.flapping = [i for i in range(self.pop.size) if self.pop.flaps(i)]
        self.turn: dict[int, int] = {}
        self.n = 0

    def ok(self) -> str:
        self.n += 1
        return make_event(*self.pop.check(self.steady[self.n % len(self.steady)]), "ok", int(time.time()))

    def notifying(self) -> str:
        self.n += 1
        index = self.flapping[self.n % len(self.flapping)]
        turn = self.turn.get(index, 0)
        self.turn[index] = turn + 1
        return make_event(*self.pop.check(index), "critical" if turn % 2 == 0 else "ok", int(time.time()))


def measure(executive: Executive, client: Any, pid: int, feed: Feed, writes: Writes, size: int, notifying: bool,
              batches: int, profiler: cProfile.Profile | None, show: bool = False, commands: bool = False) -> str:
    cpu = rt = wall = 0.0
    redis_cpu, cmds, stats = 0.0, server_commands(client), command_stats(client) if commands else {}
    for n in range(batches):
        events = [feed.notifying()] if notifying else []
        events += [feed.ok() for _ in range(size - len(events))]
        queue_events(client, events)
        before = server_cpu(pid)
        writes.count, writes.on, writes.show = 0, True, show and n == batches - 1
        if profiler:
            profiler.enable()
        started, clock = time.thread_time(), time.perf_counter()
        taken = executive.queue.take(size)
        executive._process_batch(taken)
        cpu += time.thread_time() - started
        wall += time.perf_counter() - clock
        if profiler:
            profiler.disable()
        writes.on = False
        redis_cpu += server_cpu(pid) - before
        assert len(taken) == size
        rt += writes.count
    cmds = server_commands(client) - cmds - 1 - batches  # the INFO and the LPUSHes
    if commands:
        for name, (calls, usec) in sorted(command_stats(client).items(), key=lambda kv: -kv[1][1]):
            was = stats.get(name, (0, 0))
            if calls > was[0]:
                print(f"    {name:16} calls/batch={(calls - was[0]) / batches:6.2f} us/batch={(usec - was[1]) / batches:7.2f}")
    kind = "notifying" if notifying else "ok"
    return (f"{kind:9} size={size:2} round_trips={rt / batches:5.2f} redis_cmds={cmds / batches:6.1f} "
            f"exec_cpu_us={cpu / batches * 1e6:7.0f} redis_cpu_us={redis_cpu / batches * 1e6:7.0f} "
            f"wall_us={wall / batches * 1e6:7.0f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", default="1,2,5,10")
    parser.add_argument("--batches", type=int, default=200)
    parser.add_argument("--checks", type=int, default=1000)
    parser.add_argument("--profile")
    parser.add_argument("--aof", action="store_true")
    parser.add_argument("--commands", action="store_true", help="Redis's own time per command (commandstats)")
    parser.add_argument("--kinds", default="ok,notifying", help="ok, notifying or both (comma-separated)")
    parser.add_argument("--lines", type=int, default=40)
    parser.add_argument("--profile-kind", choices=("ok", "notifying"), default="notifying")
    parser.add_argument("--show", action="store_true", help="print the commands of each round trip of a batch")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    writes = Writes()
    with tempfile.TemporaryDirectory(prefix="fj-bench-") as tmp, EmbeddedRedis(tmp, persistent=args.aof) as server:
        clients = clients_from_url(server.url)
        client = clients.raw
        add_contacts(clients.text)
        feed = Feed(args.checks)
        executive = Executive(clients, executive_config(server.url))
        queue_events(client, seed_events(feed.pop, int(time.time())))
        executive.drain()
        pid = server.process.pid
        for kind in (False, True):  # warm both paths
            measure(executive, client, pid, feed, writes, 2, kind, 20, None, args.show)
        for size in sizes:
            for kind in [k == "notifying" for k in args.kinds.split(",")]:
                wanted = args.profile_kind == ("notifying" if kind else "ok")
                profiler = cProfile.Profile(time.thread_time) if args.profile and wanted and size == sizes[-1] else None
                print(measure(executive, client, pid, feed, writes, size, kind, args.batches, profiler,
                              commands=args.commands), flush=True)
                if profiler and args.profile:
                    profiler.dump_stats(args.profile)
                    pstats.Stats(args.profile).sort_stats("cumulative").print_stats(args.lines)


if __name__ == "__main__":
    main()
