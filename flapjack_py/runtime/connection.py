"""Build the Redis clients every part runs against: URL (TLS, ACL user), Sentinel, or the embedded server.

One place makes clients, so the executive, the gateway workers and the web app
all get the same settings, and each process builds its pair once (`open_clients`,
`make_clients`): a str-replying client for the data layer and a bytes-replying
one for rq and raw events (flapjack_py.store.plumbing.client.Clients). The settings: with `redis.sentinels` a
redis-py Sentinel-managed pool, which asks the sentinels for the primary on
every new connection and so follows a failover. A command that cannot connect
is retried RETRIES times RETRY_WAIT s apart; redis-py applies the same policy to
the connect call inside each try (to one fixed address), so it stays short:
long back-offs belong to the callers' loops (executive, rq worker), which ask
the sentinels again each time.
"""

from __future__ import annotations

import logging
from typing import Any
from urllib.parse import urlparse

import redis
from redis.backoff import ConstantBackoff
from redis.retry import Retry
from redis.sentinel import Sentinel, SentinelConnectionPool

from flapjack_py.config.redaction import mask_url
from flapjack_py.config.settings import Config, RedisConfig
from flapjack_py.errors import ConfigError, RedisUnavailable
from flapjack_py.runtime.embedded_redis import EmbeddedRedis
from flapjack_py.store.plumbing.client import Clients, as_bytes_redis, as_str_redis, decodes

log = logging.getLogger(__name__)

RETRIES = 3
"""Retries of a command that fails to connect or times out."""
RETRY_WAIT = 0.2
"""Seconds between those retries."""
SOCKET_TIMEOUT = 10.0
"""Seconds a command may wait for a reply before the connection counts as lost."""
CONNECT_TIMEOUT = 10.0
"""Seconds to wait for a TCP connection to Redis (an unreachable host is an error, not a hang)."""
SENTINEL_TIMEOUT = 3.0
"""Seconds to wait for a sentinel's connection or reply before asking the next one."""


def open_clients(config: Config) -> tuple[Clients, EmbeddedRedis | None]:
    """Return (the process's clients, embedded server to stop or None).

    With neither `redis.url` nor `redis.sentinels` the embedded server is started,
    unless another process already runs it.
    """
    if config.redis.url or config.redis.sentinels:
        clients = make_clients(config.redis)
        try:
            clients.raw.ping()
        except (redis.ConnectionError, redis.TimeoutError) as exc:
            clients.close()
            raise unreachable(describe(config.redis) if config.redis.sentinels else config.redis.url, exc) from None
        warn_if_not_persistent(clients.raw, describe(config.redis))
        return clients, None
    server = EmbeddedRedis(config.redis.data_dir, persistent=True, binary=config.redis.embedded_binary)
    if server.answering():  # another flapjack process (e.g. `flapjack server`) runs it: share, never stop it
        log.info("using the embedded Redis already running at %s", server.url)
        return embedded_clients(server), None
    server.start()
    log.info("embedded Redis listening at %s", server.url)
    return embedded_clients(server), server


def make_clients(cfg: RedisConfig) -> Clients:
    """The str and the bytes client for the configured URL or Sentinel service."""
    return Clients(text=as_str_redis(make_client(cfg, decode_responses=True)), raw=as_bytes_redis(make_client(cfg)))


def embedded_clients(server: EmbeddedRedis) -> Clients:
    """The str and the bytes client of an embedded server."""
    return Clients(text=as_str_redis(server.client(decode_responses=True, encoding_errors="replace")),
                   raw=as_bytes_redis(server.client()))


def clients_from_url(url: str, **options: Any) -> Clients:
    """The str and the bytes client for a bare URL (a tool's --server or --source option)."""
    return Clients(text=as_str_redis(redis.Redis.from_url(url, decode_responses=True, encoding_errors="replace",
                                                          **options)),
                   raw=as_bytes_redis(redis.Redis.from_url(url, **options)))


def clients_for(client: redis.Redis | Clients) -> Clients:
    """The pair for one client an embedder hands over (contract: `Executive(r, cfg)` and `create_app(redis=r)`
    take any redis.Redis, e.g. a plain `redis.Redis.from_url(url)` with bytes replies).

    The other kind is made once, here, from the client's connection settings (same server, same
    Sentinel service, so it follows a failover too); a str one turns bad UTF-8 into U+FFFD. The
    processes flapjack itself starts build their pair from the config instead (open_clients).
    """
    if isinstance(client, Clients):
        return client
    if decodes(client):
        return Clients(text=as_str_redis(client), raw=as_bytes_redis(_other_kind(client)))
    return Clients(text=as_str_redis(_other_kind(client)), raw=as_bytes_redis(client))


def localhost_clients() -> Clients:
    """The pair for redis-py's default server (localhost:6379, db 0): create_app's when no Redis is configured."""
    return clients_for(redis.Redis())


def _other_kind(client: redis.Redis) -> redis.Redis:
    """A client on `client`'s connection settings that replies with the other kind (str <-> bytes)."""
    pool = client.connection_pool
    kwargs = dict(pool.connection_kwargs)
    kwargs["decode_responses"] = not kwargs.get("decode_responses")
    if kwargs["decode_responses"]:
        kwargs.setdefault("encoding_errors", "replace")
    if isinstance(pool, SentinelConnectionPool):  # same sentinels and service: follows a failover too
        kwargs.pop("connection_pool", None)
        new_pool: redis.ConnectionPool = SentinelConnectionPool(
            pool.service_name, pool.sentinel_manager, is_master=pool.is_master,
            check_connection=pool.check_connection, **kwargs)
    else:
        new_pool = pool.__class__(connection_class=pool.connection_class, **kwargs)
    return redis.Redis(connection_pool=new_pool)


def make_client(cfg: RedisConfig, decode_responses: bool = False) -> redis.Redis:
    """A client for the configured URL or Sentinel service (bytes replies unless `decode_responses`;
    str replies turn bad UTF-8 into U+FFFD)."""
    options = _options(cfg, decode_responses)
    if cfg.sentinels:
        sentinel = Sentinel(parse_sentinels(cfg.sentinels), sentinel_kwargs=_sentinel_options(cfg), **options)
        db = _db_of(cfg.url)
        ssl = bool(cfg.url and cfg.url.startswith("rediss://"))
        return sentinel.master_for(cfg.master_name, db=db, ssl=ssl, **_ssl_options(cfg, ssl))
    if not cfg.url:
        raise ConfigError("redis.url: needed (or redis.sentinels)")
    return redis.Redis.from_url(cfg.url, **options, **_ssl_options(cfg, cfg.url.startswith("rediss://")))


def unreachable(url: str | None, exc: Exception) -> RedisUnavailable:
    """The one-line error for a Redis that cannot be reached: `cannot reach Redis at URL: connection refused`."""
    text = str(exc).strip().rstrip(".")
    if "connecting to" in text:  # redis-py: "Error 111 connecting to host:port. Connection refused."
        text = text.rpartition(". ")[2]
    reason = (text[:1].lower() + text[1:]) or type(exc).__name__
    return RedisUnavailable(f"cannot reach Redis at {mask_url(url or 'the embedded server')}: {reason}")


def parse_sentinels(entries: tuple[str, ...]) -> list[tuple[str, int]]:
    """`host:port` strings as (host, port); ConfigError naming a bad one."""
    found = []
    for entry in entries:
        host, _, port = entry.rpartition(":")
        if not host or not port.isdigit():
            raise ConfigError(f"redis.sentinels: expected host:port, got {entry!r}")
        found.append((host.strip("[]"), int(port)))
    return found


def describe(cfg: RedisConfig) -> str:
    """Where Redis is, for logs: the URL without its password, or the Sentinel service."""
    if cfg.sentinels:
        return f"sentinel service {cfg.master_name} ({', '.join(cfg.sentinels)})"
    url = urlparse(cfg.url or "")
    netloc = url.netloc.rpartition("@")[2]
    return url._replace(netloc=netloc).geturl()


def warn_if_not_persistent(client: redis.Redis, where: str) -> None:
    """Log a warning when the server keeps neither an AOF nor RDB snapshots (events could be lost)."""
    try:
        conf = client.config_get("appendonly")
        save = client.config_get("save")
    except redis.ResponseError:  # CONFIG may be disabled on managed servers
        return
    except redis.ConnectionError as exc:
        log.warning("Redis at %s not reachable yet: %s", where, exc)
        return
    aof = conf.get("appendonly") or conf.get(b"appendonly")
    snap = save.get("save") or save.get(b"save")
    if aof in ("no", b"no") and not snap:
        log.warning("Redis at %s has persistence off (no AOF, no RDB): a server restart loses queued events",
                    mask_url(where))


def _options(cfg: RedisConfig, decode_responses: bool) -> dict[str, Any]:
    options: dict[str, Any] = {
        "decode_responses": decode_responses, "socket_timeout": SOCKET_TIMEOUT,
        "socket_connect_timeout": CONNECT_TIMEOUT, "health_check_interval": 30,
        "retry": Retry(ConstantBackoff(RETRY_WAIT), RETRIES),
        "retry_on_error": [redis.ConnectionError, redis.TimeoutError],
    }
    if decode_responses:
        options["encoding_errors"] = "replace"  # a reply that is not UTF-8 is shown, not an error
    if cfg.username:
        options["username"] = cfg.username
    if cfg.password:
        options["password"] = cfg.password
    return options


def _sentinel_options(cfg: RedisConfig) -> dict[str, Any]:
    options: dict[str, Any] = {"socket_timeout": SENTINEL_TIMEOUT, "socket_connect_timeout": SENTINEL_TIMEOUT}
    if cfg.sentinel_password:
        options["password"] = cfg.sentinel_password
    return options


def _ssl_options(cfg: RedisConfig, ssl: bool) -> dict[str, Any]:
    return {"ssl_ca_certs": cfg.ssl_ca_certs} if ssl and cfg.ssl_ca_certs else {}


def _db_of(url: str | None) -> int:
    path = urlparse(url or "").path.strip("/")
    return int(path) if path.isdigit() else 0
