"""The same-run reference: what this Redis does for a bare client, so results compare across machines.

`measure` runs in the probe process (pinned like the executive): LMOVE one by one
(`raw_rtt_per_s`), LMOVE in pipelines of 100 (`raw_pipe_per_s`), light alert-sized
job writes in MULTI pipelines of 50 (`raw_jobs_per_s`) and, per alert, the writes the
contract requires, prebuilt in MULTIs of 50 alerts (`raw_alert_writes_per_s`,
bench/alert_writes.py). `Reference` keeps the samples taken before, between and
after the scenarios.
"""

from __future__ import annotations

import logging
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from flapjack_py.bench.alert_writes import Chunk
from flapjack_py.store import bench as bench_store
from flapjack_py.store.plumbing.client import BytesRedis

log = logging.getLogger(__name__)

PIPELINE = 100  # LMOVEs per pipeline for raw_pipe_per_s
JOBS_PER_MULTI = 50  # jobs per MULTI for raw_jobs_per_s
NOISY_SPREAD = 0.25  # samples differing by more than this fraction are flagged noisy
_ITEM = "x" * 350  # an event-sized list element
_JOB = {"data": "j" * 1200, "status": "queued", "origin": "email", "description": "gateways.worker.deliver(...)",
        "created_at": "2026-01-01T00:00:00.000000Z", "enqueued_at": "2026-01-01T00:00:00.000000Z",
        "timeout": "180", "result_ttl": "3600", "failure_ttl": "604800", "retries_left": "3"}
"""A ~1.5 kB hash shaped like an rq job of an alert."""
RATES = ("rtt", "pipe", "jobs", "alert_writes")


@dataclass(frozen=True)
class Sample:
    """One measurement of the raw rates (operations, jobs or alerts per second)."""

    rtt: float
    pipe: float
    jobs: float
    alert_writes: float = 0.0


@dataclass
class Reference:
    """Every sample of the run; medians, extremes and whether they disagree."""

    samples: list[Sample] = field(default_factory=list)

    def median(self, rate: str) -> float:
        return float(statistics.median(getattr(s, rate) for s in self.samples)) if self.samples else 0.0

    def extreme(self, rate: str, pick: Callable[..., float]) -> float:
        return float(pick(getattr(s, rate) for s in self.samples)) if self.samples else 0.0

    @property
    def noisy(self) -> bool:
        """True when any rate's samples differ by more than 25 %."""
        for rate in RATES:
            low, high = self.extreme(rate, min), self.extreme(rate, max)
            if low > 0 and (high - low) / low > NOISY_SPREAD:
                return True
        return False

    def fields(self) -> dict[str, object]:
        """The `bench.reference` line."""
        return {"raw_rtt_per_s": self.median("rtt"), "raw_rtt_min": self.extreme("rtt", min),
                "raw_rtt_max": self.extreme("rtt", max), "raw_pipe_per_s": self.median("pipe"),
                "raw_jobs_per_s": self.median("jobs"), "raw_alert_writes_per_s": self.median("alert_writes"),
                "samples": len(self.samples),
                "noisy": "yes" if self.noisy else "no"}


def measure(client: BytesRedis, ops: int, jobs: int, alerts: Sequence[Chunk]) -> Sample:
    """Take one sample: `ops` LMOVEs one by one, `ops` in pipelines, `jobs` job writes, the alert writes of
    `alerts` (alert_writes.prepare: encoded before this is called)."""
    multis = [(chunk.packed, chunk.commands) for chunk in alerts]
    try:
        bench_store.prefill_reference(client, _ITEM, ops)
        rtt = _rate(ops, lambda: bench_store.move_one_by_one(client, ops))
        bench_store.prefill_reference(client, _ITEM, ops)
        pipe = _rate(ops, lambda: bench_store.move_pipelined(client, ops, PIPELINE))
        job_rate = _rate(jobs, lambda: bench_store.write_jobs(client, _JOB, jobs, JOBS_PER_MULTI))
        bench_store.clear_reference(client)
        alert_rate = _rate(sum(chunk.alerts for chunk in alerts), lambda: bench_store.send_multis(client, multis))
    finally:
        bench_store.clear_reference(client)
    return Sample(rtt, pipe, job_rate, alert_rate)


def _rate(count: int, work: Callable[[], None]) -> float:
    started = time.perf_counter()
    work()
    return count / max(time.perf_counter() - started, 1e-9)
