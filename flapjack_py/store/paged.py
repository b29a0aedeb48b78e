"""Who was paged for a check's current problem episode (issue 33 item 3), in Redis.

One hash per check (`keys.paged_for`): JSON [contact, medium] -> unix time last paged. Every problem alert
(a first page, a repeat, an escalation level) adds its pair on the notifying event's writes, so it commits in
the batch's one MULTI with the alert record; the batch read loads it for the checks whose notification is a
recovery, which goes to each pair exactly once whatever rules and schedules say by then, and deletes it.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Sequence
from typing import Any

from flapjack_py import keys
from flapjack_py.store.plumbing import staged
from flapjack_py.store.plumbing.client import StrRedis
from flapjack_py.store.plumbing.writes import Writes

log = logging.getLogger(__name__)

Pair = tuple[str, str]
"""(contact id, medium)."""


def record(writes: Writes, entity: str, check: str, pairs: Iterable[Pair], now: int) -> None:
    """Add (contact, medium) pairs paged at `now` to the check's episode."""
    fields = {json.dumps([contact, medium]): now for contact, medium in pairs}
    if fields:
        writes.hset(keys.paged_for(entity, check), mapping=fields)


def clear(writes: Writes, entity: str, check: str) -> None:
    """The episode is over (its recovery was decided): forget who was paged."""
    writes.delete(keys.paged_for(entity, check))


def load(client: StrRedis, entity: str, check: str) -> list[Pair]:
    """The pairs paged in the check's current episode, oldest page first."""
    return _pairs(keys.check_id(entity, check), client.hgetall(keys.paged_for(entity, check)))


def batch_reads(check_ids: Sequence[str]) -> staged.Reads[dict[str, list[Pair]]]:
    """The paged pairs of each of `check_ids` (E:C), in one step."""
    ids = list(dict.fromkeys(check_ids))
    if not ids:
        return {}

    def queue(p: Any) -> None:
        for check_id in ids:
            p.hgetall(keys.paged_for(*keys.split_check_id(check_id)))

    replies = yield staged.Step(queue)
    return {i: found for i, stored in zip(ids, replies, strict=True) if (found := _pairs(i, stored))}


def _pairs(check_id: str, stored: Any) -> list[Pair]:
    found: list[tuple[int, Pair]] = []
    for field, at in (stored or {}).items():
        try:
            contact, medium = json.loads(field)
            found.append((int(at), (str(contact), str(medium))))
        except (ValueError, TypeError):
            log.warning("%s: damaged paged record %r ignored", check_id, field)
    return [pair for _, pair in sorted(found, key=lambda x: x[0])]
