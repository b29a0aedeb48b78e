"""Open the Redis connection a command runs against: the configured URL or the embedded server."""

from __future__ import annotations

import logging

import redis

from .config import Config
from .embedded_redis import EmbeddedRedis
from .errors import RedisUnavailable
from .redaction import mask_url

log = logging.getLogger(__name__)

CONNECT_TIMEOUT = 10.0
"""Seconds to wait for a TCP connection to Redis (an unreachable host is an error, not a hang)."""


def open_redis(config: Config) -> tuple[redis.Redis, EmbeddedRedis | None]:
    """Return (client, embedded server to stop or None).

    With no `redis.url` the embedded server is started, unless another process already runs it.
    """
    if config.redis.url:
        client = redis.Redis.from_url(config.redis.url, socket_connect_timeout=CONNECT_TIMEOUT)
        try:
            client.ping()
        except (redis.ConnectionError, redis.TimeoutError) as exc:
            client.close()
            raise unreachable(config.redis.url, exc) from None
        warn_if_not_persistent(client, config.redis.url)
        return client, None
    server = EmbeddedRedis(config.redis.data_dir, persistent=True, binary=config.redis.embedded_binary)
    if server.answering():  # another flapjack process (e.g. `flapjack server`) runs it: share, never stop it
        log.info("using the embedded Redis already running at %s", server.url)
        return server.client(), None
    server.start()
    log.info("embedded Redis listening at %s", server.url)
    return server.client(), server


def unreachable(url: str | None, exc: Exception) -> RedisUnavailable:
    """The one-line error for a Redis that cannot be reached: `cannot reach Redis at URL: connection refused`."""
    text = str(exc).strip().rstrip(".")
    if "connecting to" in text:  # redis-py: "Error 111 connecting to host:port. Connection refused."
        text = text.rpartition(". ")[2]
    reason = (text[:1].lower() + text[1:]) or type(exc).__name__
    return RedisUnavailable(f"cannot reach Redis at {mask_url(url or 'the embedded server')}: {reason}")


def warn_if_not_persistent(client: redis.Redis, url: str) -> None:
    """Log a warning when the server keeps neither an AOF nor RDB snapshots (events could be lost)."""
    try:
        conf = client.config_get("appendonly")
        save = client.config_get("save")
    except redis.ResponseError:  # CONFIG may be disabled on managed servers
        return
    aof = conf.get("appendonly") or conf.get(b"appendonly")
    snap = save.get("save") or save.get(b"save")
    if aof in ("no", b"no") and not snap:
        log.warning("Redis at %s has persistence off (no AOF, no RDB): a server restart loses queued events",
                    mask_url(url))
