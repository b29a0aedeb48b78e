"""The data layer's two client kinds, write-or-queue, Lua scripts, lenient integers.

A process builds its clients once where it is composed (flapjack_py.runtime.connection.open_clients /
make_clients): a `StrRedis` (str replies) that every function here takes, and a `BytesRedis` (bytes
replies) for what must stay byte-exact: rq's jobs and the raw event payloads of the event queue and
its archive. Nothing here converts one kind into the other.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Literal, Protocol, cast

import redis
from redis.exceptions import NoScriptError


class StrRedis(Protocol):
    """A redis-py client built with decode_responses=True (replies are str): the one the data layer reads with.

    A type only (redis-py's client is untyped for mypy here): `replies` is never read, it only tells
    this kind and BytesRedis apart, so mypy refuses one where the other is wanted. Made by
    `as_str_redis` (or Clients) where a process is composed.
    """

    @property
    def replies(self) -> Literal["str"]: ...

    def __getattr__(self, name: str) -> Any: ...


class BytesRedis(Protocol):
    """A redis-py client built with decode_responses=False (replies are bytes): rq and raw event payloads.

    A type only, like StrRedis; made by `as_bytes_redis` (or Clients).
    """

    @property
    def replies(self) -> Literal["bytes"]: ...

    def __getattr__(self, name: str) -> Any: ...


def decodes(client: Any) -> bool:
    """True when `client` replies with str (built with decode_responses=True)."""
    return bool(client.get_encoder().decode_responses)


def as_str_redis(client: Any) -> StrRedis:
    """`client`, checked to reply with str; TypeError for a bytes client (at composition, once)."""
    if not decodes(client):
        raise TypeError("the data layer needs a str client (decode_responses=True), got a bytes one")
    return cast(StrRedis, client)


def as_bytes_redis(client: Any) -> BytesRedis:
    """`client`, checked to reply with bytes; TypeError for a str client (rq and raw events need bytes)."""
    if decodes(client):
        raise TypeError("rq and the raw event queue need a bytes client (decode_responses=False), got a str one")
    return cast(BytesRedis, client)


@dataclass(frozen=True)
class Clients:
    """The two clients of one process, on the same server: `text` for the data layer, `raw` for rq and
    raw events. Built once where the process is composed; constructing it checks each one's kind."""

    text: StrRedis
    raw: BytesRedis

    def __post_init__(self) -> None:
        as_str_redis(self.text)
        as_bytes_redis(self.raw)

    def close(self) -> None:
        """Close both clients' connections."""
        self.text.close()
        self.raw.close()


@contextmanager
def writing(client: StrRedis, pipe: redis.client.Pipeline | None) -> Iterator[Any]:
    """Yield `pipe`, or a fresh MULTI pipeline executed on exit."""
    if pipe is not None:
        yield pipe
        return
    own = client.pipeline(transaction=True)
    yield own
    own.execute()


def registered_script(client: StrRedis, source: str) -> Any:
    """redis-py's Script for Lua `source` on `client`, made once per client (EVALSHA, loaded on NOSCRIPT).

    Call it with `keys=`, `args=` and optionally `client=` a pipeline to queue the call there.
    """
    cache = client.__dict__.setdefault("_flapjack_scripts", {})
    if source not in cache:
        cache[source] = client.register_script(source)
    return cache[source]


def call_read_script(client: StrRedis, source: str, calls: Sequence[tuple[Sequence[Any], Sequence[Any]]]) -> list[Any]:
    """Call the read-only Lua `source` once per (keys, args) of `calls`, pipelined in one round trip (each
    call atomic, not the set), and return the replies in order.

    A Script registered on a pipeline makes redis-py ask SCRIPT EXISTS first: a second round trip on
    every call. Here the calls go out as EVALSHA straight away; when the server does not know the script
    (restarted, failed over, SCRIPT FLUSH) it is loaded and the calls made again, which a read allows.
    """
    replies: list[Any] = []
    for attempt in range(2):
        pipe = client.pipeline(transaction=False)
        for script_keys, args in calls:
            pipe.evalsha(script_sha(source), len(script_keys), *script_keys, *args)
        replies = pipe.execute(raise_on_error=False)
        if attempt or not any(isinstance(reply, NoScriptError) for reply in replies):
            break
        client.script_load(source)
    for reply in replies:
        if isinstance(reply, Exception):
            raise reply
    return replies


def load_scripts(client: StrRedis, sources: Sequence[str]) -> None:
    """SCRIPT LOAD `sources` in one round trip, so their first EVALSHA is not refused (NOSCRIPT) and made again."""
    pipe = client.pipeline(transaction=False)
    for source in sources:
        pipe.script_load(source)
    pipe.execute()


@functools.lru_cache(maxsize=64)
def script_sha(source: str) -> str:
    """The SHA1 Redis knows Lua `source` by (EVALSHA)."""
    return hashlib.sha1(source.encode()).hexdigest()


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


def text(value: bytes) -> str:
    """A bytes client's reply as str (the event queue's keys and owners); bad UTF-8 becomes U+FFFD."""
    return value.decode("utf-8", "replace")
