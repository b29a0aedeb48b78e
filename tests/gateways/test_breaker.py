"""Retried until retry_max_age, and the circuit breaker, against real local SMTP servers (issue 28 item 3).

An SMTP server down longer than the old retry budget fails no alert: the breaker holds them, /api/health and the
status page say so, and they are all delivered once it is back. While it refuses, the server sees one probe per
backoff step, whatever the number of workers. An alert older than retry_max_age fails with its last error, into
rq's failed registry (the flapjack_gateway_failed_jobs metric).
"""

from __future__ import annotations

import re
import signal
import socket
import threading
import time
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
from prometheus_client.parser import text_string_to_metric_families
from rq import Queue
from rq.executions import Execution
from rq.registry import StartedJobRegistry
from rq.serializers import JSONSerializer

from flapjack_py import keys
from flapjack_py.model.delivery import MAX_STEP, BreakerState
from flapjack_py.store import breaker as breaker_store
from gateways.breaker import TRIP_AFTER
from web import create_app

from .conftest import SmtpServer, free_port, gateway_config, status_of, wait_for
from .test_processes import start, started_job_ids, write_config

pytestmark = pytest.mark.real

REFUSING = re.compile(r"^email: SMTP refusing since \d\d:\d\d UTC, (\d+) alerts? waiting$")


class RefusingSmtp:
    """An SMTP server that greets every connection with `421` (try later) and hangs up, noting when each came."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.connections: list[float] = []
        self.listener = socket.socket()
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("127.0.0.1", port))
        self.listener.listen(64)
        self.listener.settimeout(0.1)
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while not self.stopping.is_set():
            try:
                conn, _ = self.listener.accept()
            except TimeoutError:
                continue
            self.connections.append(time.monotonic())
            with conn:
                conn.sendall(b"421 4.3.2 Service not available, try again later\r\n")

    def stop(self) -> None:
        self.stopping.set()
        self.thread.join()
        self.listener.close()


@pytest.fixture
def refusing() -> Iterator[RefusingSmtp]:
    server = RefusingSmtp(free_port())
    yield server
    server.stop()


def emails(config: Any, enqueue: Any, count: int, prefix: str = "c") -> list[dict[str, Any]]:
    return [enqueue(config, address=f"{prefix}{i}@example.com", check=f"foo:c{i}", event_id=f"foo:c{i}")
            for i in range(count)]


def health(app: Any) -> dict[str, Any]:
    """/api/health's whole answer (open mode: no user or token exists, so every caller gets the figures)."""
    return app.test_client().get("/api/health").get_json(force=True)  # type: ignore[no-any-return]


def refusing_warnings(app: Any) -> list[str]:
    return [warning for warning in health(app)["warnings"] if REFUSING.match(warning)]


def in_background(action: Any) -> threading.Thread:
    thread = threading.Thread(target=action, daemon=True)
    thread.start()
    return thread


def test_a_server_down_longer_than_the_old_retry_budget_fails_no_alert(redis_server, enqueue, burst, real_r, real_s):
    server = SmtpServer()  # not started: connections are refused
    # the old budget: 3 tries, 1 s apart, then `failed` (~2 s); the server stays down ~4.5 s
    config = gateway_config(redis_server.url, "email", retries=2, retry_intervals=[1],
                            smtp_config={"host": "127.0.0.1", "port": server.port})
    app = create_app(redis=real_r, config=config)
    alerts = emails(config, enqueue, 6)
    down_at = time.monotonic()
    worker = in_background(lambda: burst("email", config))
    try:
        [warning] = wait_for(lambda: refusing_warnings(app), timeout=10, what="the breaker in /api/health")
        assert 5 <= int(REFUSING.match(warning).group(1)) <= 6  # one may be out as the probe
        figures = health(app)["gateways"]["email"]
        assert 0 <= time.time() - figures["refusing_since"] < 10 and figures["waiting"] >= 5
        page = app.test_client().get("/status").get_data(as_text=True)
        assert re.search(r"email: SMTP refusing since \d\d:\d\d UTC, \d alerts? waiting: its alerts are held", page)
        assert "Last error: SMTP 127.0.0.1:" in page and "ConnectionRefusedError" in page
        time.sleep(max(4.5 - (time.monotonic() - down_at), 0))
        assert {status_of(real_s, a["id"])["status"] for a in alerts} == {"queued"}  # held, not failed
        server.start()
        worker.join(timeout=30)
    finally:
        server.stop()
    assert not worker.is_alive()
    assert Counter(str(m["Message-ID"]).strip("<>").partition("@")[0] for m in server.messages) == Counter(
        {a["id"]: 1 for a in alerts})
    assert {status_of(real_s, a["id"])["status"] for a in alerts} == {"delivered"}
    assert Queue("email", connection=real_r, serializer=JSONSerializer).failed_job_registry.count == 0
    assert not real_r.exists(keys.gateway_breaker("email")) and refusing_warnings(app) == []


def test_while_the_server_refuses_it_sees_one_probe_per_backoff_step(tmp_path, redis_server, refusing, enqueue,
                                                                     real_r, real_s):
    config = gateway_config(redis_server.url, "email", smtp_config={"host": "127.0.0.1", "port": refusing.port})
    alerts = emails(config, enqueue, 20)
    config_path = write_config(tmp_path, redis_server.url, refusing.port)
    workers = [start(["gateway", "email"], config_path) for _ in range(2)]
    try:
        wait_for(lambda: refusing.connections, timeout=30, what="a first try")
        opened = refusing.connections[0]
        time.sleep(max(opened + 7.6 - time.monotonic(), 0))  # probes due at +1, +3 and +7 s
    finally:
        for worker in workers:
            worker.send_signal(signal.SIGTERM)
        for worker in workers:
            worker.wait(timeout=30)
    seen = [at - opened for at in refusing.connections]
    trips = [at for at in seen if at < 0.5]  # the batches that opened it (each worker's, at most)
    probes = [at for at in seen if at >= 0.5]
    in_flight = config.gateway("email")["concurrency"] - 1  # tries already sent when a worker's third refusal came
    assert 1 <= len(trips) <= 2 * (TRIP_AFTER + in_flight)
    assert len(probes) == 3, seen
    steps = [probes[0], probes[1] - probes[0], probes[2] - probes[1]]
    for step, expected in zip(steps, (1, 2, 4), strict=True):
        assert expected - 0.2 <= step <= expected + 1.0, seen
    assert {status_of(real_s, a["id"])["status"] for a in alerts} == {"queued"}  # held: none failed
    queue = Queue("email", connection=real_r, serializer=JSONSerializer)
    assert queue.count == len(alerts) and queue.failed_job_registry.count == 0
    assert queue.started_job_registry.count == 0 and queue.scheduled_job_registry.count == 0
    assert float(real_r.hget(keys.gateway_breaker("email"), "step")) == 8 <= MAX_STEP


def test_an_alert_older_than_retry_max_age_fails_with_its_last_error_and_is_counted(redis_server, refusing, enqueue,
                                                                                    burst, real_r, real_s):
    config = gateway_config(redis_server.url, "email", retry_max_age=2,
                            smtp_config={"host": "127.0.0.1", "port": refusing.port})
    app = create_app(redis=real_r, config=config)
    assert failed_jobs(app) == 0
    alerts = emails(config, enqueue, TRIP_AFTER + 2)  # three tried and refused, two held untried
    started = time.monotonic()
    burst("email", config)
    assert time.monotonic() - started < 15
    for alert in alerts:
        record = status_of(real_s, alert["id"])
        assert record["status"] == "failed", record
        assert record["error"] == (f"SMTP 127.0.0.1:{refusing.port} replied 421 4.3.2 Service not available, "
                                   "try again later")
    assert failed_jobs(app) == len(alerts)
    queue = Queue("email", connection=real_r, serializer=JSONSerializer)
    assert queue.count == 0 and queue.started_job_registry.count == 0
    assert set(queue.failed_job_registry.get_job_ids()) == {a["id"] for a in alerts}
    for alert in alerts:
        result = queue.fetch_job(alert["id"]).latest_result()
        assert result.exc_string.startswith("not delivered within retry_max_age (2 s): SMTP 127.0.0.1:")
    assert len(refusing.connections) < 2 * len(alerts)  # held, not tried one by one


def test_a_poison_alert_does_not_keep_the_breaker_open(redis_server, enqueue, burst, real_r, real_s):
    server = SmtpServer().start()
    original = server.mailbox.handle_DATA

    async def refuse_poison(smtp: Any, session: Any, envelope: Any) -> str:
        if envelope.rcpt_tos == ["poison@example.com"]:
            return "451 4.3.0 mailbox busy, try later"
        return str(await original(smtp, session, envelope))

    server.mailbox.handle_DATA = refuse_poison  # type: ignore[method-assign]
    config = gateway_config(redis_server.url, "email", burst_wait=2.5,
                            smtp_config={"host": "127.0.0.1", "port": server.port})
    try:
        poison = enqueue(config, address="poison@example.com")
        first = in_background(lambda: burst("email", config))
        wait_for(lambda: real_r.exists(keys.gateway_breaker("email")), timeout=10, what="the breaker opening")
        good = emails(config, enqueue, 3, prefix="good")  # queued behind the held poison alert
        first.join(timeout=30)
    finally:
        server.stop()
    assert {status_of(real_s, a["id"])["status"] for a in good} == {"delivered"}
    assert status_of(real_s, poison["id"])["status"] == "queued"
    assert "451" in status_of(real_s, poison["id"])["error"]


def test_a_transient_failure_is_retried_past_its_count_of_tries_until_retry_max_age(redis_server, enqueue, burst,
                                                                                     real_r, real_s):
    server = SmtpServer().start()
    tries = []
    original = server.mailbox.handle_DATA

    async def refuse_poison(smtp: Any, session: Any, envelope: Any) -> str:
        if envelope.rcpt_tos == ["poison@example.com"]:
            tries.append(time.monotonic())
            return "451 4.3.0 mailbox busy, try later"
        return str(await original(smtp, session, envelope))

    server.mailbox.handle_DATA = refuse_poison  # type: ignore[method-assign]
    config = gateway_config(redis_server.url, "email", retries=1, retry_intervals=[0], retry_max_age=3,
                            smtp_config={"host": "127.0.0.1", "port": server.port})
    try:
        poison, *good = [enqueue(config, address=address) for address in ("poison@example.com", "a@example.com")]
        burst("email", config)
    finally:
        server.stop()
    assert [status_of(real_s, a["id"])["status"] for a in good] == ["delivered"]
    record = status_of(real_s, poison["id"])
    assert record["status"] == "failed" and "451 4.3.0 mailbox busy" in record["error"]
    assert len(tries) > 2 and tries[-1] - tries[0] >= 2.5  # more than `retries` + 1 tries, for retry_max_age
    queue = Queue("email", connection=real_r, serializer=JSONSerializer)
    assert queue.failed_job_registry.get_job_ids() == [poison["id"]]


def test_a_job_abandoned_more_times_than_its_retries_is_still_delivered(tmp_path, redis_server, smtp_server, enqueue,
                                                                        burst, real_r, real_s):
    config = gateway_config(redis_server.url, "email", retries=1,
                            smtp_config={"host": "127.0.0.1", "port": smtp_server.port})
    smtp_server.mailbox.delay = 5.0  # the SMTP server sits on DATA: the worker is mid-send when killed
    alert = enqueue(config)
    config_path = write_config(tmp_path, redis_server.url, smtp_server.port, retries=1)
    for _ in range(3):  # each kill takes a try back: a count of one retry would have failed it at the second
        worker = start(["gateway", "email"], config_path)
        try:
            wait_for(lambda pid=worker.pid: pid in senders_of(real_r, alert["id"]), timeout=20, what="the alert being sent")
        finally:
            worker.send_signal(signal.SIGKILL)
            worker.wait()
        assert status_of(real_s, alert["id"])["status"] == "queued"
    smtp_server.mailbox.delay = 0
    burst("email", config)
    assert status_of(real_s, alert["id"])["status"] == "delivered"
    assert started_job_ids(real_r) == []


def test_the_breaker_in_redis_opens_once_and_lets_one_worker_probe_at_a_time(real_s):
    now = time.time()
    assert breaker_store.claim_probe(real_s, "email", now, now + 60) == -1  # closed: nothing to claim
    assert breaker_store.trip(real_s, "email", BreakerState(now, 1, now + 1, "SMTP", "refused"))
    assert not breaker_store.trip(real_s, "email", BreakerState(now + 5, 1, now + 6, "SMTP", "reset"))
    opened = breaker_store.load_breaker(real_s, "email")
    assert opened == BreakerState(now, 1, now + 1, "SMTP", "reset")  # since kept, the last error
    assert breaker_store.claim_probe(real_s, "email", now + 0.5, now + 60) == 0  # not due yet
    assert breaker_store.claim_probe(real_s, "email", now + 1, now + 60) == 1  # one worker claims it
    assert breaker_store.claim_probe(real_s, "email", now + 2, now + 62) == 0  # the others wait
    real_s.expire(keys.gateway_breaker("email"), 100)
    assert breaker_store.release_probe(real_s, "email", now + 2)  # nothing to send: due again at once
    assert real_s.ttl(keys.gateway_breaker("email")) <= 100  # claims and releases keep no idle breaker open
    assert breaker_store.claim_probe(real_s, "email", now + 2, now + 62) == 1
    assert breaker_store.probe_failed(real_s, "email", 2, now + 4, "still refused")
    assert real_s.ttl(keys.gateway_breaker("email")) > 100  # a refusal renews it
    assert breaker_store.load_breakers(real_s, ["email", "sms"]) == {
        "email": BreakerState(now, 2, now + 4, "SMTP", "still refused")}
    assert breaker_store.close(real_s, "email") and not breaker_store.close(real_s, "email")
    assert not breaker_store.probe_failed(real_s, "email", 4, now + 8, "late")  # closed stays closed
    assert breaker_store.load_breaker(real_s, "email") is None


def senders_of(client: Any, job_id: str) -> set[int]:
    """The pids of the workers whose execution of job `job_id` is in rq's started registry."""
    registry = StartedJobRegistry("email", connection=client, serializer=JSONSerializer)
    names = {Execution.fetch(execution_id, job, client).worker_name
             for job, execution_id in registry.get_job_and_execution_ids(cleanup=False) if job == job_id}
    return {int(name.split("@", 1)[1].split(":")[1]) for name in names}


def failed_jobs(app: Any) -> float:
    text = app.test_client().get("/metrics").get_data(as_text=True)
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == "flapjack_gateway_failed_jobs" and sample.labels == {"medium": "email"}:
                return float(sample.value)
    raise AssertionError("no flapjack_gateway_failed_jobs{medium=email}")
