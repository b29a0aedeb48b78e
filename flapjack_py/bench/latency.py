"""The latency scenario: `flapjack executive` runs (its `run()` loop) while an open-loop feeder pushes
the failing_10pct mix at a fixed rate; latency = rq job `enqueued_at` - push time (carried in the summary).
"""

from __future__ import annotations

import logging
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from flapjack_py.bench.context import Context
from flapjack_py.bench.correctness import Observation, correctness_fields, failures
from flapjack_py.bench.feeder import PUSHED_AT
from flapjack_py.bench.reference import Reference
from flapjack_py.bench.scenarios import STEADY_CHECKS, alerts_expected, observe, prepare
from flapjack_py.bench.worker import child_env, pin, stop_process
from flapjack_py.bench.workload import MEDIA, Population, make_event, population_for, round_robin
from flapjack_py.errors import BenchError
from flapjack_py.store import bench as bench_store

log = logging.getLogger(__name__)

SETTLE_TIMEOUT = 60.0  # seconds the executive gets to catch up after the feeder stops


@dataclass
class LatencyResult:
    """What the latency run measured."""

    name: str
    offered_per_s: float
    seconds: float
    feed: dict[str, Any]
    latencies_ms: list[float]
    obs: Observation
    section: str = "latency"
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def failures(self) -> list[str]:
        return [str(f) for f in failures(self.obs)]

    def fields(self, ref: Reference, others: dict[str, Any]) -> dict[str, Any]:
        """The `bench.latency` line."""
        return {"offered_per_s": self.offered_per_s, "seconds": self.seconds, "events": self.obs.pushed,
                "alerts": self.obs.alerts, "alerts_expected": self.obs.alerts_expected,
                "alert_p50_ms": percentile(self.latencies_ms, 50), "alert_p99_ms": percentile(self.latencies_ms, 99),
                "alert_max_ms": max(self.latencies_ms, default=0.0), "queue_len_max": self.feed["queue_len_max"]}

    def raw(self) -> dict[str, Any]:
        return {"feed": self.feed, **correctness_fields(self.obs), "latencies_ms": self.latencies_ms}


def run_latency(ctx: Context) -> LatencyResult:
    """Seed the failing_10pct population, start `flapjack executive`, feed, wait, stop it, read every job."""
    pop = population_for(STEADY_CHECKS, True)
    prepare(ctx, pop, True)
    executive = _start_executive(ctx)
    try:
        _wait_ready(ctx, pop, executive)
        ctx.target.compact()
        counted, jobs = bench_store.events_counted(ctx.target.client), bench_store.count_jobs(ctx.target.raw, MEDIA)
        feed = ctx.feeder.call("feed", url=ctx.target.url, entities=pop.entities, flap_every=pop.flap_every,
                               rate=ctx.options.rate, seconds=ctx.options.latency_seconds)
        _settle(ctx, counted + feed["pushed"], executive)
    finally:
        stop_process(executive)
    work = round_robin(pop, feed["pushed"], 0)
    obs = observe(ctx, feed["pushed"], counted, jobs, alerts_expected(ctx, pop, feed["pushed"], work), work.last)
    latencies = [ms for ms in (_latency_ms(job) for job in bench_store.queued_jobs(ctx.target.raw, MEDIA))
                 if ms is not None]
    return LatencyResult("latency", ctx.options.rate, ctx.options.latency_seconds, feed, latencies, obs)


def percentile(values: list[float], pct: float) -> float:
    """The `pct` percentile (nearest rank) of `values`; 0 for none."""
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = max(1, min(len(ordered), round(pct / 100 * len(ordered) + 0.5)))
    return ordered[rank - 1]


def _latency_ms(job: bench_store.QueuedJob) -> float | None:
    summary = str(job.alert.get("summary") or "")
    if not summary.startswith(PUSHED_AT):
        return None
    return (job.enqueued_at - float(summary[len(PUSHED_AT):].split(" ", 1)[0])) * 1000


def _start_executive(ctx: Context) -> subprocess.Popen[bytes]:
    """`flapjack --config FILE executive` (its run() loop), pinned like the probe."""
    config_path = Path(ctx.tmp_dir) / "executive.yml"
    config_path.write_text(yaml.safe_dump(ctx.config), encoding="utf-8")
    log_file = open(Path(ctx.tmp_dir) / "executive.log", "ab")  # noqa: SIM115  (the child keeps it)
    process = subprocess.Popen(
        [sys.executable, "-c", "from flapjack_py.cli import main; main()", "--config", str(config_path), "executive"],
        stdin=subprocess.DEVNULL, stdout=log_file, stderr=log_file, env=child_env())
    log_file.close()
    pin(process.pid, ctx.placement.executive)
    return process


def _wait_ready(ctx: Context, pop: Population, executive: subprocess.Popen[bytes]) -> None:
    """Push one `ok` event for a steady check and wait until the executive has counted it."""
    client = ctx.target.client
    counted = bench_store.events_counted(client)
    bench_store.push_one(client, make_event(*pop.check(1), "ok", int(time.time())))
    _settle(ctx, counted + 1, executive)


def _settle(ctx: Context, count: int, executive: subprocess.Popen[bytes]) -> None:
    """Wait until the executive has counted `count` events in all, or give up after a minute."""
    deadline = time.monotonic() + SETTLE_TIMEOUT
    while time.monotonic() < deadline:
        if bench_store.events_counted(ctx.target.client) >= count:
            return
        if executive.poll() is not None:
            log_text = (Path(ctx.tmp_dir) / "executive.log").read_text(errors="replace")[-800:]
            raise BenchError(f"flapjack executive exited with {executive.returncode}: {log_text}")
        time.sleep(0.05)
    log.warning("the executive did not catch up within %.0fs", SETTLE_TIMEOUT)
