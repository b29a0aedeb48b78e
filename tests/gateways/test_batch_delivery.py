"""Delivery in batches over several connections: a few hundred alerts per medium to real local servers,
connections reused, each alert delivered once and its status recorded; several workers at once; kill -9."""

from __future__ import annotations

import json
import signal
import threading
from collections import Counter
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from .conftest import gateway_config, status_of, wait_for
from .test_processes import start, write_config

ALERTS = 300


class PagerDutyServer(ThreadingHTTPServer):
    """A local stand-in for PagerDuty's Events v2 endpoint (202), keeping each body and the TCP connections."""

    daemon_threads = True

    def __init__(self) -> None:
        self.bodies: list[dict[str, Any]] = []
        self.peers: set[tuple[str, int]] = set()
        self.lock = threading.Lock()
        super().__init__(("127.0.0.1", 0), _Handler)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: PagerDutyServer

    def do_POST(self) -> None:  # noqa: N802 -- http.server's name
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        with self.server.lock:
            self.server.bodies.append(body)
            self.server.peers.add(self.client_address)
        reply = b'{"status": "success"}'
        self.send_response(202)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def pagerduty() -> Iterator[PagerDutyServer]:
    server = PagerDutyServer()
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server
    server.shutdown()
    server.server_close()


@pytest.fixture
def counted_smtp(smtp_server: Any) -> Any:
    """The SMTP server, also noting the client (host, port) of every message: one per SMTP session."""
    mailbox = smtp_server.mailbox
    mailbox.peers = []
    original = mailbox.handle_DATA

    async def handle_data(server: Any, session: Any, envelope: Any) -> str:
        reply = await original(server, session, envelope)
        mailbox.peers.append(session.peer)
        return str(reply)

    mailbox.handle_DATA = handle_data
    return smtp_server


def delivered_ids(smtp_server: Any) -> Counter[str]:
    return Counter(str(message["Message-ID"]).strip("<>").partition("@")[0] for message in smtp_server.messages)


@pytest.mark.parametrize("concurrency", [1, 4])
def test_hundreds_of_emails_over_a_few_sessions_each_once(concurrency, redis_server, counted_smtp, enqueue, burst,
                                                          real_s):
    config = gateway_config(redis_server.url, "email", concurrency=concurrency,
                            smtp_config={"host": "127.0.0.1", "port": counted_smtp.port})
    alerts = [enqueue(config, address=f"c{i}@example.com") for i in range(ALERTS)]
    burst("email", config)
    assert delivered_ids(counted_smtp) == Counter({alert["id"]: 1 for alert in alerts})
    assert 1 <= len(set(map(tuple, counted_smtp.mailbox.peers))) <= concurrency
    assert {status_of(real_s, alert["id"])["status"] for alert in alerts} == {"delivered"}


@pytest.mark.parametrize("concurrency", [1, 4])
def test_hundreds_of_pagerduty_events_over_kept_alive_connections(concurrency, redis_server, pagerduty, enqueue,
                                                                  burst, real_s):
    url = f"http://127.0.0.1:{pagerduty.server_address[1]}"
    config = gateway_config(redis_server.url, "pagerduty", concurrency=concurrency, events_url=url,
                            ack_poll_interval=0)
    alerts = [enqueue(config, media="pagerduty", address="routing-key", check=f"host{i}:ping")
              for i in range(ALERTS)]
    burst("pagerduty", config)
    assert Counter(body["dedup_key"] for body in pagerduty.bodies) == Counter(
        {alert["check"]: 1 for alert in alerts})
    assert 1 <= len(pagerduty.peers) <= concurrency
    assert {status_of(real_s, alert["id"])["status"] for alert in alerts} == {"delivered"}


def test_several_workers_with_concurrency_deliver_each_alert_once(tmp_path, redis_server, counted_smtp, enqueue,
                                                                  real_s):
    config = gateway_config(redis_server.url, "email", smtp_config={"host": "127.0.0.1", "port": counted_smtp.port})
    alerts = [enqueue(config, address=f"c{i}@example.com") for i in range(ALERTS)]
    config_path = write_config(tmp_path, redis_server.url, counted_smtp.port, concurrency=4)
    workers = [start(["gateway", "email"], config_path) for _ in range(3)]
    try:
        wait_for(lambda: len(counted_smtp.messages) >= ALERTS, timeout=60)
        wait_for(lambda: all(status_of(real_s, a["id"])["status"] == "delivered" for a in alerts), timeout=30)
    finally:
        for worker in workers:
            worker.send_signal(signal.SIGTERM)
            worker.wait(timeout=30)
    assert delivered_ids(counted_smtp) == Counter({alert["id"]: 1 for alert in alerts})


@pytest.mark.parametrize("concurrency", [1, 4])
def test_a_worker_killed_mid_batch_loses_nothing_and_duplicates_at_most_one(
        concurrency, tmp_path, redis_server, counted_smtp, enqueue, burst, real_s):
    config = gateway_config(redis_server.url, "email", smtp_config={"host": "127.0.0.1", "port": counted_smtp.port})
    alerts = [enqueue(config, address=f"c{i}@example.com") for i in range(ALERTS)]
    # each message kept by the server 10 ms before its 250: every session sending then has its alert sent and not
    # recorded, unless they take turns at the end of DATA (Gateway.commit)
    counted_smtp.mailbox.reply_delay = 0.01
    config_path = write_config(tmp_path, redis_server.url, counted_smtp.port, concurrency=concurrency)
    victim, other = (start(["gateway", "email"], config_path) for _ in range(2))
    try:
        wait_for(lambda: len(counted_smtp.messages) >= ALERTS // 4, timeout=60)
        victim.send_signal(signal.SIGKILL)
        victim.wait()
        counted_smtp.mailbox.reply_delay = 0
        wait_for(lambda: len(counted_smtp.messages) >= ALERTS // 2, timeout=60)
    finally:
        other.send_signal(signal.SIGTERM)
        other.wait(timeout=30)
    burst("email", config)  # a worker starting recovers the killed one's batch
    counts = delivered_ids(counted_smtp)
    assert set(counts) == {alert["id"] for alert in alerts}
    # at most the one alert between the end of its DATA and its recorded status, however many sessions send at once
    assert sum(count - 1 for count in counts.values()) <= 1
    assert {status_of(real_s, alert["id"])["status"] for alert in alerts} == {"delivered"}
