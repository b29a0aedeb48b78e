"""Reads behind the overview's triage: the facts of many checks in a few Lua calls, when each failing check
began failing, and the checks a tag names (check tags and entity tags).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from flapjack_py import keys
from flapjack_py.store.dependencies import inhibitors
from flapjack_py.store.entities import entity_check_names, entity_ids_with_tag
from flapjack_py.store.maintenance import SCHEDULED, UNSCHEDULED
from flapjack_py.store.plumbing import scripts
from flapjack_py.store.plumbing.client import StrRedis, registered_script, to_int
from flapjack_py.views.rows import CheckRow

CHUNK = 1000
"""Checks read per Lua call: each call holds Redis for a few milliseconds, never for a whole 10,000."""


def failing_since(client: StrRedis) -> dict[str, int]:
    """E:C of every failing check -> when it began failing (failed_checks scores)."""
    return {m: int(s) for m, s in client.zrange(keys.failed_checks(), 0, -1, withscores=True)}


def load_facts(client: StrRedis, check_ids: Sequence[str], since: Mapping[str, int],
               handling: bool = True) -> list[CheckRow]:
    """The rows of `check_ids` (without alerts), in that order; `since` gives failing times (failing_since).

    `handling=False` reads only the check hashes (a quarter of the work, for filtering and sorting
    thousands of checks): acknowledged and scheduled then read False, enabled True, and no failing check is
    inhibited (with handling, a failing check whose parent fails names it: flapjack_py.store.dependencies).
    """
    script = registered_script(client, scripts.TRIAGE_FACTS)
    found: list[CheckRow] = []
    for start in range(0, len(check_ids), CHUNK):
        chunk = check_ids[start:start + CHUNK]
        pairs = [keys.split_check_id(i) for i in chunk]
        names = [k for e, ch in pairs for k in (_keys(e, ch) if handling else (keys.check(e, ch),))]
        replies = script(keys=names, args=["all" if handling else "states", *(ch for _, ch in pairs)])
        found += [_facts(e, ch, reply, since.get(cid)) for (e, ch), cid, reply in zip(pairs, chunk, replies,
                                                                                       strict=True)]
    if handling:
        _with_inhibitors(client, found)
    return found


def _with_inhibitors(client: StrRedis, rows: list[CheckRow]) -> None:
    """Name the failing parent of each failing row a dependency inhibits."""
    found = inhibitors(client, [row.id for row in rows if row.failing])
    for row in rows:
        row.inhibited_by = found.get(row.id, "")


def tagged_check_ids(client: StrRedis, tag: str) -> set[str]:
    """E:C of the checks tagged `tag` and of every check of the entities tagged `tag`."""
    found = set(client.smembers(keys.check_tag(tag)))
    for entity_id in entity_ids_with_tag(client, tag):
        name = client.hget(keys.entity_names_by_id(), entity_id)
        if name:
            found.update(keys.check_id(name, check) for check in entity_check_names(client, name))
    return found


def known_tags(client: StrRedis) -> list[str]:
    """Every check tag and entity tag in use, sorted."""
    return sorted(client.sunion([keys.known_check_tags(), keys.known_entity_tags()]))


def _keys(entity: str, check: str) -> tuple[str, str, str, str]:
    return (keys.check(entity, check), keys.current_checks(entity), keys.maintenance(entity, check, SCHEDULED),
            keys.maintenance(entity, check, UNSCHEDULED))


def _facts(entity: str, check: str, reply: list[Any], since: int | None) -> CheckRow:
    state, summary, change, update = reply[:4]
    if len(reply) < 7:
        return CheckRow(entity, check, state or None, summary or "", _int(change), _int(update), since,
                          acknowledged=False, scheduled=False, enabled=True)
    score, scheduled, unscheduled = reply[4:7]
    return CheckRow(entity, check, state or None, summary or "", _int(change), _int(update), since,
                      acknowledged=bool(unscheduled), scheduled=bool(scheduled), enabled=score is not None)


def _int(value: str | None) -> int | None:
    """A stored time: digits almost always (int() is quick), else to_int's lenient reading."""
    return int(value) if value and value.isdigit() else to_int(value)


def latest_alert_ids(client: StrRedis, check_ids: Sequence[str], count: int) -> list[list[str]]:
    """Ids of the newest `count` alerts of each check, newest first (one round trip)."""
    p = client.pipeline(transaction=False)
    for check_id in check_ids:
        p.zrevrange(keys.alerts_by_check(*keys.split_check_id(check_id)), 0, count - 1)
    return p.execute() if check_ids else []
