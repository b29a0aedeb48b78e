"""Fixtures of the gateway tests: real servers on loopback (SMTP, HTTP), alert builders, burst workers."""

from __future__ import annotations

import socket
import uuid
from collections.abc import Callable, Iterator
from email import message_from_bytes, policy
from email.message import EmailMessage
from typing import Any

import pytest
import redis
from aiosmtpd.controller import Controller

from flapjack_py.config.settings import Config, load_config
from flapjack_py.runtime.embedded_redis import EmbeddedRedis
from flapjack_py.store import alerts as alert_store
from gateways.worker import run_gateway
from tests.alerting import enqueue_like_notifier
from tests.polling import wait_for  # noqa: F401 (imported by this suite's tests)

START = 1_700_000_000


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Mailbox:
    """aiosmtpd handler keeping every accepted message; `reply` forces an SMTP reply to DATA."""

    def __init__(self) -> None:
        self.messages: list[EmailMessage] = []
        self.envelopes: list[Any] = []
        self.reply: str | None = None
        self.delay = 0.0
        self.reply_delay = 0.0
        """Seconds between keeping a message and answering 250: the client does not know yet that it was sent."""

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        import asyncio
        if self.delay:
            await asyncio.sleep(self.delay)
        if self.reply:
            return self.reply
        self.envelopes.append(envelope)
        self.messages.append(message_from_bytes(envelope.original_content, policy=policy.default))  # type: ignore[arg-type]
        if self.reply_delay:
            await asyncio.sleep(self.reply_delay)
        return "250 OK"


class SmtpServer:
    """A local aiosmtpd server that tests can stop and start again on the same port."""

    def __init__(self, **controller_kwargs: Any) -> None:
        self.mailbox = Mailbox()
        self.port = free_port()
        self.kwargs = controller_kwargs
        self.controller: Controller | None = None

    def start(self) -> SmtpServer:
        self.controller = Controller(self.mailbox, hostname="127.0.0.1", port=self.port, **self.kwargs)
        self.controller.start()
        return self

    def stop(self) -> None:
        if self.controller is not None:
            self.controller.stop()
            self.controller = None

    @property
    def messages(self) -> list[EmailMessage]:
        return self.mailbox.messages


@pytest.fixture
def smtp_server() -> Iterator[SmtpServer]:
    server = SmtpServer().start()
    yield server
    server.stop()


def make_alert(**over: Any) -> dict[str, Any]:
    """An alert payload as the notifier builds it (problem, critical, email), with overrides."""
    alert: dict[str, Any] = {
        "id": uuid.uuid4().hex, "timestamp": START, "contact": "c1", "media": "email",
        "address": "ada@example.com", "check": "foo:ping", "type": "problem", "rollup": "",
        "state": "critical", "status": "queued", "contact_id": "c1", "contact_first_name": "Ada",
        "contact_last_name": "Lovelace", "event_id": "foo:ping", "event_hash": "47ae7a99",
        "summary": "100% packet loss", "details": None, "time": START, "duration": None,
        "last_state": "ok", "last_summary": "all fine", "state_duration": 3900, "tags": [],
        "notification_type": "problem", "event_count": 7,
    }
    alert.update(over)
    return alert


def gateway_config(redis_url: str, medium: str, **settings: Any) -> Config:
    """A Config with one enabled gateway, tiny retry intervals, and the test Redis."""
    section = {"enabled": True, "retries": 3, "retry_intervals": [0], "burst_wait": 5, **settings}
    return load_config({"redis": {"url": redis_url}, "gateways": {medium: section}})


@pytest.fixture
def enqueue(real_r: redis.Redis) -> Callable[..., dict[str, Any]]:
    """enqueue(config, **over): render, record and enqueue an alert as the notifier does; return it."""
    def _enqueue(config: Config, **over: Any) -> dict[str, Any]:
        return enqueue_like_notifier(real_r, config, make_alert(**over))
    return _enqueue


@pytest.fixture
def burst(redis_server: EmbeddedRedis) -> Callable[[str, Config], int]:
    """burst(medium, config): run `flapjack gateway MEDIUM --burst` in this process."""
    def _burst(medium: str, config: Config) -> int:
        return run_gateway(medium, config, burst=True)
    return _burst


def status_of(client: redis.Redis, alert_id: str) -> dict[str, str]:
    return alert_store.load_alert(client, alert_id) or {}


