"""What `flapjack backtest` reads and writes: archived events, configuration copied into the scratch Redis,
TTLs moved with the replay clock, and the alerts a replay recorded."""

from __future__ import annotations

import logging
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any, cast

from flapjack_py import keys
from flapjack_py.store.plumbing.client import BytesRedis, StrRedis

log = logging.getLogger(__name__)


def archived_hours(client: StrRedis, since: int) -> list[tuple[int, str]]:
    """(hour start, archive key) of every events_archive list from the hour holding `since` on, oldest first."""
    names = set(cast(set[str], client.smembers(keys.known_events_archive_keys())))
    names |= set(client.scan_iter(match=keys.events_archive_pattern(), count=1000))
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


def push_raw(client: BytesRedis, queue: str, raws: list[bytes]) -> None:
    """Queue raw events as archived, in order (the first is taken first)."""
    if raws:
        client.lpush(keys.events(queue), *raws)


def archived_events(client: BytesRedis, key: str) -> list[bytes]:
    """The raw events of one archive list, oldest first (the executive LPUSHes them)."""
    return list(reversed(cast(list[bytes], client.lrange(key, 0, -1))))


def copy_keys(source: StrRedis, target: StrRedis, patterns: Iterable[str]) -> int:
    """Copy every key matching `patterns` (hashes, sets, sorted sets, strings, lists) from source to target."""
    copied = 0
    p = target.pipeline(transaction=False)
    for pattern in patterns:
        names = source.scan_iter(match=pattern, count=1000) if "*" in pattern else [pattern]
        for name in names:
            copied += _copy(source, p, name)
    p.execute()
    return copied


def _copy(src: StrRedis, p: Any, name: str) -> int:
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


def shift_ttls(client: StrRedis, seconds: int) -> None:
    """Cut by `seconds` the TTLs that time notifications (keys.ttl_key_patterns), deleting those that run out."""
    if seconds <= 0:
        return
    for pattern in keys.ttl_key_patterns():
        for name in client.scan_iter(match=pattern, count=1000):
            left = client.pttl(name)
            if left is None or left < 0:
                continue
            if left <= seconds * 1000:
                client.delete(name)
            else:
                client.pexpire(name, left - seconds * 1000)


def recorded_alerts(client: StrRedis) -> list[tuple[str, str, str, str, str, int]]:
    """(contact, medium, check, type, state, timestamp) of every alert record, oldest first."""
    ids = cast(list[str], client.zrange(keys.alerts(), 0, -1))
    p = client.pipeline(transaction=False)
    for alert_id in ids:
        p.hmget(keys.alert(alert_id), "contact", "media", "check", "type", "state", "timestamp")
    return [(r[0] or "", r[1] or "", r[2] or "", r[3] or "", r[4] or "", int(r[5] or 0)) for r in p.execute()]


def link_keys(client: StrRedis, contact_id: str) -> list[str]:
    """The contacts_for:* sets naming a contact."""
    return [k for k in client.scan_iter(match=keys.contacts_for_pattern(), count=1000)
            if client.type(k) == "set" and client.sismember(k, contact_id)]


def add_links(client: StrRedis, contact_id: str, link_keys_: Iterable[str]) -> None:
    """Name a contact in these contacts_for:* sets again."""
    p = client.pipeline(transaction=False)
    for key in link_keys_:
        p.sadd(key, contact_id)
    p.execute()
