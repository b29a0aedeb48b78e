"""The throughput scenarios: ok_steady, failing_10pct, checks_10k and storm.

Each repetition starts from an empty database (the bench's own keys deleted),
adds contacts if the scenario alerts, seeds every check once (known, ok, no
maintenance), fills the queue, then times the real executive's `drain()` in the
probe process from the first pop to an empty queue, and checks correctness.
"""

from __future__ import annotations

import logging
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from flapjack_py.bench.context import Context
from flapjack_py.bench.correctness import Observation, correctness_fields, failures
from flapjack_py.bench.reference import Reference
from flapjack_py.bench.workload import (
    CONTACTS,
    MEDIA,
    Population,
    Workload,
    add_contacts,
    everyone_fails,
    notifications_of_flapping,
    population_for,
    round_robin,
    seed_events,
)
from flapjack_py.store import bench as bench_store

log = logging.getLogger(__name__)

STEADY_CHECKS = 1_000
MANY_CHECKS = 10_000
STORM_CHECKS = 2_000
ALERTS_PER_NOTIFICATION = CONTACTS * len(MEDIA)

Build = Callable[[Population, int, int], Workload]


@dataclass(frozen=True)
class Run:
    """One timed repetition."""

    events: int
    seconds: float
    executive_cpu_s: float
    redis_commands: int
    redis_cpu_s: float
    obs: Observation
    redis_forks: int = 0  # AOF rewrites / RDB saves forked while timed (their child shares the server's CPU)

    @property
    def events_per_s(self) -> float:
        return self.events / max(self.seconds, 1e-9)

    @property
    def alerts_per_s(self) -> float:
        return self.obs.alerts / max(self.seconds, 1e-9)

    def raw(self) -> dict[str, Any]:
        """Everything measured, for --json."""
        return {"events": self.events, "seconds": self.seconds, "events_per_s": self.events_per_s,
                "alerts_per_s": self.alerts_per_s, "executive_cpu_s": self.executive_cpu_s,
                "redis_commands": self.redis_commands, "redis_cpu_s": self.redis_cpu_s, "redis_forks": self.redis_forks,
                **correctness_fields(self.obs)}


@dataclass
class ThroughputResult:
    """The repetitions of one throughput scenario."""

    name: str
    checks: int
    runs: list[Run] = field(default_factory=list)
    section: str = "scenario"
    rotated: bool = False  # its repetitions ran in rotation with other steady scenarios' (in_rotation)

    @property
    def failures(self) -> list[str]:
        return [str(f) for run in self.runs for f in failures(run.obs)]

    @property
    def typical(self) -> Run:
        """The first wrong repetition, else the median one by events/s."""
        wrong = [run for run in self.runs if failures(run.obs)]
        if wrong:
            return wrong[0]
        ordered = sorted(self.runs, key=lambda run: run.events_per_s)
        return ordered[(len(ordered) - 1) // 2]

    def fields(self, ref: Reference, others: dict[str, Any]) -> dict[str, Any]:
        """The `bench.scenario` line."""
        run = self.typical
        if self.name == "storm":
            return {"name": self.name, "checks": self.checks, "contacts": CONTACTS, "media": len(MEDIA),
                    "seconds": run.seconds, "alerts": run.obs.alerts, "alerts_expected": run.obs.alerts_expected,
                    "alerts_per_s": run.alerts_per_s, "ratio_jobs": _ratio(run.alerts_per_s, ref.median("jobs")),
                    "ratio_alert_writes": _ratio(run.alerts_per_s, ref.median("alert_writes")),
                    "redis_cmds_per_alert": run.redis_commands / max(run.obs.alerts, 1),
                    "executive_cpu_us_per_alert": run.executive_cpu_s * 1e6 / max(run.obs.alerts, 1),
                    "redis_cpu_us_per_alert": run.redis_cpu_s * 1e6 / max(run.obs.alerts, 1), "lost": run.obs.lost}
        line: dict[str, Any] = {
            "name": self.name, "checks": self.checks, "events": run.events, "seconds": run.seconds,
            "events_per_s": run.events_per_s, "ratio_rtt": _ratio(run.events_per_s, ref.median("rtt")),
            "ratio_pipe": _ratio(run.events_per_s, ref.median("pipe")), "alerts": run.obs.alerts,
            "alerts_expected": run.obs.alerts_expected}
        if run.obs.alerts_expected:
            line["alerts_per_s"] = run.alerts_per_s
        line.update({"redis_cmds_per_event": run.redis_commands / run.events,
                     "executive_cpu_us_per_event": run.executive_cpu_s * 1e6 / run.events,
                     "redis_cpu_us_per_event": run.redis_cpu_s * 1e6 / run.events})
        if self.name == "checks_10k" and isinstance(others.get("ok_steady"), ThroughputResult):
            line["ratio_to_ok_steady"] = self.ratio_to(others["ok_steady"])
        line["lost"] = run.obs.lost
        return line

    def ratio_to(self, base: ThroughputResult) -> float:
        """events/s relative to `base`'s: the median of the rounds' ratios when both ran in rotation (each
        run compared with `base`'s run of the same round), else the ratio of the median runs."""
        if self.rotated and base.rotated and len(self.runs) == len(base.runs) and self.runs:
            return float(statistics.median(_ratio(mine.events_per_s, theirs.events_per_s)
                                           for mine, theirs in zip(self.runs, base.runs, strict=True)))
        return _ratio(self.typical.events_per_s, base.typical.events_per_s)

    def raw(self) -> dict[str, Any]:
        raw: dict[str, Any] = {"name": self.name, "checks": self.checks,
                               "repetitions": [run.raw() for run in self.runs]}
        if self.rotated:
            raw["in_rotation"] = True
        return raw


@dataclass(frozen=True)
class Steady:
    """A steady-stream scenario's population: how many checks, and whether one in ten flaps and alerts."""

    checks: int
    failing: bool


STEADY = {"ok_steady": Steady(STEADY_CHECKS, False), "failing_10pct": Steady(STEADY_CHECKS, True),
          "checks_10k": Steady(MANY_CHECKS, False)}
"""The steady scenarios, whose results are compared with one another (in_rotation)."""


def ok_steady(ctx: Context) -> ThroughputResult:
    """1,000 checks, `ok` events round robin, nobody to notify."""
    return in_rotation(ctx, ["ok_steady"])["ok_steady"]


def failing_10pct(ctx: Context) -> ThroughputResult:
    """1,000 checks, one in ten alternating critical/ok; 3 contacts x email and sms."""
    return in_rotation(ctx, ["failing_10pct"])["failing_10pct"]


def checks_10k(ctx: Context) -> ThroughputResult:
    """ok_steady over 10,000 checks."""
    return in_rotation(ctx, ["checks_10k"])["checks_10k"]


def in_rotation(ctx: Context, names: list[str]) -> dict[str, ThroughputResult]:
    """The steady scenarios `names`, their repetitions in rotation (ok_steady, failing_10pct, checks_10k,
    ok_steady, ...), so that the runs compared with one another were made moments apart: checks_10k's
    ratio_to_ok_steady, and failing_10pct against 0.6 x ok_steady. A slow phase of a small VM lasts seconds;
    back to back, one slowed all three checks_10k repetitions by ~15 % in one of seven runs (issue 11).
    In rotation, it falls on a round's runs alike."""
    rotated = len(names) > 1
    results = {name: ThroughputResult(name, STEADY[name].checks, rotated=rotated) for name in names}
    populations = {name: population_for(STEADY[name].checks, STEADY[name].failing) for name in names}
    for _ in range(ctx.options.repetitions):
        for name in names:
            results[name].runs.append(run_once(ctx, populations[name], STEADY[name].failing,
                                               ctx.options.scenario_events, round_robin))
    return results


def storm(ctx: Context) -> ThroughputResult:
    """2,000 ok checks (fewer when --events is smaller) all go critical at once; 3 contacts x 2 media."""
    checks = min(STORM_CHECKS, ctx.options.scenario_events)
    pop = population_for(checks, False)
    result = ThroughputResult("storm", pop.size)
    for _ in range(ctx.options.repetitions):
        result.runs.append(run_once(ctx, pop, True, pop.size, everyone_fails))
    return result


def run_once(ctx: Context, pop: Population, contacts: bool, events: int, build: Build) -> Run:
    """Reset, set up, seed, fill, time one drain of the real executive, observe."""
    client = ctx.target.client
    prepare(ctx, pop, contacts)
    work = build(pop, events, int(time.time()))
    bench_store.fill_queue(client, work.raws)
    ctx.target.compact()
    counted, jobs, stats = (bench_store.events_counted(client), bench_store.count_jobs(ctx.target.raw, MEDIA),
                            bench_store.server_stats(client))
    reply = ctx.drain()
    after = bench_store.server_stats(client)
    expected = alerts_expected(ctx, pop, len(work.raws), work) if contacts else 0
    obs = observe(ctx, len(work.raws), counted, jobs, expected, work.last)
    return Run(len(work.raws), float(reply["seconds"]), float(reply["cpu_s"]), after.commands - stats.commands,
               after.cpu_s - stats.cpu_s, obs, after.forks - stats.forks)


def alerts_expected(ctx: Context, pop: Population, events: int, work: Workload) -> int:
    """6 per notifying event; of a flapping check's events those engine.md's rules notify at the times the
    executive recorded their state changes (two flaps of one check inside a second notify one recovery)."""
    if not pop.flap_every:
        return work.notifying * ALERTS_PER_NOTIFICATION
    flapping = pop.flapping_checks(events)
    times = bench_store.state_change_times(ctx.target.client, list(flapping))
    made = 0
    for ids, count in flapping.items():
        recorded = times.get(ids, [])
        made += notifications_of_flapping(recorded[-count:]) if len(recorded) >= count else count
    return made * ALERTS_PER_NOTIFICATION


def prepare(ctx: Context, pop: Population, contacts: bool) -> None:
    """Empty the database of the bench's keys, add contacts, seed every check once with `ok`."""
    ctx.target.reset()
    if contacts:
        add_contacts(ctx.target.client)
    bench_store.fill_queue(ctx.target.client, seed_events(pop, int(time.time())))
    ctx.drain()


def observe(ctx: Context, pushed: int, counted_before: int, jobs_before: int, alerts_expected: int,
            last: dict[tuple[str, str], str]) -> Observation:
    """What the run left: counters, queue, in-flight lists, rq jobs, each check's state."""
    client = ctx.target.client
    return Observation(
        pushed=pushed, counted=bench_store.events_counted(client) - counted_before,
        queued_left=bench_store.queue_length(client), in_flight_left=bench_store.in_flight_total(client),
        alerts=bench_store.count_jobs(ctx.target.raw, MEDIA) - jobs_before, alerts_expected=alerts_expected,
        expected_states=last, states=bench_store.load_states(client, last))


def _ratio(value: float, base: float) -> float:
    return value / base if base else 0.0
