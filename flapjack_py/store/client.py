"""Client helpers shared by the data layer: a cached str client, write-or-queue, Lua scripts, lenient integers."""

from __future__ import annotations

import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import redis

from . import decoded

_decoded: weakref.WeakKeyDictionary[redis.Redis, redis.Redis] = weakref.WeakKeyDictionary()


def str_client(client: redis.Redis) -> redis.Redis:
    """A str-replying client for `client` (cached per client)."""
    if client.connection_pool.connection_kwargs.get("decode_responses"):
        return client
    found = _decoded.get(client)
    if found is None:
        found = _decoded[client] = decoded(client)
    return found


@contextmanager
def writing(client: redis.Redis, pipe: redis.client.Pipeline | None) -> Iterator[Any]:
    """Yield `pipe`, or a fresh MULTI pipeline executed on exit."""
    if pipe is not None:
        yield pipe
        return
    own = client.pipeline(transaction=True)
    yield own
    own.execute()


def registered_script(client: redis.Redis, source: str) -> Any:
    """redis-py's Script for Lua `source` on `client`, made once per client (EVALSHA, loaded on NOSCRIPT).

    Call it with `keys=`, `args=` and optionally `client=` a pipeline to queue the call there.
    """
    cache = client.__dict__.setdefault("_flapjack_scripts", {})
    if source not in cache:
        cache[source] = client.register_script(source)
    return cache[source]


def to_int(value: Any) -> int | None:
    """Leading-digits integer of a stored value, str or bytes ("300" -> 300, "12x" -> 12, as Ruby's to_i
    read Flapjack's data); None when there is none (None, "", "x")."""
    if value is None:
        return None
    if type(value) is bytes and value.isdigit():  # the common case: digits only (bytes.isdigit is ASCII only)
        return int(value)
    if type(value) is str and value.isdigit() and value.isascii():
        return int(value)
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    text = value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)
    text = text.strip()
    sign, digits = (-1, text[1:]) if text.startswith("-") else (1, text)
    prefix = ""
    for char in digits:
        if not char.isdigit():
            break
        prefix += char
    return sign * int(prefix) if prefix else None


def text(value: bytes | str) -> str:
    """A reply as str, whichever client (bytes or str) gave it; bad UTF-8 becomes U+FFFD."""
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else value


def opt_text(value: bytes | str | None) -> str | None:
    """`text`, keeping None (a missing key or field)."""
    return None if value is None else text(value)
