"""Check tags: the `check_tag:TAG` sets of `E:C` ids with their index `known_tag:check_tag` (the seed-style
layout, docs/spec/engine.md 4.1), and the per-check `E:C:check_tags` set of TAGs that makes reading one
check's tags a single set read, whatever the number of tags in use (issue 16.3).

Every write here keeps the three in step in one MULTI; `index_check_tags` rebuilds the per-check sets
from `check_tag:TAG` sets written by other means (data from before the per-check sets, or written by hand).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

import redis

from flapjack_py import keys
from flapjack_py.store.plumbing.client import StrRedis

log = logging.getLogger(__name__)


def check_tags(client: StrRedis, entity: str, check: str) -> list[str]:
    """Sorted tags stored on a check."""
    return sorted(client.smembers(keys.check_tags(entity, check)))


def known_check_tags(client: StrRedis) -> list[str]:
    """Every check tag in use, sorted."""
    return sorted(client.smembers(keys.known_check_tags()))


def add_check_tags(client: StrRedis, entity: str, check: str, tags: Iterable[str]) -> None:
    """Tag a check (and index the tags)."""
    tags = [t for t in tags if t]
    if not tags:
        return
    p = client.pipeline(transaction=True)
    for tag in tags:
        p.sadd(keys.check_tag(tag), keys.check_id(entity, check))
    p.sadd(keys.known_check_tags(), *tags)
    p.sadd(keys.check_tags(entity, check), *tags)
    p.execute()


def remove_check_tags(client: StrRedis, entity: str, check: str, tags: Iterable[str]) -> None:
    """Untag a check; a tag no check carries any more leaves the index."""
    for tag in tags:
        with client.pipeline(transaction=True) as p:
            p.srem(keys.check_tag(tag), keys.check_id(entity, check))
            p.srem(keys.check_tags(entity, check), tag)
            p.execute()
        if not client.exists(keys.check_tag(tag)):
            client.srem(keys.known_check_tags(), tag)


def index_check_tags(client: StrRedis) -> int:
    """Add every member of every known `check_tag:TAG` set to its check's `E:C:check_tags` set; return
    how many (check, tag) pairs were read. Each tag is read and indexed under WATCH, so a tag removed
    meanwhile is not indexed again. Idempotent; the executive runs it when it boots."""
    pairs = 0
    for tag in known_check_tags(client):
        pairs += _index_tag(client, tag)
    return pairs


def _index_tag(c: StrRedis, tag: str) -> int:
    with c.pipeline(transaction=True) as p:
        while True:
            try:
                p.watch(keys.check_tag(tag))
                members = list(p.smembers(keys.check_tag(tag)))
                p.multi()
                for member in members:
                    p.sadd(keys.check_tags(*keys.split_check_id(member)), tag)
                p.execute()
                return len(members)
            except redis.WatchError:
                continue
