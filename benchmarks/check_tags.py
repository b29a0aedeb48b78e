"""Benchmark: does a batch of events cost more when many check tags are in use? (issue 16.3)

Usage: python benchmarks/check_tags.py [--checks 1000] [--tags 0,1000] [--tags-per-check 2] [--rounds 5]

For each number of tags in use, starts a private redis/valkey server (persistence off), tags `--checks`
checks through the data layer (each check carries `--tags-per-check` of the tags, every tag is carried by
at least one check when there are enough checks), then `--rounds` times queues one event per check (a
`--checks`-event batch; 5 % critical) and times `Executive.drain()` with batch_size = `--checks`.
The server's SLOWLOG times every Lua call (EVALSHA) of at least 0.1 ms (a lower threshold logs the commands
inside scripts too, which slows the scripts): while one runs, every other client waits. Prints one JSON
line per tag count: median and max seconds per batch, and per script the number of calls of 0.1 ms or more
with their median, 99th percentile and longest duration in ms, and how many took over 1 ms and 5 ms. On a busy machine single calls are stretched
by the scheduler (even a plain HSET then shows tens of ms): compare medians, run it on an idle machine.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import statistics
import time
from typing import Any

import redis
from lab import executive, private_redis, queue_events

from flapjack_py.store import tags as tag_store
from flapjack_py.store.plumbing import scripts

SLOWLOG_US = 100


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--checks", type=int, default=1000)
    parser.add_argument("--tags", default="0,1000", help="comma-separated numbers of tags in use")
    parser.add_argument("--tags-per-check", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    for tags in (int(t) for t in args.tags.split(",")):
        with private_redis() as server:
            print(json.dumps(measure(server.client(), args.checks, tags, args.tags_per_check, args.rounds)))


def check_name(i: int) -> tuple[str, str]:
    return f"host-{i % 100:03d}.example.com", f"check {i // 100}"


def tag_checks(client: redis.Redis, checks: int, tags: int, per_check: int) -> None:
    """Check i carries tags i, i+checks, ... (mod `tags`) so that every tag is used."""
    if not tags:
        return
    for i in range(checks):
        entity, check = check_name(i)
        names = {f"tag-{(i + k * checks) % tags:05d}" for k in range(per_check)}
        names |= {f"tag-{t:05d}" for t in range(i, tags, checks)} if i < tags else set()
        tag_store.add_check_tags(client, entity, check, sorted(names))


def events(checks: int, round_no: int) -> list[str]:
    now = int(time.time())
    return [json.dumps({"entity": check_name(i)[0], "check": check_name(i)[1], "type": "service",
                        "state": "critical" if i % 20 == 0 else "ok", "summary": f"round {round_no}", "time": now})
            for i in range(checks)]


def measure(client: redis.Redis, checks: int, tags: int, per_check: int, rounds: int) -> dict[str, Any]:
    tag_checks(client, checks, tags, per_check)
    ex = executive(client, batch_size=checks)
    client.config_set("slowlog-log-slower-than", SLOWLOG_US)
    client.config_set("slowlog-max-len", 1_000_000)
    seconds: list[float] = []
    lua: dict[str, list[float]] = {}
    for n in range(rounds + 1):  # round 0 registers the checks and warms up
        queue_events(client, events(checks, n))
        client.slowlog_reset()
        started = time.perf_counter()
        taken = ex.drain()
        elapsed = time.perf_counter() - started
        assert taken == checks, taken
        if n:
            seconds.append(elapsed)
            for name, ms in _lua_calls(client.slowlog_get(1_000_000)):
                lua.setdefault(name, []).append(ms)
    return {"checks": checks, "tags_in_use": tags, "batch_events": checks, "rounds": rounds,
            "batch_s_median": round(statistics.median(seconds), 4), "batch_s_max": round(max(seconds), 4),
            "lua_ms": {name: _summary(ms) for name, ms in sorted(lua.items())}}


def _summary(ms: list[float]) -> dict[str, Any]:
    ordered = sorted(ms)
    return {"calls": len(ms), "median": round(statistics.median(ms), 3),
            "p99": round(ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))], 3), "max": round(max(ms), 3),
            "over_1ms": sum(1 for m in ms if m > 1), "over_5ms": sum(1 for m in ms if m > 5)}


def _lua_calls(entries: list[dict[str, Any]]) -> list[tuple[str, float]]:
    """(script name, ms) of every EVALSHA/EVAL in the slow log (every command is there at threshold 0)."""
    names = {hashlib.sha1(source.encode()).hexdigest(): name for name, source in vars(scripts).items()
             if name.isupper() and isinstance(source, str)}
    found = []
    for entry in entries:
        parts = _command(entry).split(" ", 2)
        if parts[0].upper() == "EVALSHA" and len(parts) > 1:
            found.append((names.get(parts[1], parts[1][:12]), entry["duration"] / 1000))
        elif parts[0].upper() == "EVAL":
            found.append(("EVAL", entry["duration"] / 1000))
    return found


def _command(entry: dict[str, Any]) -> str:
    command = entry.get("command", "")
    return command.decode("utf-8", "replace") if isinstance(command, bytes) else str(command)


if __name__ == "__main__":
    main()
