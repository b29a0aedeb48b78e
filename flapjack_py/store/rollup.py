"""The notifier's per-contact alerting state in Redis: interval drop keys, contact_alerting_checks sets,
drop_rollup keys, and the check facts rollup cleaning needs (engine.md 5.2 step 5, 5.4, 5.5 step 4).

Reads are batched (one round trip each); writes go into the caller's MULTI pipeline.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from typing import Any

from flapjack_py import keys
from flapjack_py.model.alerting import AlertingSet, CheckFacts
from flapjack_py.store.plumbing import scripts, staged
from flapjack_py.store.plumbing.client import StrRedis, to_int
from flapjack_py.store.plumbing.writes import Writes

log = logging.getLogger(__name__)

FAILURE_STATES = ("warning", "critical", "unknown")
"""States whose per-check interval keys a recovery or acknowledgement resets."""

DROP_MARKER = "d"
"""Value of drop_alerts_for_contact:* and drop_rollup_alerts_for_contact:* keys (the TTL carries the interval)."""

FACTS_CHUNK = 100
"""Checks per CHECK_FACTS call: bounds how long one call holds Redis."""






def load_dropped_media(client: StrRedis, pairs: Sequence[tuple[str, str]], event_id: str,
                       state: str) -> set[tuple[str, str]]:
    """The (contact id, medium) pairs held back by any of the four drop_alerts_for_contact keys."""
    p = client.pipeline(transaction=False)
    for cid, medium in pairs:
        p.exists(keys.drop_alerts_for_contact(cid), keys.drop_alerts_for_contact(cid, medium),
                 keys.drop_alerts_for_contact(cid, medium, event_id),
                 keys.drop_alerts_for_contact(cid, medium, event_id, state))
    return {pair for pair, count in zip(pairs, p.execute(), strict=True) if count}


def load_alerting_sets(client: StrRedis, pairs: Sequence[tuple[str, str]]) -> dict[tuple[str, str], AlertingSet]:
    """contact_alerting_checks:CID:media:M members (in set order) and drop_rollup existence per pair."""
    p = client.pipeline(transaction=False)
    for cid, medium in pairs:
        p.zrange(keys.contact_alerting_checks(cid, medium), 0, -1, withscores=True)
        p.exists(keys.drop_rollup_alerts_for_contact(cid, medium))
    replies = p.execute()
    return {pair: AlertingSet(members=dict(replies[2 * i]), drop_rollup=bool(replies[2 * i + 1]))
            for i, pair in enumerate(pairs)}


def load_check_facts(client: StrRedis, check_ids: Iterable[str]) -> dict[str, CheckFacts]:
    """CheckFacts of each check id in two round trips: entity ids, then one Lua call for the rest."""
    return staged.run(client, check_facts_reads(check_ids))


def check_facts_reads(check_ids: Iterable[str]) -> staged.Reads[dict[str, CheckFacts]]:
    """load_check_facts in two steps (flapjack_py.store.plumbing.staged): the entity ids name the contact sets read."""
    ids = list(dict.fromkeys(check_ids))
    if not ids:
        return {}
    entities = list(dict.fromkeys(keys.split_check_id(cid)[0] for cid in ids))
    found = yield staged.Step(lambda p: p.hmget(keys.entity_ids_by_name(), entities))
    entity_ids = dict(zip(entities, found[0], strict=True))
    chunks = [[keys.split_check_id(cid) for cid in ids[first:first + FACTS_CHUNK]]
              for first in range(0, len(ids), FACTS_CHUNK)]
    calls = [(_facts_keys(chunk, entity_ids), [check for _, check in chunk]) for chunk in chunks]
    per_call = yield from staged.script(scripts.CHECK_FACTS, calls)
    replies = [reply for replies in per_call for reply in replies]
    return {cid: _facts(cid, reply) for cid, reply in zip(ids, replies, strict=True)}


def _facts_keys(checks: Sequence[tuple[str, str]], entity_ids: dict[str, str | None]) -> list[str]:
    everyone = keys.contacts_for(keys.ALL_ENTITIES_ID)
    found = [everyone]
    for entity, check in checks:
        eid = entity_ids.get(entity)
        found += [keys.check(entity, check), keys.current_checks(entity), keys.maintenance(entity, check, "scheduled"),
                  keys.maintenance(entity, check, "unscheduled"), keys.contacts_for(eid) if eid else everyone,
                  keys.contacts_for(eid, check) if eid else everyone]
    return found


# --- writes into the caller's pipeline ------------------------------------


def add_alerting_check(pipe: Writes, contact_id: str, medium: str, event_id: str, now: int) -> None:
    """ZADD contact_alerting_checks:CID:media:M now E:C."""
    pipe.zadd(keys.contact_alerting_checks(contact_id, medium), {event_id: now})


def remove_alerting_checks(pipe: Writes, contact_id: str, medium: str, check_ids: Sequence[str]) -> None:
    """ZREM cleaned checks from a contact medium's alerting set."""
    if check_ids:
        pipe.zrem(keys.contact_alerting_checks(contact_id, medium), *check_ids)


def set_drop_rollup(pipe: Writes, contact_id: str, medium: str, interval: int) -> None:
    """Hold back rollup alerts on a medium for `interval` seconds."""
    pipe.set(keys.drop_rollup_alerts_for_contact(contact_id, medium), DROP_MARKER, ex=interval)


def clear_drop_rollup(pipe: Writes, contact_id: str, medium: str) -> None:
    """DEL drop_rollup_alerts_for_contact:CID:M."""
    pipe.delete(keys.drop_rollup_alerts_for_contact(contact_id, medium))


def set_interval_drop(pipe: Writes, contact_id: str, medium: str, event_id: str, state: str,
                      interval: int) -> None:
    """SET drop_alerts_for_contact:CID:M:E:C:STATE d with TTL `interval` (repeat alerts held back)."""
    pipe.set(keys.drop_alerts_for_contact(contact_id, medium, event_id, state), DROP_MARKER, ex=interval)


def clear_interval_drops(pipe: Writes, contact_id: str, medium: str, event_id: str) -> None:
    """DEL the warning/critical/unknown interval keys of a check (recovery or acknowledgement)."""
    pipe.delete(*(keys.drop_alerts_for_contact(contact_id, medium, event_id, s) for s in FAILURE_STATES))


def _facts(check_id: str, reply: list[Any]) -> CheckFacts:
    state, last_change, summary, enabled, scheduled, unscheduled, contacts = reply
    return CheckFacts(check_id=check_id, state=state, last_change=to_int(last_change), summary=summary,
                      enabled=enabled is not None, in_scheduled_maintenance=bool(scheduled),
                      in_unscheduled_maintenance=bool(unscheduled), contact_ids=frozenset(contacts or ()))
