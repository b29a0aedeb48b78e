"""`flapjack bench` from start to end: set up the target Redis and the child processes, take the
reference before, between and after the scenarios, run the scenarios, report, clean up.

Returns the exit code: 0 when every scenario was right, 1 when any was wrong.
Setup problems raise BenchError (exit 2). Ctrl-C still stops every child by PID.
"""

from __future__ import annotations

import importlib.util
import logging
import os
import platform
import shutil
import signal
import tempfile
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any, Protocol

import redis
import rq

from flapjack_py import __version__
from flapjack_py.bench import delivery, latency, memory, scenarios
from flapjack_py.bench.context import DELIVERY, SCENARIOS, Context, Options
from flapjack_py.bench.output import format_line, write_json
from flapjack_py.bench.reference import Reference, Sample
from flapjack_py.bench.servers import Target, choose_placement
from flapjack_py.bench.worker import Worker, pin
from flapjack_py.errors import BenchError

log = logging.getLogger(__name__)

Emit = Callable[[str], None]


class Result(Protocol):
    """What a scenario returns."""

    name: str
    section: str

    @property
    def failures(self) -> list[str]: ...

    def fields(self, ref: Reference, others: dict[str, Any]) -> dict[str, Any]: ...

    def raw(self) -> dict[str, Any]: ...


SCENARIO_RUNNERS: dict[str, Callable[[Context], Any]] = {
    "ok_steady": scenarios.ok_steady, "failing_10pct": scenarios.failing_10pct,
    "checks_10k": scenarios.checks_10k, "storm": scenarios.storm,
    "latency": latency.run_latency, "memory": memory.run_memory, "delivery_email": delivery.delivery_email,
    "delivery_http": delivery.delivery_http, "storm_delivered": delivery.storm_delivered,
    "delivery_latency": delivery.delivery_latency,
}


def run_bench(options: Options, emit: Emit, progress: Emit) -> int:
    """Run the bench; `emit` gets the result lines, `progress` the progress lines. Return the exit code."""
    started = time.monotonic()
    options = _without_missing_delivery(options, progress)
    placement = choose_placement(options.placement)
    own_cpus = os.sched_getaffinity(0)
    target = Target(options.redis_url, options.allow_existing, placement)
    tmp_dir = tempfile.mkdtemp(prefix="fj-bench-run-")
    workers: list[Worker] = []
    previous = signal.signal(signal.SIGTERM, _interrupt)
    try:
        pin(0, placement.feeder)
        workers += [Worker("probe", Path(tmp_dir) / "probe.log", placement.executive),
                    Worker("feeder", Path(tmp_dir) / "feeder.log", placement.feeder)]
        ctx = Context(options, target, placement, workers[0], workers[1], tmp_dir)
        if DELIVERY.intersection(options.scenarios):
            workers.append(_start_sinks(ctx, progress))
        progress(target.describe())
        data = _run_scenarios(ctx, progress)
    finally:
        for worker in workers:
            worker.stop()
        _clean(target)
        os.sched_setaffinity(0, own_cpus)
        shutil.rmtree(tmp_dir, ignore_errors=True)
        signal.signal(signal.SIGTERM, previous)
    return report(options, data, time.monotonic() - started, emit)


def _without_missing_delivery(options: Options, progress: Emit) -> Options:
    """The delivery scenarios need aiosmtpd (a test dependency): without it they are left out of a run of
    every scenario, with a warning, and a run that asks for them is a setup error."""
    if not DELIVERY.intersection(options.scenarios) or importlib.util.find_spec("aiosmtpd") is not None:
        return options
    if options.scenarios != SCENARIOS:
        raise BenchError("the delivery scenarios need aiosmtpd for their local SMTP server: pip install aiosmtpd")
    progress("bench: aiosmtpd is not installed: the delivery scenarios are left out (pip install aiosmtpd)")
    return replace(options, scenarios=tuple(name for name in options.scenarios if name not in DELIVERY))


def _start_sinks(ctx: Context, progress: Emit) -> Worker:
    """The process of the delivery scenarios' local SMTP and HTTP servers, on the feeders' CPUs."""
    sinks = Worker("sinks", Path(ctx.tmp_dir) / "sinks.log", ctx.placement.feeder)
    try:
        ctx.sinks, ctx.sink_ports = sinks, sinks.call("sinks_start")
    except BaseException:
        sinks.stop()
        raise
    progress(f"bench: local SMTP server at 127.0.0.1:{ctx.sink_ports['email']}, PagerDuty-like HTTP server at "
             f"127.0.0.1:{ctx.sink_ports['pagerduty']} (pid {sinks.process.pid})")
    return sinks


def _interrupt(signum: int, _frame: object) -> None:
    """SIGTERM stops the bench as Ctrl-C does: every child and the private Redis are stopped by PID."""
    raise KeyboardInterrupt(f"signal {signum}")


def _run_scenarios(ctx: Context, progress: Emit) -> dict[str, Any]:
    reference = Reference()
    data: dict[str, Any] = {"env": env_fields(ctx), "reference": reference, "results": {}}
    _sample(ctx, reference)
    results: dict[str, Result] = {}
    steady = [name for name in ctx.options.scenarios if name in scenarios.STEADY]
    for name in ctx.options.scenarios:
        if name in results:
            continue  # measured in rotation with another steady scenario
        began = time.monotonic()
        if len(steady) > 1 and name in steady:
            progress(f"bench: {', '.join(steady)}, repetitions in rotation ...")
            measured: dict[str, Result] = dict(scenarios.in_rotation(ctx, steady))
        else:
            progress(f"bench: {name} ...")
            measured = {name: SCENARIO_RUNNERS[name](ctx)}
        results.update(measured)
        took = time.monotonic() - began
        for done, result in measured.items():
            verdict = ",".join(dict.fromkeys(result.failures)) or "ok"
            along = f" with {' and '.join(n for n in measured if n != done)}" if len(measured) > 1 else ""
            progress(f"bench: {done} done in {took:.1f}s{along} ({verdict})")
        _sample(ctx, reference)
    data["results"] = {name: results[name] for name in ctx.options.scenarios}  # lines in the order asked
    return data


def _sample(ctx: Context, reference: Reference) -> None:
    ops, jobs = ctx.options.reference_size
    ctx.target.compact()
    reply = ctx.probe.call("reference", url=ctx.target.url, ops=ops, jobs=jobs, alerts=jobs)
    reference.samples.append(Sample(**reply))


def _clean(target: Target) -> None:
    """Leave a user's database as found (the bench's keys deleted), stop our server."""
    try:
        if not target.pinned:
            target.reset()
    except redis.RedisError as exc:
        log.warning("could not delete the bench's keys: %s", exc)
    target.close()


def env_fields(ctx: Context) -> dict[str, Any]:
    """The `bench.env` line."""
    return {"flapjack": __version__, "python": platform.python_version(), "redis_server": ctx.target.version(),
            "redis_py": redis.__version__, "hiredis": "yes" if importlib.util.find_spec("hiredis") else "no",
            "rq": rq.__version__, "cpus": os.cpu_count(), **ctx.placement.fields(ctx.target.pinned),
            "persistence": ctx.target.persistence(), "repeat": ctx.options.repetitions}


def report(options: Options, data: dict[str, Any], runtime: float, emit: Emit) -> int:
    """Emit the lines (and write --json); return 1 when any scenario was wrong, else 0."""
    reference: Reference = data["reference"]
    results: dict[str, Result] = data["results"]
    lines = [format_line("env", data["env"]), format_line("reference", reference.fields())]
    record: dict[str, Any] = {"env": data["env"], "reference": {**reference.fields(), "samples_raw": [
        vars(s) for s in reference.samples]}, "scenarios": {}}
    for name, result in results.items():
        fields = result.fields(reference, dict(results))
        lines.append(format_line(result.section, fields))
        record["scenarios"][name] = {"line": fields, "raw": result.raw()}
    failed = [(name, reason) for name, result in results.items() for reason in result.failures]
    outcome: dict[str, Any] = {"status": "fail" if failed else "ok"}
    if failed:
        outcome.update(reason=failed[0][1], scenario=failed[0][0])
    outcome["runtime_s"] = runtime
    lines.append(format_line("result", outcome))
    record.update(result=outcome, lines=lines)
    for line in lines:
        emit(line)
    if options.json_path:
        write_json(options.json_path, record)
    return 1 if failed else 0
