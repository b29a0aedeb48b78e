"""The system the delivery scenarios time: `flapjack server` (its executive, watchdog, web app and a worker per
enabled gateway, as many as `gateways.<medium>.workers` says) on the bench's Redis, its gateways pointed at the
bench's local SMTP and HTTP servers (bench/sinks.py); pinned where the executive is, stopped by PID.
"""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import yaml

from flapjack_py.bench.context import Context
from flapjack_py.bench.servers import free_port
from flapjack_py.bench.worker import child_env, log_tail
from flapjack_py.bench.workload import make_event
from flapjack_py.config.settings import load_config
from flapjack_py.errors import BenchError
from flapjack_py.store import bench as bench_store

log = logging.getLogger(__name__)

READY_TIMEOUT = 60.0  # seconds `flapjack server` gets to have its executive and gateways working
STOP_TIMEOUT = 20.0  # seconds it gets to stop its children (it gives them 10) before they are all killed


def server_config(ctx: Context, media: Sequence[str], ports: Mapping[str, int]) -> dict[str, Any]:
    """The configuration `flapjack server` runs with: the bench's Redis, no new-check maintenance, incidents
    by check, the scenario's media enabled and pointed at the local servers (with the user's workers and
    concurrency), the web app on a free loopback port, warnings only."""
    gateways: dict[str, dict[str, Any]] = {}
    for medium in media:
        settings: dict[str, Any] = {"enabled": True, **ctx.options.tuning.get(medium, {})}
        if medium == "email":
            settings["smtp_config"] = {"host": "127.0.0.1", "port": ports["email"]}
        elif medium == "pagerduty":
            settings.update(events_url=f"http://127.0.0.1:{ports['pagerduty']}", ack_poll_interval=0)
        gateways[medium] = settings
    return {"redis": {"url": ctx.target.url}, "executive": {"new_check_scheduled_maintenance_duration": 0},
            "incidents": {"group_by": "check"},  # as workload.executive_config: every alert of a check's own
            "gateways": gateways, "web": {"bind": "127.0.0.1", "port": free_port()},
            "logging": {"level": "WARNING"}}


def tuning_of(config: Mapping[str, Any], medium: str) -> tuple[int, int]:
    """(workers, concurrency) the gateway of `medium` runs with under `config` (1 where not a setting)."""
    settings = load_config(config).gateway(medium)
    return int(settings.get("workers", 1)), int(settings.get("concurrency", 1))


class FlapjackServer:
    """`flapjack --config FILE server`, started by the bench."""

    def __init__(self, ctx: Context, config: Mapping[str, Any], name: str) -> None:
        self.ctx = ctx
        self.config = config
        self.log_path = Path(ctx.tmp_dir) / f"server-{name}.log"
        config_path = Path(ctx.tmp_dir) / f"server-{name}.yml"
        config_path.write_text(yaml.safe_dump(dict(config)), encoding="utf-8")
        cpus = sorted(ctx.placement.executive) if ctx.placement.executive else None
        # pinned before it starts its children, which inherit its CPUs
        pin = f"import os; os.sched_setaffinity(0, {cpus}); " if cpus else ""
        with open(self.log_path, "ab") as log_file:
            self.process = subprocess.Popen(
                [sys.executable, "-c", pin + "from flapjack_py.cli import main; main()", "--config", str(config_path),
                 "server"], stdin=subprocess.DEVNULL, stdout=log_file, stderr=log_file, env=child_env(),
                start_new_session=True)  # its own process group: its children are ours to stop if it cannot

    def wait_ready(self, media: Sequence[str], probe_check: tuple[str, str]) -> None:
        """Until the executive has taken an `ok` event for `probe_check` (seeded ok: nothing notifies) and each
        medium has its workers' heartbeats; BenchError when that takes longer than READY_TIMEOUT."""
        client = self.ctx.target.client
        counted = bench_store.events_counted(client)
        bench_store.push_one(client, make_event(*probe_check, "ok", int(time.time())))
        wanted = {medium: tuning_of(self.config, medium)[0] for medium in media}
        deadline = time.monotonic() + READY_TIMEOUT
        while time.monotonic() < deadline:
            self.check_running()
            live = bench_store.live_gateways(client)
            if bench_store.events_counted(client) > counted and all(live[m] >= n for m, n in wanted.items()):
                return
            time.sleep(0.05)
        raise BenchError(f"flapjack server was not ready within {READY_TIMEOUT:.0f}s (log: {self.tail()})")

    def check_running(self) -> None:
        """BenchError when the server has exited."""
        if self.process.poll() is not None:
            raise BenchError(f"flapjack server exited with {self.process.returncode}: {self.tail()}")

    def tail(self) -> str:
        """The end of its log."""
        return log_tail(self.log_path)

    def stop(self) -> None:
        """SIGTERM (it stops its children); when it has not exited after STOP_TIMEOUT, SIGKILL to its process
        group (it and the children it started)."""
        if self.process.poll() is not None:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout=STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            log.warning("flapjack server did not stop in %.0fs; killing its process group", STOP_TIMEOUT)
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
