"""What every scenario works with: the options, the Redis target, the probe and feeder processes."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # kept light: `flapjack --help` imports this module
    from flapjack_py.bench.servers import Placement, Target
    from flapjack_py.bench.worker import Worker

log = logging.getLogger(__name__)

PLACEMENTS = ("same", "split", "free")
SCENARIOS = ("ok_steady", "failing_10pct", "checks_10k", "storm", "latency", "memory", "delivery_email", "delivery_http",
             "storm_delivered", "delivery_latency")
DELIVERY = frozenset({"delivery_email", "delivery_http", "storm_delivered", "delivery_latency"})
"""The scenarios that deliver alerts to the bench's local SMTP and HTTP servers."""
DELIVERY_MEDIA = ("email", "pagerduty")
TUNING = ("workers", "concurrency")
"""Settings of `gateways.<medium>` the delivery scenarios take from the user's configuration (`flapjack -c FILE
bench`); the rest of the gateways' settings are the bench's (its local servers)."""
EVENTS = 20_000  # events per scenario
QUICK_EVENTS = 5_000
MEMORY_EVENTS = 100_000
QUICK_MEMORY_EVENTS = 20_000
LATENCY_SECONDS = 10.0
QUICK_LATENCY_SECONDS = 3.0
REFERENCE_OPS, QUICK_REFERENCE_OPS = 20_000, 5_000  # LMOVEs per reference sample
REFERENCE_JOBS, QUICK_REFERENCE_JOBS = 10_000, 2_500  # job writes, and alerts written, per reference sample


@dataclass(frozen=True)
class Options:
    """The command line of `flapjack bench`."""

    quick: bool = False
    scenarios: tuple[str, ...] = SCENARIOS
    events: int | None = None  # events per scenario (None = 20,000, or 5,000 quick)
    repeat: int = 3
    placement: str | None = None
    json_path: str | None = None
    redis_url: str | None = None
    allow_existing: bool = False
    rate: float = 1000.0  # offered events/s of the latency scenario
    tuning: dict[str, dict[str, Any]] = field(default_factory=dict)  # medium -> the user's workers, concurrency

    @property
    def scenario_events(self) -> int:
        return self.events or (QUICK_EVENTS if self.quick else EVENTS)

    @property
    def repetitions(self) -> int:
        return 1 if self.quick else self.repeat

    @property
    def memory_events(self) -> int:
        return self.events or (QUICK_MEMORY_EVENTS if self.quick else MEMORY_EVENTS)

    @property
    def latency_seconds(self) -> float:
        return QUICK_LATENCY_SECONDS if self.quick else LATENCY_SECONDS

    @property
    def reference_size(self) -> tuple[int, int]:
        """(LMOVEs, job writes) per reference sample."""
        return (QUICK_REFERENCE_OPS, QUICK_REFERENCE_JOBS) if self.quick else (REFERENCE_OPS, REFERENCE_JOBS)


@dataclass
class Context:
    """The running bench: options, target Redis, placement and the child processes."""

    options: Options
    target: Target
    placement: Placement
    probe: Worker
    feeder: Worker
    tmp_dir: str
    extra: dict[str, Any] = field(default_factory=dict)
    sinks: Worker | None = None  # the process of the local SMTP and HTTP servers (delivery scenarios)
    sink_ports: dict[str, int] = field(default_factory=dict)  # their ports by medium

    @property
    def config(self) -> dict[str, Any]:
        """The executive's configuration (as the YAML of a config file would give it)."""
        from flapjack_py.bench.workload import executive_config

        return executive_config(self.target.url)

    def sinks_call(self, command: str, **args: Any) -> dict[str, Any]:
        """A command to the local servers' process."""
        assert self.sinks is not None, "the delivery scenarios run with the bench's local servers"
        return self.sinks.call(command, **args)

    def drain(self) -> dict[str, Any]:
        """Run the real executive in the probe process until the queue is empty."""
        return self.probe.call("drain", url=self.target.url, config=self.config)
