"""The data layer: every Redis read and write of the engine, API and gateways.

Modules here take a client (and optionally a pipeline for atomic writes), hide
Redis types and return plain values. Key names come from flapjack_py.keys.
"""

from __future__ import annotations

import redis
from redis.sentinel import SentinelConnectionPool


def decoded(client: redis.Redis) -> redis.Redis:
    """Return a client on the same server that replies with `str` instead of `bytes`.

    Callers may hand us a plain `redis.Redis.from_url(url)` (bytes replies); the
    data layer always works on strings.
    """
    pool = client.connection_pool
    kwargs = dict(pool.connection_kwargs)
    if kwargs.get("decode_responses"):
        return client
    kwargs["decode_responses"] = True
    kwargs.setdefault("encoding_errors", "replace")
    if isinstance(pool, SentinelConnectionPool):  # same sentinels and service: follows a failover too
        kwargs.pop("connection_pool", None)
        new_pool: redis.ConnectionPool = SentinelConnectionPool(
            pool.service_name, pool.sentinel_manager, is_master=pool.is_master,
            check_connection=pool.check_connection, **kwargs)
    else:
        new_pool = pool.__class__(connection_class=pool.connection_class, **kwargs)
    return redis.Redis(connection_pool=new_pool)
