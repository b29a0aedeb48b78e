"""`flapjack web`: serve the app with waitress (a production WSGI server).

SIGTERM and SIGINT stop it cleanly: waitress closes its sockets and an embedded
Redis this process started is stopped.
"""

from __future__ import annotations

import logging
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

import redis
from waitress.server import BaseWSGIServer, MultiSocketServer, create_server

from flapjack_py.access import FIRST_ADMIN_HINT, exposure_problem
from flapjack_py.config.settings import Config
from flapjack_py.errors import ConfigError
from flapjack_py.runtime.connection import open_clients
from flapjack_py.store import users as user_store
from flapjack_py.store.plumbing.client import Clients, StrRedis

from . import create_app

log = logging.getLogger(__name__)


def serve(config: Config, bind: str | None = None, port: int | None = None) -> None:
    """Serve /api and / until SIGTERM/SIGINT; starts the embedded Redis when no redis.url is set.

    `bind`/`port` override `web.bind`/`web.port`; port 0 picks a free port (logged).
    """
    clients, embedded = open_clients(config)
    try:
        refuse_open_exposure(config, clients.text, bind or config.web.bind)
        server = make_server(config, clients, bind, port)
        log.info("web app listening on http://%s:%s (API under /api, %d threads)", server.effective_host,
                 server.effective_port, config.web.threads)
        with _stop_on_sigterm():
            server.run()
        log.info("web app stopped")
    finally:
        if embedded:
            embedded.stop()


def make_server(config: Config, clients: Clients | redis.Redis, bind: str | None = None,
                port: int | None = None) -> BaseWSGIServer | MultiSocketServer:
    """A bound (not yet running) waitress server for the app over `clients`."""
    app = create_app(redis=clients, config=config)
    host = bind or config.web.bind
    listen_port = config.web.port if port is None else port
    return create_server(app, host=host, port=listen_port, threads=config.web.threads, ident="flapjack-py",
                         clear_untrusted_proxy_headers=True, max_request_body_size=config.web.max_content_length)


def refuse_open_exposure(config: Config, client: StrRedis, host: str) -> None:
    """Raise ConfigError when no user or token exists and `host` is not loopback (unless web.allow_anonymous)."""
    exists = bool(config.web.api_token) or user_store.credentials_exist(client)
    problem = exposure_problem(host, exists, config.web.allow_anonymous)
    if problem:
        raise ConfigError(problem)
    if not exists:
        log.warning("no web user or API token exists: the UI and API are open to anyone who reaches them; "
                    "create the first admin with: %s", FIRST_ADMIN_HINT)


@contextmanager
def _stop_on_sigterm() -> Iterator[None]:
    """Turn SIGTERM into SystemExit, which waitress's loop treats as a clean stop."""

    def stop(signum: int, frame: FrameType | None) -> None:
        log.info("web app: signal %d, stopping", signum)
        raise SystemExit(0)

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
