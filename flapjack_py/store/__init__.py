"""The data layer: every Redis read and write of the engine, API and gateways.

Modules here take a client (and optionally a pipeline for atomic writes), hide
Redis types and return plain values. Key names come from flapjack_py.keys.
"""

from __future__ import annotations

import redis


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
    new_pool = pool.__class__(connection_class=pool.connection_class, **kwargs)
    return redis.Redis(connection_pool=new_pool)
