"""What the notifier reads for a batch of notifications, in a fixed number of round trips (engine.md 5.1-5.4).

Contacts of the notified checks, their details and rules, the drop keys that
could hold their media back, the alerting sets of media with a rollup
threshold, and the facts of every check those sets (or the batch) name.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from flapjack_py import keys
from flapjack_py.model.alerting import AlertingSet, CheckFacts
from flapjack_py.model.contacts import ContactDetails
from flapjack_py.model.incidents import Head
from flapjack_py.model.rules import NotificationRule, rule_from_hash
from flapjack_py.store import incidents as incident_store
from flapjack_py.store import paged as paged_store
from flapjack_py.store.contacts import contact_details_reads
from flapjack_py.store.escalation import EscalationData, batch_reads
from flapjack_py.store.plumbing import staged
from flapjack_py.store.plumbing.client import StrRedis
from flapjack_py.store.rollup import FAILURE_STATES, check_facts_reads

DropKeys = tuple[str, str, str, str]
"""The drop_alerts_for_contact keys of a contact, medium, check and state (drop_keys)."""

MGET_CHUNK = 5000
"""Drop keys per MGET (keeps each command's reply small enough not to stall Redis)."""
RULES_PARSED = 4096
"""Parsed notification rules kept by the content they were parsed from."""


@dataclass(frozen=True)
class NotifiedCheck:
    """One notification's check as the loader needs it."""

    entity: str
    entity_id: str | None  # None: the entity has no id (so no contacts of its own)
    check: str
    state: str  # the notification's state (names the per-state drop key)
    paged: tuple[str, ...] | None = None  # an escalation step's contacts: only they are alerted
    recovery: bool = False  # a recovery: who was paged for the episode is read (store/paged.py)
    group: str | None = None  # its incident group (model/incidents.py), None: not grouped

    @functools.cached_property
    def id(self) -> str:  # made once: a batch's reads ask it ~20 times per check
        return keys.check_id(self.entity, self.check)


@dataclass
class NotifyData:
    """A batch's notifier reads: contacts per check (in engine.md 5.1 order), contact details, rules by id,
    the drop keys that exist, alerting sets and check facts."""

    contact_ids: dict[str, list[str]] = field(default_factory=dict)
    contacts: dict[str, ContactDetails] = field(default_factory=dict)
    rules: dict[str, NotificationRule] = field(default_factory=dict)
    drops: set[str] = field(default_factory=set)
    alerting: dict[tuple[str, str], AlertingSet] = field(default_factory=dict)
    facts: dict[str, CheckFacts] = field(default_factory=dict)
    escalation: EscalationData = field(default_factory=EscalationData)
    drop_keys: dict[tuple[str, str, str, str], DropKeys] = field(default_factory=dict)  # drop_keys() by arguments
    paged: dict[str, list[paged_store.Pair]] = field(default_factory=dict)  # recovering check -> who was paged
    incidents: dict[str, Head] = field(default_factory=dict)  # incident group -> its live state


def drop_keys(contact_id: str, medium: str, check_id: str, state: str) -> DropKeys:
    """The four drop_alerts_for_contact keys that hold back a medium (engine.md 5.2 step 5)."""
    return (keys.drop_alerts_for_contact(contact_id), keys.drop_alerts_for_contact(contact_id, medium),
            keys.drop_alerts_for_contact(contact_id, medium, check_id),
            keys.drop_alerts_for_contact(contact_id, medium, check_id, state))


def interval_keys(contact_id: str, medium: str, check_id: str) -> tuple[str, ...]:
    """The per-state interval keys of a check on a contact medium that a recovery or acknowledgement resets."""
    return tuple(keys.drop_alerts_for_contact(contact_id, medium, check_id, s) for s in FAILURE_STATES)


def load_notify_data(client: StrRedis, checks: Sequence[NotifiedCheck],
                     watch: Callable[[list[str]], None] | None = None, now: int = 0,
                     also: staged.Reads[Any] | None = None) -> NotifyData:
    """Everything the notifier reads for `checks`, in three round trips whatever their number (five when
    contacts' alerting sets name other checks; escalation policies: up to three more,
    flapjack_py.store.escalation.batch_reads). `also`, the caller's own reads, are made in the same round
    trips, and done when this returns.

    `watch` is called with the contact-level keys shared across checks (alerting sets and drop_rollup
    keys of media with a rollup threshold) just before they are read: the executive WATCHes them so
    that its commit fails if another executive changed them meanwhile.
    """
    return staged.run(client, notify_data_reads(client, checks, watch, now, also))


def notify_data_reads(client: StrRedis, checks: Sequence[NotifiedCheck], watch: Callable[[list[str]], None] | None,
                      now: int, also: staged.Reads[Any] | None = None) -> staged.Reads[NotifyData]:
    """load_notify_data in steps: contacts (ids, then details, then rules, drops and alerting sets) together
    with the checks' facts and `also`; then the facts of the checks the alerting sets name."""
    people, facts, _ = yield from staged.together(_people(client, checks, watch, now),
                                                check_facts_reads(n.id for n in checks), also or _nothing())
    data: NotifyData = people
    members = sorted({m for alerting in data.alerting.values() for m in alerting.members} - set(facts))
    data.facts = {**facts, **(yield from check_facts_reads(members))}
    return data


def _nothing() -> staged.Reads[None]:
    return None
    yield  # a generator that reads nothing


def _people(client: StrRedis, checks: Sequence[NotifiedCheck], watch: Callable[[list[str]], None] | None,
            now: int) -> staged.Reads[NotifyData]:
    """Contact ids and escalations, then contact details, then rules, drop keys and alerting sets."""
    contact_ids, escalation, paged, heads = yield from staged.together(
        _contact_ids(checks), batch_reads(client, checks, now, watch),
        paged_store.batch_reads([n.id for n in checks if n.recovery]),
        incident_store.heads_reads([n.group for n in checks if n.group is not None], watch))
    data = NotifyData(contact_ids=contact_ids, escalation=escalation, paged=paged, incidents=heads)
    wanted = dict.fromkeys([*(cid for ids in data.contact_ids.values() for cid in ids), *data.escalation.contacts,
                            *(cid for pairs in paged.values() for cid, _ in pairs),
                            *(cid for head in heads.values() for pairs in head.paged.values() for cid, _ in pairs)])
    data.contacts = {d.contact.id: d for d in (yield from contact_details_reads(list(wanted)))}
    for check_id, ids in data.contact_ids.items():
        data.contact_ids[check_id] = [cid for cid in ids if cid in data.contacts]
    yield from _rules_drops_sets(checks, data, watch)
    return data


def _contact_ids(checks: Sequence[NotifiedCheck]) -> staged.Reads[dict[str, list[str]]]:
    """Contact ids per check: contacts_for:EID, contacts_for:ALL, contacts_for:EID:C (each sorted), deduplicated."""
    sets = [keys.contacts_for(keys.ALL_ENTITIES_ID)]
    for n in checks:
        if n.entity_id is not None:
            sets += [keys.contacts_for(n.entity_id), keys.contacts_for(n.entity_id, n.check)]
    sets = list(dict.fromkeys(sets))

    def queue(p: Any) -> None:
        for key in sets:
            p.smembers(key)

    replies = yield staged.Step(queue)
    members = {key: sorted(found) for key, found in zip(sets, replies, strict=True)}
    everyone = members[keys.contacts_for(keys.ALL_ENTITIES_ID)]
    found: dict[str, list[str]] = {}
    for n in checks:
        if n.paged is not None:
            found[n.id] = list(n.paged)
            continue
        own = (members[keys.contacts_for(n.entity_id)], members[keys.contacts_for(n.entity_id, n.check)]) \
            if n.entity_id is not None else ([], [])
        found[n.id] = list(dict.fromkeys([*own[0], *everyone, *own[1]]))
    return found


def _rules_drops_sets(checks: Sequence[NotifiedCheck], data: NotifyData,
                      watch: Callable[[list[str]], None] | None) -> staged.Reads[None]:
    """Rules, drop keys and alerting sets in one step (for every medium of every contact: a superset)."""
    rule_ids = list(dict.fromkeys(rid for d in data.contacts.values() for rid in d.rule_ids))
    drops = _drop_candidates(checks, data)
    pairs = [(cid, m.type) for cid, d in data.contacts.items() for m in d.media.values()
             if m.effective_rollup_threshold is not None]
    if watch is not None and pairs:
        watch([k for cid, m in pairs
               for k in (keys.contact_alerting_checks(cid, m), keys.drop_rollup_alerts_for_contact(cid, m))])

    def queue(p: Any) -> None:
        for rid in rule_ids:
            p.hgetall(keys.notification_rule(rid))
        for i in range(0, len(drops), MGET_CHUNK):
            p.mget(drops[i:i + MGET_CHUNK])
        for cid, medium in pairs:
            p.zrange(keys.contact_alerting_checks(cid, medium), 0, -1, withscores=True)
            p.exists(keys.drop_rollup_alerts_for_contact(cid, medium))

    replies = yield staged.Step(queue)
    data.rules = {rid: _rule(rid, tuple(h.items())) for rid, h in zip(rule_ids, replies, strict=False) if h}
    values = [v for chunk in replies[len(rule_ids):len(replies) - 2 * len(pairs)] for v in chunk]
    data.drops = {key for key, value in zip(drops, values, strict=True) if value is not None}
    sets = replies[len(replies) - 2 * len(pairs):]
    data.alerting = {pair: AlertingSet(members=dict(sets[2 * i]), drop_rollup=bool(sets[2 * i + 1]))
                     for i, pair in enumerate(pairs)}


@functools.lru_cache(maxsize=RULES_PARSED)
def _rule(rule_id: str, stored: tuple[tuple[str, str], ...]) -> NotificationRule:
    """A rule parsed from its hash as read (its JSON lists parsed once per content, not once per batch).

    The rule is frozen and nothing changes its lists; a rule whose hash changed is a new key here."""
    return rule_from_hash(rule_id, dict(stored))


def _drop_candidates(checks: Sequence[NotifiedCheck], data: NotifyData) -> list[str]:
    """The drop keys of every medium of the checks' contacts, each once; `data.drop_keys` keeps each
    medium's four for the notifier (a contact's and contact medium's keys made once per batch)."""
    found: dict[str, None] = {}
    contact_keys: dict[tuple[str, str], tuple[str, str]] = {}
    for n in checks:
        for cid in dict.fromkeys([*data.contact_ids[n.id], *data.escalation.contacts_for(n.id),
                                  *(c for c, _ in data.paged.get(n.id, ()))]):
            details = data.contacts.get(cid)
            for medium in details.media if details is not None else ():
                shared = contact_keys.get((cid, medium))
                if shared is None:
                    shared = contact_keys[(cid, medium)] = (keys.drop_alerts_for_contact(cid),
                                                            keys.drop_alerts_for_contact(cid, medium))
                own = (*shared, keys.drop_alerts_for_contact(cid, medium, n.id),
                       keys.drop_alerts_for_contact(cid, medium, n.id, n.state))
                data.drop_keys[(cid, medium, n.id, n.state)] = own
                found.update(dict.fromkeys(own))
    return list(found)
