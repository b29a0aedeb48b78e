"""What `flapjack backtest` reads and writes: archived events, configuration copied into the scratch Redis,
TTLs moved with the replay clock, and the alerts a replay recorded."""

from __future__ import annotations

import logging
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any, cast

import redis

from .. import keys
from .client import str_client

log = logging.getLogger(__name__)


def archived_hours(client: redis.Redis, since: int) -> list[tuple[int, str]]:
    """(hour start, archive key) of every events_archive list from the hour holding `since` on, oldest first."""
    c = str_client(client)
    names = set(cast(set[str], c.smembers(keys.known_events_archive_keys())))
    names |= set(c.scan_iter(match=keys.events_archive_pattern(), count=1000))
    first = since - since % 3600
    found = []
    for name in names:
        hour = name.rsplit(":", 1)[-1]
        try:
            start = int(datetime.strptime(hour, "%Y%m%d%H").replace(tzinfo=UTC).timestamp())
        except ValueError:
            continue
        if start >= first:
            found.append((start, name))
    return sorted(found)


def push_raw(client: redis.Redis, queue: str, raws: list[bytes]) -> None:
    """Queue raw events as archived, in order (the first is taken first)."""
    if raws:
        client.lpush(keys.events(queue), *raws)


def archived_events(client: redis.Redis, key: str) -> list[bytes]:
    """The raw events of one archive list, oldest first (the executive LPUSHes them)."""
    return list(reversed(cast(list[bytes], client.lrange(key, 0, -1))))


def copy_keys(source: redis.Redis, target: redis.Redis, patterns: Iterable[str]) -> int:
    """Copy every key matching `patterns` (hashes, sets, sorted sets, strings, lists) from source to target."""
    src, copied = str_client(source), 0
    p = str_client(target).pipeline(transaction=False)
    for pattern in patterns:
        names = src.scan_iter(match=pattern, count=1000) if "*" in pattern else [pattern]
        for name in names:
            copied += _copy(src, p, name)
    p.execute()
    return copied


def _copy(src: redis.Redis, p: Any, name: str) -> int:
    kind = src.type(name)
    if kind == "hash":
        p.hset(name, mapping=src.hgetall(name))
    elif kind == "set":
        p.sadd(name, *src.smembers(name))
    elif kind == "zset":
        p.zadd(name, dict(src.zrange(name, 0, -1, withscores=True)))
    elif kind == "string":
        p.set(name, src.get(name))
    elif kind == "list":
        p.rpush(name, *src.lrange(name, 0, -1))
    else:
        return 0
    return 1


def shift_ttls(client: redis.Redis, seconds: int) -> None:
    """Cut by `seconds` the TTLs that time notifications (keys.ttl_key_patterns), deleting those that run out."""
    if seconds <= 0:
        return
    c = str_client(client)
    for pattern in keys.ttl_key_patterns():
        for name in c.scan_iter(match=pattern, count=1000):
            left = c.pttl(name)
            if left is None or left < 0:
                continue
            if left <= seconds * 1000:
                c.delete(name)
            else:
                c.pexpire(name, left - seconds * 1000)


def recorded_alerts(client: redis.Redis) -> list[tuple[str, str, str, str, str, int]]:
    """(contact, medium, check, type, state, timestamp) of every alert record, oldest first."""
    c = str_client(client)
    ids = cast(list[str], c.zrange(keys.alerts(), 0, -1))
    p = c.pipeline(transaction=False)
    for alert_id in ids:
        p.hmget(keys.alert(alert_id), "contact", "media", "check", "type", "state", "timestamp")
    return [(r[0] or "", r[1] or "", r[2] or "", r[3] or "", r[4] or "", int(r[5] or 0)) for r in p.execute()]


def link_keys(client: redis.Redis, contact_id: str) -> list[str]:
    """The contacts_for:* sets naming a contact."""
    c = str_client(client)
    return [k for k in c.scan_iter(match=keys.contacts_for_pattern(), count=1000)
            if c.type(k) == "set" and c.sismember(k, contact_id)]


def add_links(client: redis.Redis, contact_id: str, link_keys_: Iterable[str]) -> None:
    """Name a contact in these contacts_for:* sets again."""
    p = str_client(client).pipeline(transaction=False)
    for key in link_keys_:
        p.sadd(key, contact_id)
    p.execute()
