"""The memory scenario: what the failing_10pct mix leaves in Redis per event, per state change and per
alert record; what the project's retention command (`flapjack purge check_history` and `alerts`) gives back; and that a steady
`ok` mix of the same length leaves (almost) nothing.
"""

from __future__ import annotations

import logging
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from flapjack_py.bench.context import Context
from flapjack_py.bench.correctness import Observation, correctness_fields, failures
from flapjack_py.bench.reference import Reference
from flapjack_py.bench.scenarios import STEADY_CHECKS, alerts_expected, observe, prepare
from flapjack_py.bench.worker import child_env
from flapjack_py.bench.workload import MEDIA, Population, population_for, round_robin
from flapjack_py.errors import BenchError
from flapjack_py.store import bench as bench_store

log = logging.getLogger(__name__)

PURGE_TIMEOUT = 300.0  # seconds
PURGED = ("check_history", "alerts")  # what the retention command deletes


@dataclass
class Pass:
    """One pass: memory before and after, by family, and its correctness."""

    events: int
    before: int
    after: int
    families_before: Counter[str]
    families_after: Counter[str]
    obs: Observation
    state_records: int = 0  # state records (check, second) the pass added

    def grown(self, *families: str) -> int:
        """Bytes the given key families grew by."""
        return sum(self.families_after[f] - self.families_before[f] for f in families)


@dataclass
class MemoryResult:
    """The failing pass, the purge, and the ok pass."""

    failing: Pass
    state_changes: int
    after_purge: int
    families_after_purge: Counter[str]
    parts: dict[str, dict[str, int]]  # INFO memory's dataset/overhead/scripts/buffers: "before", "after", "after_purge"
    ok: Pass
    name: str = "memory"
    section: str = "memory"
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def failures(self) -> list[str]:
        return [str(f) for f in failures(self.failing.obs) + failures(self.ok.obs)]

    def fields(self, ref: Reference, others: dict[str, Any]) -> dict[str, Any]:
        """The `bench.memory` line."""
        fail, alerts = self.failing, max(self.failing.obs.alerts, 1)
        return {"mix": "failing_10pct", "events": fail.events, "used_memory_before": fail.before,
                "used_memory_after": fail.after, "bytes_per_event": (fail.after - fail.before) / fail.events,
                "bytes_per_state_change": fail.grown("state_history") / max(fail.state_records, 1),
                "bytes_per_alert_record": fail.grown("alert_records", "alert_indexes") / alerts,
                "rq_pending_bytes": fail.families_after["rq_jobs"], "after_purge_bytes": self.after_purge,
                "ok_mix_bytes_per_event": (self.ok.after - self.ok.before) / self.ok.events}

    def raw(self) -> dict[str, Any]:
        return {"failing": _pass_raw(self.failing), "ok": _pass_raw(self.ok), "state_changes": self.state_changes,
                "state_records": self.failing.state_records,
                "families_after_purge": dict(self.families_after_purge), "memory_parts": self.parts}


def run_memory(ctx: Context) -> MemoryResult:
    """failing_10pct for --events (100,000; 20,000 quick), purge, then an ok pass of the same length."""
    events = ctx.options.memory_events
    flapping, parts = population_for(STEADY_CHECKS, True), dict[str, dict[str, int]]()
    failing = _pass(ctx, flapping, events, True, parts)
    _purge(ctx)
    after_purge = bench_store.server_stats(ctx.target.client).used_memory
    parts["after_purge"] = bench_store.memory_parts(ctx.target.client)
    families = bench_store.memory_by_family(ctx.target.client)
    ok = _pass(ctx, population_for(STEADY_CHECKS, False), events, False, by_family=False)
    return MemoryResult(failing, flapping.flapping_events(events), after_purge, families, parts, ok)


def _pass(ctx: Context, pop: Population, events: int, contacts: bool, parts: dict[str, dict[str, int]] | None = None,
          by_family: bool = True) -> Pass:
    """One pass; `by_family`: also MEMORY USAGE of every key before and after (the ok pass needs only totals);
    `parts`: filled with INFO memory's parts before and after."""
    client = ctx.target.client
    prepare(ctx, pop, contacts)
    work = round_robin(pop, events, int(time.time()))
    families = bench_store.memory_by_family if by_family else lambda _client: Counter[str]()
    before, families_before = bench_store.server_stats(client).used_memory, families(client)
    records = bench_store.state_records(client, [pop.check(i) for i in range(pop.size)])
    if parts is not None:
        parts["before"] = bench_store.memory_parts(client)
    counted, jobs = bench_store.events_counted(client), bench_store.count_jobs(ctx.target.raw, MEDIA)
    bench_store.fill_queue(client, work.raws)
    del work.raws[:]  # the events now live in Redis only
    ctx.drain()
    after, families_after = bench_store.server_stats(client).used_memory, families(client)
    records = bench_store.state_records(client, [pop.check(i) for i in range(pop.size)]) - records
    if parts is not None:
        parts["after"] = bench_store.memory_parts(client)
    expected = alerts_expected(ctx, pop, events, work) if contacts else 0
    obs = observe(ctx, events, counted, jobs, expected, work.last)
    return Pass(events, before, after, families_before, families_after, obs, records)


def _purge(ctx: Context) -> None:
    """`flapjack purge check_history --days 0` and `flapjack purge alerts --days 0`: every state record,
    alert record and undelivered rq job up to now goes."""
    config_path = Path(ctx.tmp_dir) / "purge.yml"
    config_path.write_text(yaml.safe_dump(ctx.config), encoding="utf-8")
    for what in PURGED:
        command = [sys.executable, "-c", "from flapjack_py.cli import main; main()", "--config", str(config_path),
                   "purge", what, "--days", "0"]
        done = subprocess.run(command, env=child_env(), capture_output=True, text=True, timeout=PURGE_TIMEOUT,
                              check=False)
        if done.returncode != 0:
            raise BenchError(f"flapjack purge {what} failed ({done.returncode}): {done.stderr[-500:]}")
        log.info("purge %s: %s", what, done.stdout.strip())


def _pass_raw(p: Pass) -> dict[str, Any]:
    return {"events": p.events, "used_memory_before": p.before, "used_memory_after": p.after,
            "families_before": dict(p.families_before), "families_after": dict(p.families_after),
            **correctness_fields(p.obs)}
