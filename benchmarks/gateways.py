"""Benchmark: email delivery throughput, and event-to-SMTP latency through `flapjack server`.

Usage: python benchmarks/gateways.py [--alerts 1000] [--rate 100] [--seconds 10] [--workers 2]

1. Throughput: `--alerts` email alerts are queued, then one email worker
   (`flapjack gateway email --burst`, in this process) delivers them to a local
   aiosmtpd server; reports alerts/s.
2. Latency: `flapjack server` runs against an embedded Redis; events for new
   failing checks are LPUSHed at `--rate` per second for `--seconds`; each one
   yields one email, and the time from LPUSH to the SMTP server accepting the
   message is measured; reports p50/p99 (target p99 < 1 s).
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from email import message_from_bytes
from pathlib import Path
from typing import Any

import yaml
from aiosmtpd.controller import Controller

# run as a script, this file's directory comes first on sys.path and its name would shadow the gateways package
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != os.path.dirname(os.path.abspath(__file__))]

from flapjack_py import keys  # noqa: E402
from flapjack_py.config.settings import load_config  # noqa: E402
from flapjack_py.notify.enqueue import enqueue_alert  # noqa: E402
from flapjack_py.notify.render import render_alert  # noqa: E402
from flapjack_py.runtime.embedded_redis import EmbeddedRedis  # noqa: E402
from flapjack_py.store import contacts as contact_store  # noqa: E402
from flapjack_py.store import media as media_store  # noqa: E402
from flapjack_py.store.events import push_event  # noqa: E402
from gateways.worker import run_gateway  # noqa: E402


class Inbox:
    """aiosmtpd handler noting when each message (keyed by the check name in its body) was accepted."""

    def __init__(self) -> None:
        self.accepted: dict[str, float] = {}
        self.count = 0
        self.lock = threading.Lock()

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        stamp = time.time()
        text = message_from_bytes(envelope.original_content or b"").get_payload(0).get_payload(decode=True)
        match = re.search(rb"Check:\s+(\S+)", text or b"")
        with self.lock:
            self.count += 1
            if match:
                self.accepted[match.group(1).decode()] = stamp
        return "250 OK"


def email_settings(port: int, workers: int = 1) -> dict[str, Any]:
    return {"enabled": True, "retry_intervals": [1], "burst_wait": 0, "workers": workers,
            "smtp_config": {"host": "127.0.0.1", "port": port, "from": "flapjack@example.net"}}


def throughput(n: int, server: EmbeddedRedis, port: int, inbox: Inbox) -> float:
    client = server.client()
    client.flushall()
    config = load_config({"redis": {"url": server.url}, "gateways": {"email": email_settings(port)}})
    for i in range(n):
        alert = {"id": uuid.uuid4().hex, "timestamp": int(time.time()), "contact": "c1", "media": "email",
                 "address": "ada@example.com", "check": f"foo:c{i}", "event_id": f"foo:c{i}", "type": "problem",
                 "notification_type": "problem", "rollup": "", "state": "critical", "summary": "down",
                 "contact_first_name": "Ada", "time": int(time.time()), "state_duration": 0}
        alert["subject"], alert["body"] = render_alert(alert, config)
        with client.pipeline() as pipe:
            pipe.multi()
            enqueue_alert(client, pipe, alert, config)
            pipe.execute()
    before = inbox.count
    started = time.perf_counter()
    run_gateway("email", config, burst=True)
    elapsed = time.perf_counter() - started
    assert inbox.count - before == n, f"{inbox.count - before} of {n} delivered"
    return n / elapsed


def latency(rate: int, seconds: int, server: EmbeddedRedis, port: int, inbox: Inbox, workers: int) -> list[float]:
    client = server.client()
    client.flushall()
    contact_store.create_contact(client, {"id": "c1", "first_name": "Ada", "last_name": "L", "email": "a@x"})
    media_store.set_medium(client, "c1", "email", "ada@example.com", 60)
    client.sadd(keys.contacts_for(keys.ALL_ENTITIES_ID), "c1")
    cfg = {"redis": {"url": server.url}, "logging": {"level": "WARNING"},
           "executive": {"new_check_scheduled_maintenance_duration": 0, "initial_failure_delay": 0},
           "gateways": {"email": email_settings(port, workers)}}
    path = Path(tempfile.mkdtemp()) / "flapjack.yml"
    path.write_text(yaml.safe_dump(cfg))
    env = dict(os.environ, FLAPJACK_CONFIG=str(path))
    proc = subprocess.Popen([sys.executable, "-c", "from flapjack_py.cli import main; main()", "server"], env=env)
    try:
        time.sleep(3)  # children up
        pushed: dict[str, float] = {}
        total = rate * seconds
        t0 = time.time()
        for i in range(total):
            due = t0 + i / rate
            time.sleep(max(due - time.time(), 0))
            check = f"lat{i}"
            pushed[check] = time.time()
            push_event(client, {"type": "service", "state": "critical", "entity": "bench", "check": check,
                                "summary": "down", "time": int(pushed[check])})
        deadline = time.time() + 30
        while len(set(pushed) & set(inbox.accepted)) < total and time.time() < deadline:
            time.sleep(0.1)
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)
    lost = total - len(set(pushed) & set(inbox.accepted))
    if lost:
        print(f"WARNING: {lost} of {total} messages not received")
    return sorted(inbox.accepted[c] - pushed[c] for c in pushed if c in inbox.accepted)


def _free_port() -> int:
    import socket
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--alerts", type=int, default=1000)
    parser.add_argument("--rate", type=int, default=100)
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--workers", type=int, default=2, help="email worker processes under flapjack server")
    args = parser.parse_args()
    inbox = Inbox()
    port = _free_port()
    controller = Controller(inbox, hostname="127.0.0.1", port=port)
    controller.start()
    with EmbeddedRedis(tempfile.mkdtemp(prefix="fj-bench-"), persistent=False) as server:
        rate = throughput(args.alerts, server, port, inbox)
        print(f"email worker throughput: {rate:.0f} alerts/s ({args.alerts} alerts)")
        samples = latency(args.rate, args.seconds, server, port, inbox, args.workers)
    controller.stop()
    if samples:
        p50 = samples[len(samples) // 2]
        p99 = samples[min(int(len(samples) * 0.99), len(samples) - 1)]
        print(f"LPUSH -> SMTP accept at {args.rate}/s through `flapjack server` ({args.workers} email workers): "
              f"p50 {p50 * 1000:.0f} ms, p99 {p99 * 1000:.0f} ms, max {samples[-1] * 1000:.0f} ms "
              f"({len(samples)} messages)")


if __name__ == "__main__":
    main()
