"""The Redis connection a tool runs against, opened from the Config and closed (embedded server stopped) after."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager

from flapjack_py.config.settings import Config
from flapjack_py.runtime.connection import clients_from_url, open_clients
from flapjack_py.store.plumbing.client import Clients, StrRedis

log = logging.getLogger(__name__)


@contextmanager
def redis_clients(config: Config) -> Iterator[Clients]:
    """Yield the clients of the configured Redis (or the embedded server, stopped on exit)."""
    clients, embedded = open_clients(config)
    try:
        yield clients
    finally:
        clients.close()
        if embedded:
            embedded.stop()


@contextmanager
def redis_client(config: Config) -> Iterator[StrRedis]:
    """Yield the data layer's (str) client of the configured Redis, for tools that need no other."""
    with redis_clients(config) as clients:
        yield clients.text


@contextmanager
def intake_client(config: Config) -> Iterator[StrRedis]:
    """Like redis_client, but a configured Redis need not answer yet: receivers buffer until it does."""
    if not config.redis.url:
        with redis_client(config) as client:
            yield client
        return
    clients = clients_from_url(config.redis.url, socket_connect_timeout=5, socket_timeout=30)
    try:
        yield clients.text
    finally:
        clients.close()


def comma_list(value: str | None) -> list[str]:
    """Split a comma list option ("a,b, c") into its non-empty, stripped parts."""
    if not value:
        return []
    return [part.strip() for part in value.split(",") if part.strip()]
