"""Escalation policies, their links to entities, and escalations of checks, in Redis.

Policies are one hash (`escalation_policies`, id -> JSON) so a batch reads them all in its first round trip.
The escalation of a check is the JSON string `escalation:E:C` (running or ended: always a plain SET, so a
batch's merged writes keep the last one) plus, while it runs, its due time in the zset `escalations_due`.
Writers take a pipeline or the executive's WriteBuffer, so a step and its alerts commit together.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from flapjack_py import keys
from flapjack_py.model.escalation import (
    InvalidPolicy,
    Policy,
    State,
    policy_from_json,
    policy_to_json,
    resolve,
    state_from_json,
    state_to_json,
)
from flapjack_py.oncall.schedules import Schedule
from flapjack_py.store.plumbing import staged
from flapjack_py.store.plumbing.client import StrRedis
from flapjack_py.store.plumbing.writes import Writes
from flapjack_py.store.schedules import known_contacts, load_schedules

log = logging.getLogger(__name__)

NOT_FAILING = ("ok", "acknowledgement", "test_notifications")
"""Notification states that cannot start an escalation."""


@dataclass
class EscalationData:
    """A batch's escalation reads: each notified check's stored escalation, the policy a problem of it would
    start, who that policy's level 1 pages now, and every contact an escalation may add (to load their details)."""

    states: dict[str, State] = field(default_factory=dict)
    policies: dict[str, Policy] = field(default_factory=dict)
    first: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def contacts_for(self, check_id: str) -> list[str]:
        state = self.states.get(check_id)
        return list(dict.fromkeys([*(state.paged if state else ()), *self.first.get(check_id, ())]))

    @property
    def contacts(self) -> list[str]:
        return list(dict.fromkeys(c for check_id in {*self.states, *self.first} for c in self.contacts_for(check_id)))


# --- the batch read -------------------------------------------------------------------


def load_batch(client: StrRedis, checks: Sequence[Any], now: int,
               watch: Callable[[list[str]], None] | None = None) -> EscalationData:
    """What escalation needs for a batch's `checks` (notify_data.NotifiedCheck): one round trip, plus one
    (two with iCalendar layers) when a policy to start pages a schedule.

    When policies or escalations exist, the checks' escalation keys are handed to `watch` and read again
    (two more round trips): a commit fails if another executive's housekeeping paged a level meanwhile.
    """
    return staged.run(client, batch_reads(client, checks, now, watch))


def batch_reads(client: StrRedis, checks: Sequence[Any], now: int,
                watch: Callable[[list[str]], None] | None = None) -> staged.Reads[EscalationData]:
    """load_batch in steps (flapjack_py.store.plumbing.staged); schedules, when a policy to start pages one, are read
    through `client` directly."""
    ids = list(dict.fromkeys(n.id for n in checks))
    names = [keys.escalation(*keys.split_check_id(i)) for i in ids]
    owners = list(dict.fromkeys([keys.ALL_ENTITIES_ID, *(n.entity_id for n in checks if _may_start(n))]))

    def first(p: Any) -> None:
        if names:
            p.mget(names)
        p.hgetall(keys.escalation_policies())
        for owner in owners:
            p.smembers(keys.escalation_policies_for(owner))

    replies = yield staged.Step(first)
    stored, policies, linked = (replies[0], replies[1], replies[2:]) if names else ([], replies[0], replies[1:])
    if watch is not None and names and (policies or any(stored)):
        watch(names)
        stored = (yield staged.Step(lambda p: p.mget(names)))[0]
    data = EscalationData(states={i: s for i, text in zip(ids, stored, strict=True) if (s := _state(i, text))})
    if not policies:
        return data
    known = _policies(policies)
    links = {owner: sorted(m for m in members) for owner, members in zip(owners, linked, strict=True)}
    for n in checks:
        policy = _policy_of(known, links.get(n.entity_id or "", []), links[keys.ALL_ENTITIES_ID])
        state = data.states.get(n.id)
        if _may_start(n) and policy is not None and (state is None or not state.running):
            data.policies[n.id] = policy
    _resolve_first(client, data, now)
    return data


def _may_start(n: Any) -> bool:
    return n.state not in NOT_FAILING and n.entity_id is not None and getattr(n, "paged", None) is None


def _policy_of(known: Mapping[str, Policy], own: Sequence[str], everyone: Sequence[str]) -> Policy | None:
    """The entity's first linked policy (by id), else ALL's; None when neither links a known one."""
    return next((known[p] for p in [*own, *everyone] if p in known), None)


def _resolve_first(client: StrRedis, data: EscalationData, now: int) -> None:
    names = {t.id for p in data.policies.values() for t in p.levels[0].targets if t.kind == "schedule"}
    schedules = {s.id: s for s in load_schedules(client, sorted(names))} if names else {}
    contacts = known_contacts(client) if any(_has_ical(s) for s in schedules.values()) else {}
    resolved: dict[str, tuple[str, ...]] = {}  # by policy: a batch resolves each schedule once
    for check_id, policy in data.policies.items():
        if policy.id not in resolved:
            resolved[policy.id] = resolve(policy.levels[0], schedules, now, contacts)
        data.first[check_id] = resolved[policy.id]


def _has_ical(schedule: Schedule) -> bool:
    return any(layer.ical for layer in schedule.layers)


def resolve_level(client: StrRedis, policy: Policy, step: int, now: int) -> tuple[str, ...]:
    """Who step `step` of `policy` pages at `now` (schedules read now)."""
    level = policy.level_of(step)
    names = sorted({t.id for t in level.targets if t.kind == "schedule"})
    schedules = {s.id: s for s in load_schedules(client, names)} if names else {}
    contacts = known_contacts(client) if any(_has_ical(s) for s in schedules.values()) else {}
    return resolve(level, schedules, now, contacts)


# --- policies and links -------------------------------------------------------------


def save_policy(client: StrRedis, policy: Policy) -> None:
    """Store (or replace) a policy."""
    client.hset(keys.escalation_policies(), policy.id, json.dumps(policy_to_json(policy)))


def load_policies(client: StrRedis, ids: Iterable[str] | None = None) -> list[Policy]:
    """The policies with `ids` (default: all, by id); unknown or damaged ones are left out."""
    known = _policies(client.hgetall(keys.escalation_policies()))
    wanted = sorted(known) if ids is None else list(ids)
    return [known[i] for i in wanted if i in known]


def delete_policy(client: StrRedis, policy_id: str) -> None:
    """Remove a policy and its links (running escalations under it end at their next step)."""
    owners = [m for m in client.smembers(keys.escalation_policy_entities(policy_id))]
    with client.pipeline() as pipe:
        pipe.hdel(keys.escalation_policies(), policy_id)
        pipe.delete(keys.escalation_policy_entities(policy_id))
        for owner in owners:
            pipe.srem(keys.escalation_policies_for(owner), policy_id)
        pipe.execute()


def link(client: StrRedis, entity_id: str, policy_ids: Iterable[str]) -> None:
    """Link an entity (or ALL) to policies."""
    _set_links(client, entity_id, list(policy_ids), linked=True)


def unlink(client: StrRedis, entity_id: str, policy_ids: Iterable[str]) -> None:
    """Unlink an entity (or ALL) from policies."""
    _set_links(client, entity_id, list(policy_ids), linked=False)


def _set_links(client: StrRedis, entity_id: str, ids: list[str], *, linked: bool) -> None:
    """Add (or remove) the links entity -> policies and policy -> entity, both ways in one pipeline."""
    if not ids:
        return
    with client.pipeline() as pipe:
        change = pipe.sadd if linked else pipe.srem
        change(keys.escalation_policies_for(entity_id), *ids)
        for policy_id in ids:
            change(keys.escalation_policy_entities(policy_id), entity_id)
        pipe.execute()


def linked_policy_ids(client: StrRedis, entity_id: str) -> list[str]:
    """The policy ids an entity links to, sorted."""
    return sorted(i for i in client.smembers(keys.escalation_policies_for(entity_id)))


def linked_for_entities(client: StrRedis, entity_ids: Iterable[str]) -> dict[str, list[str]]:
    """entity id -> the policy ids it links to (sorted), in one round trip."""
    ids = list(entity_ids)
    with client.pipeline(transaction=False) as pipe:
        for entity_id in ids:
            pipe.smembers(keys.escalation_policies_for(entity_id))
        found = pipe.execute()
    return {e: sorted(m for m in members) for e, members in zip(ids, found, strict=True)}


def entities_linked_to(client: StrRedis, policy_id: str) -> list[str]:
    """Entity ids (and ALL) linked to a policy, sorted."""
    return sorted(m for m in client.smembers(keys.escalation_policy_entities(policy_id)))


def policy_for_entity(client: StrRedis, entity_id: str | None) -> Policy | None:
    """The policy a problem of the entity's checks starts: the entity's first (by id), else ALL's; or None."""
    known = {p.id: p for p in load_policies(client)}
    own = linked_policy_ids(client, entity_id) if entity_id else []
    return _policy_of(known, own, linked_policy_ids(client, keys.ALL_ENTITIES_ID))


# --- escalations of checks -------------------------------------------------------------


def load_state(client: StrRedis, entity: str, check: str) -> State | None:
    """The escalation (running or ended) of `E:C`, or None."""
    return _state(keys.check_id(entity, check), client.get(keys.escalation(entity, check)))


def save_state(pipe: Writes, entity: str, check: str, state: State) -> None:
    """Record the escalation, and when its next step is due (none once it ended or paged its last level)."""
    pipe.set(keys.escalation(entity, check), json.dumps(state_to_json(state)))
    if state.next_at is None:
        pipe.zrem(keys.escalations_due(), keys.check_id(entity, check))
    else:
        pipe.zadd(keys.escalations_due(), {keys.check_id(entity, check): state.next_at})


def escalate_now(client: StrRedis, entity: str, check: str, now: int) -> bool:
    """Make a running escalation's next step due at `now` (the executive pages it at its next look, as any due
    step); False when no escalation runs for the check or it paged its last level."""
    state = load_state(client, entity, check)
    if state is None or not state.running or state.next_at is None:
        return False
    pipe = client.pipeline(transaction=True)
    save_state(pipe, entity, check, replace(state, next_at=min(now, state.next_at)))
    pipe.execute()
    return True


def forget_due(pipe: Writes, entity: str, check: str) -> None:
    """`E:C` has no step due (its escalation is over or gone)."""
    pipe.zrem(keys.escalations_due(), keys.check_id(entity, check))


def due(client: StrRedis, now: int, most: int = 100) -> list[str]:
    """E:C ids whose next escalation step is due at `now`, oldest first."""
    return [m for m in client.zrangebyscore(keys.escalations_due(), "-inf", now, start=0, num=most)]


def _state(check_id: str, text: str | None) -> State | None:
    if not text:
        return None
    try:
        return state_from_json(json.loads(text))
    except (ValueError, KeyError, TypeError):
        log.exception("%s: damaged escalation state ignored", check_id)
        return None


def _policies(stored: Mapping[Any, Any]) -> dict[str, Policy]:
    found = {}
    for policy_id, text in stored.items():
        try:
            found[policy_id] = policy_from_json(json.loads(text), policy_id)
        except (InvalidPolicy, ValueError):
            log.exception("escalation policy %s is damaged and ignored", policy_id)
    return found
