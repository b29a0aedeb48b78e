"""`flapjack gateway matrix`: one long-lived Matrix client (matrix-nio, no E2EE) that delivers alerts and runs the bot.

Settings `gateways.matrix`: `homeserver` (URL), `user_id`, `password` or `access_token`, `rooms` (room ids or
aliases joined at start; invites to them are accepted), `allowed_users` (Matrix user ids who may act; empty =
nobody), `device_name` [flapjack]. A contact's `matrix` address is a room id or alias, or a user id (the bot
opens a direct room with them, once per process).

An asyncio thread runs the client (log in, join, sync; after a failed sync it retries with back-off, so a
homeserver that goes away is followed when it comes back); a drain thread runs rq burst rounds on the
`matrix` queue while the client is synced, each alert through gateways.worker / base.deliver_alert (status,
retries), so alerts wait in the queue while the homeserver is down. A problem alert is a message (plain and
HTML, flapjack_py.chat.matrix) whose event id is kept with the alert (flapjack_py.store.chat); an
acknowledgement or recovery of its check is posted in its thread. Messages in that thread and reactions on it
go to the bot (gateways/matrix_bot.py).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import logging
import signal
import threading
import time
from collections.abc import Mapping
from typing import Any

from pydantic import model_validator
from pydantic_core import PydanticCustomError
from rq import Queue
from rq.serializers import JSONSerializer
from rq.timeouts import TimerDeathPenalty

from flapjack_py.config.gateways import GatewaySettings
from flapjack_py.config.settings import Config
from flapjack_py.config.types import Text, Texts
from flapjack_py.model.alert import Alert
from flapjack_py.runtime.connection import open_clients
from flapjack_py.store.plumbing.client import Clients

from . import base, worker
from .matrix_bot import MatrixBot
from .matrix_client import MatrixClient, MatrixOptions

log = logging.getLogger(__name__)

MEDIUM = "matrix"
REQUIRED = ("homeserver", "user_id")
SEND_WAIT = 45.0
"""Longest wait (s) of one alert for the homeserver before its try fails (and rq retries it)."""
TICK = 0.2
ROUND_JOBS = 10


class MatrixSection(GatewaySettings):
    """`gateways.matrix` as the config is validated."""

    required = REQUIRED
    homeserver: Text | None = None
    user_id: Text | None = None
    password: Text | None = None
    access_token: Text | None = None
    rooms: Texts = ()
    allowed_users: Texts = ()
    device_name: Text = "flapjack"

    @model_validator(mode="after")
    def _password_or_token(self) -> MatrixSection:
        if self.enabled and not (self.password or self.access_token):
            raise PydanticCustomError("required_setting", "required setting missing (the gateway is enabled): "
                                      "password or access_token", {"key": "password"})
        return self


def options_of(settings: Mapping[str, Any]) -> MatrixOptions:
    """The client's options from the gateway section."""
    return MatrixOptions(homeserver=str(settings["homeserver"]), user_id=str(settings["user_id"]),
                         password=settings.get("password"), access_token=settings.get("access_token"),
                         rooms=tuple(map(str, settings.get("rooms") or ())),
                         device_name=str(settings.get("device_name") or "flapjack"))


class MatrixSender:
    """The medium's sender for base.deliver_alert: hands each alert to the client's loop."""

    medium = MEDIUM

    def __init__(self, client: MatrixClient, loop: asyncio.AbstractEventLoop, settings: Mapping[str, Any]) -> None:
        self.client = client
        self.loop = loop
        self.settings = settings
        self.store: Any = None

    def send(self, alert: Alert) -> None:
        """Post the alert (or its thread answer); TransientError/PermanentError as the homeserver answers."""
        future = asyncio.run_coroutine_threadsafe(self.client.deliver(alert, self.store), self.loop)
        try:
            future.result(SEND_WAIT + 5)
        except concurrent.futures.TimeoutError:
            future.cancel()
            raise base.TransientError("timed out handing the message to the homeserver") from None

    def close(self) -> None:
        """Nothing to release: the gateway owns the client."""


class MatrixGateway:
    """The running gateway: the Matrix client in an asyncio thread and the drain thread."""

    def __init__(self, settings: Mapping[str, Any], clients: Clients, events_queue: str = "events",
                 unowned_checks: str = "everyone") -> None:
        self.raw_settings = settings
        self.redis = clients.raw
        worker.use_clients(clients)
        bot = MatrixBot(clients.text, frozenset(map(str, settings.get("allowed_users") or ())), events_queue,
                        unowned_checks)
        self.loop = asyncio.new_event_loop()
        self.matrix = MatrixClient(options_of(settings), bot, send_wait=SEND_WAIT)
        self.stopped = threading.Event()
        self._threads: list[threading.Thread] = []

    def start(self, burst: bool = False) -> None:
        """Log in and sync in the client's thread; drain the queue in another."""
        self._spawn("matrix-client", self._run_loop)
        asyncio.run_coroutine_threadsafe(self.matrix.start(), self.loop).result(10)
        self._spawn("matrix-drain", lambda: self._drain(burst))

    def stop(self) -> None:
        """Stop draining (the alert in hand is finished), close the client and end the threads."""
        self.stopped.set()
        for thread in self._threads[1:]:
            thread.join(SEND_WAIT)
        if self.loop.is_running():
            with contextlib.suppress(concurrent.futures.TimeoutError, RuntimeError):
                asyncio.run_coroutine_threadsafe(self.matrix.close(), self.loop).result(5)
            self.loop.call_soon_threadsafe(self.loop.stop)
        if self._threads:
            self._threads[0].join(10)

    @property
    def login_failed(self) -> bool:
        """True when the homeserver refused the login (the gateway then stops)."""
        return self.matrix.login_failed

    def wait(self, timeout: float | None = None) -> bool:
        """Wait until the gateway stops by itself (refused login, burst done); True if it did."""
        return self.stopped.wait(timeout)

    def _spawn(self, name: str, target: Any) -> None:
        thread = threading.Thread(target=target, name=name, daemon=True)
        thread.start()
        self._threads.append(thread)

    def _run_loop(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.run_forever()

    def _drain(self, burst: bool) -> None:
        """Run rq burst rounds while synced, until stopped (or, in burst mode, the queue is empty)."""
        queue = Queue(MEDIUM, connection=self.redis, serializer=JSONSerializer)
        sender = MatrixSender(self.matrix, self.loop, self.raw_settings)
        worker.recover_abandoned(self.redis, MEDIUM)
        give_up = time.monotonic() + SEND_WAIT
        with worker.active_gateway(sender):  # type: ignore[arg-type]
            while not self.stopped.is_set() and not self.matrix.login_failed:
                if not self.matrix.synced.wait(TICK):
                    if burst and time.monotonic() > give_up:
                        log.error("matrix: not synced after %.0fs; burst run gives up", SEND_WAIT)
                        break
                    continue
                worker.enqueue_due(queue)
                if queue.count:
                    self._work_round()
                elif burst:
                    break
                else:
                    self.stopped.wait(TICK)
        self.stopped.set()

    def _work_round(self) -> None:
        rq_worker = worker.make_worker(self.redis, MEDIUM)
        rq_worker.death_penalty_class = TimerDeathPenalty  # SIGALRM works only in the main thread
        rq_worker._install_signal_handlers = lambda: None  # type: ignore[method-assign] # noqa: SLF001 -- run() owns signals
        rq_worker.work(burst=True, with_scheduler=False, logging_level="WARNING", max_jobs=ROUND_JOBS)


def run(config: Config, burst: bool = False) -> int:
    """`flapjack gateway matrix`: run until SIGTERM/SIGINT (or, with burst, until the queue is empty).

    Returns 0, or EXIT_CONFIG when the homeserver refused the login.
    Raises ConfigError when the gateway is not enabled or misses a setting.
    """
    from flapjack_py.runtime.supervisor import EXIT_CONFIG

    settings = base.gateway_settings(config, MEDIUM, REQUIRED)
    clients, embedded = open_clients(config)
    gateway = MatrixGateway(settings, clients, config.executive.queue, config.web.unowned_checks)
    previous = {sig: signal.signal(sig, lambda *_: gateway.stopped.set()) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        gateway.start(burst=burst)
        while not gateway.wait(1.0):
            pass
    finally:
        gateway.stop()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        if embedded:
            embedded.stop()
    return EXIT_CONFIG if gateway.login_failed else 0


GATEWAY = base.Declaration(MEDIUM, MatrixSection, run=run)
"""The matrix medium: its own long-lived process, no rq sender (registered in pyproject.toml's
`flapjack_py.gateways` entry points)."""
