"""The Redis connection a tool runs against, opened from the Config and closed (embedded server stopped) after."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager

import redis

from ..config import Config
from ..connection import open_redis

log = logging.getLogger(__name__)


@contextmanager
def redis_client(config: Config) -> Iterator[redis.Redis]:
    """Yield a client of the configured Redis (or the embedded server, stopped on exit)."""
    client, embedded = open_redis(config)
    try:
        yield client
    finally:
        client.close()
        if embedded:
            embedded.stop()


@contextmanager
def intake_client(config: Config) -> Iterator[redis.Redis]:
    """Like redis_client, but a configured Redis need not answer yet: receivers buffer until it does."""
    if not config.redis.url:
        with redis_client(config) as client:
            yield client
        return
    client = redis.Redis.from_url(config.redis.url, socket_connect_timeout=5, socket_timeout=30)
    try:
        yield client
    finally:
        client.close()


def comma_list(value: str | None) -> list[str]:
    """Split a comma list option ("a,b, c") into its non-empty, stripped parts."""
    if not value:
        return []
    return [part.strip() for part in value.split(",") if part.strip()]
