"""The bench's child processes: a probe that runs the real executive (`Executive(...).drain()`), the
references and the plain clients, a feeder, and for the delivery scenarios the local SMTP and HTTP servers;
each pinned to its CPU and driven by JSON lines on stdin/stdout.

`python -m flapjack_py.bench.worker` is the child; `Worker` is the parent's handle on one.
"""

from __future__ import annotations

import importlib.util
import json
import logging
import os
import select
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import IO, Any

from flapjack_py.errors import BenchError
from flapjack_py.runtime.connection import clients_from_url

log = logging.getLogger(__name__)

PROJECT_ROOT = str(Path(__file__).resolve().parents[2])  # holds flapjack_py and gateways
STOP_TIMEOUT = 10.0  # seconds a child gets to exit before it is killed
REPLY_TIMEOUT = 1800.0  # seconds one command may take (a hung executive must not hang the bench)


class Worker:
    """A child process of the bench, spoken to with one JSON line per command."""

    def __init__(self, name: str, log_path: Path, cpus: set[int] | None) -> None:
        self.name = name
        self.log_path = log_path
        self._log: IO[bytes] = open(log_path, "ab")  # noqa: SIM115  (closed in stop())
        self.process = subprocess.Popen(
            [sys.executable, "-m", "flapjack_py.bench.worker"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=self._log, env=child_env(), text=True)
        pin(self.process.pid, cpus)

    def call(self, command: str, timeout: float = REPLY_TIMEOUT, **args: Any) -> dict[str, Any]:
        """Send a command, wait for its reply; raise BenchError if the child fails, dies or takes too long."""
        assert self.process.stdin is not None and self.process.stdout is not None
        try:
            self.process.stdin.write(json.dumps({"cmd": command, **args}) + "\n")
            self.process.stdin.flush()
            ready = bool(select.select([self.process.stdout], [], [], timeout)[0])
            line = self.process.stdout.readline() if ready else ""
        except (BrokenPipeError, OSError):
            ready, line = True, ""
        if not ready:
            raise BenchError(f"bench {self.name} process: no reply to {command} within {timeout:.0f}s "
                             f"(log: {self.tail()})")
        reply = json.loads(line) if line else {"error": f"exited with {self.process.poll()}"}
        if "error" in reply:
            raise BenchError(f"bench {self.name} process: {reply['error']} (log: {self.tail()})")
        return reply

    def tail(self) -> str:
        """The end of the child's log."""
        return log_tail(self.log_path)

    def stop(self) -> None:
        """Close its stdin (it exits), kill it by PID if it does not."""
        stop_process(self.process)
        self._log.close()


def log_tail(path: Path) -> str:
    """The end of a child process's log file."""
    try:
        return path.read_text(errors="replace")[-800:].strip() or "empty"
    except OSError:
        return "unreadable"


def child_env() -> dict[str, str]:
    """The environment of a child: this project first on PYTHONPATH."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (PROJECT_ROOT, env.get("PYTHONPATH")) if p)
    return env


def pin(pid: int, cpus: set[int] | None) -> None:
    """Restrict process `pid` to `cpus` (None = leave it free)."""
    if cpus:
        os.sched_setaffinity(pid, cpus)


def stop_process(process: subprocess.Popen[Any]) -> None:
    """Stop a child we started, by its PID: close its stdin (a worker then exits) or SIGTERM it, SIGKILL
    after a timeout."""
    steps = [process.terminate, process.kill]
    if process.stdin is not None:
        steps.insert(0, process.stdin.close)
    for step in steps:
        if process.poll() is not None:
            return
        try:
            step()
            process.wait(timeout=STOP_TIMEOUT)
            return
        except (subprocess.TimeoutExpired, OSError):
            continue


# --- the child side ---------------------------------------------------------------


def drain(url: str, config: dict[str, Any]) -> dict[str, Any]:
    """Run the real executive until the queue is empty; time, CPU time and events taken."""
    from flapjack_py.executive import Executive

    clients = clients_from_url(url)
    executive = Executive(clients, config)
    cpu, started = time.process_time(), time.perf_counter()
    taken = executive.drain()
    seconds, cpu_s = time.perf_counter() - started, time.process_time() - cpu
    clients.close()
    return {"taken": taken, "seconds": seconds, "cpu_s": cpu_s}


_ENCODED: dict[int, list[Any]] = {}
"""The probe's alert-writes reference by size, encoded at its first sample (10,000 alerts take ~1 s) and
sent again at the later ones."""


def reference(url: str, ops: int, jobs: int, alerts: int) -> dict[str, Any]:
    """One sample of the raw rates."""
    from flapjack_py.bench.alert_writes import prepare
    from flapjack_py.bench.reference import measure

    clients = clients_from_url(url)
    try:
        if alerts not in _ENCODED:
            _ENCODED[alerts] = prepare(clients.raw, alerts)
        return asdict(measure(clients.raw, ops, jobs, _ENCODED[alerts]))  # bytes, as the executive moves events
    finally:
        clients.close()


def feed(url: str, **args: Any) -> dict[str, Any]:
    """The latency scenario's open-loop feeder."""
    from flapjack_py.bench.feeder import feed_open_loop

    clients = clients_from_url(url)
    try:
        return feed_open_loop(clients.text, **args)
    finally:
        clients.close()


_SINKS: list[Any] = []
"""The local SMTP and HTTP servers of this process (sinks_start), serving until it exits."""


def sinks_start() -> dict[str, Any]:
    """Start the delivery scenarios' local servers (bench/sinks.py); their ports by medium."""
    if importlib.util.find_spec("aiosmtpd") is None:
        raise RuntimeError("the delivery scenarios need aiosmtpd for their local SMTP server: pip install aiosmtpd")
    from flapjack_py.bench.sinks import Sinks

    sinks = Sinks()
    _SINKS.append(sinks)
    return sinks.start()


def sinks_count() -> dict[str, Any]:
    """How many messages and events the servers accepted since the last take."""
    return {"count": _SINKS[0].deliveries.count()}


def sinks_take() -> dict[str, Any]:
    """What the servers accepted since the last take (bench/sinks.py Deliveries.take), forgotten here."""
    return dict(_SINKS[0].deliveries.take())


def raw_smtp(host: str, port: int, samples: list[dict[str, Any]], count: int) -> dict[str, Any]:
    """raw_smtp_per_s: plain smtplib sends `count` of the samples over one connection."""
    from flapjack_py.bench.plain_clients import smtp_rate

    return {"rate": smtp_rate(host, port, samples, count)}


def raw_http(host: str, port: int, samples: list[dict[str, Any]], count: int) -> dict[str, Any]:
    """raw_http_per_s: plain http.client posts `count` of the samples on one keep-alive connection."""
    from flapjack_py.bench.plain_clients import http_rate

    return {"rate": http_rate(host, port, samples, count)}


COMMANDS: dict[str, Callable[..., dict[str, Any]]] = {
    "drain": drain, "reference": reference, "feed": feed, "sinks_start": sinks_start, "sinks_count": sinks_count,
    "sinks_take": sinks_take, "raw_smtp": raw_smtp, "raw_http": raw_http}


def main() -> int:
    """Answer commands from stdin until it closes."""
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    for line in sys.stdin:
        request = json.loads(line)
        command = COMMANDS[request.pop("cmd")]
        try:
            reply = command(**request)
        except Exception as exc:  # report to the parent, which stops the bench with exit 2
            log.exception("bench command failed")
            reply = {"error": repr(exc)}
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
