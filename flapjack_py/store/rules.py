"""Notification rules in Redis: contact_notification_rules:CID sets and notification_rule:RID hashes
(seed 004 "Notification Rules"), including the automatic general rule (engine.md 5.2)."""

from __future__ import annotations

import logging
import uuid
from collections.abc import Sequence

import redis

from flapjack_py import keys
from flapjack_py.errors import AlreadyExists, NotFound
from flapjack_py.model.rules import NotificationRule, general_rule, rule_from_hash, rule_to_hash
from flapjack_py.store.plumbing.client import StrRedis, writing

log = logging.getLogger(__name__)

AUTOMATIC_RULE_NAMESPACE = uuid.UUID("0f4e2d1c-8b7a-4e3d-9c2b-6a5f4e3d2c1b")  # automatic general rule ids


def rule_ids(client: StrRedis, contact_id: str) -> list[str]:
    """Sorted ids of a contact's notification rules."""
    return sorted(client.smembers(keys.contact_notification_rules(contact_id)))


def load_rule(client: StrRedis, rule_id: str) -> NotificationRule | None:
    """A rule by id, or None."""
    data = client.hgetall(keys.notification_rule(rule_id))
    return rule_from_hash(rule_id, data) if data else None


def load_rules_by_id(client: StrRedis, ids: Sequence[str]) -> list[NotificationRule]:
    """The existing rules among `ids`, in that order, in one round trip."""
    p = client.pipeline(transaction=False)
    for rule_id in ids:
        p.hgetall(keys.notification_rule(rule_id))
    return [rule_from_hash(rid, data) for rid, data in zip(ids, p.execute(), strict=True) if data]


def load_rules(client: StrRedis, contact_id: str, *, ensure_general: bool = True,
               pipe: redis.client.Pipeline | None = None) -> list[NotificationRule]:
    """A contact's rules; when `ensure_general` and none is general, the automatic general rule is created
    (written to `pipe` if given) and returned first."""
    rules = load_rules_by_id(client, rule_ids(client, contact_id))
    if ensure_general:
        rules = ensure_general_rule(client, contact_id, rules, pipe=pipe)
    return rules


def ensure_general_rule(client: StrRedis, contact_id: str, rules: list[NotificationRule], *,
                        pipe: redis.client.Pipeline | None = None) -> list[NotificationRule]:
    """`rules`, with a new automatic general rule saved and put first when every rule is specific.

    Its id is derived from the contact's, so executives creating it at once create one rule.
    """
    if any(not rule.is_specific for rule in rules):
        return rules
    rule = general_rule(contact_id, str(uuid.uuid5(AUTOMATIC_RULE_NAMESPACE, contact_id)))
    save_rule(client, rule, pipe=pipe)
    log.info("contact %s: automatic general rule %s created", contact_id, rule.id)
    return [rule, *rules]


def all_rule_ids(client: StrRedis, contact_ids: Sequence[str]) -> list[str]:
    """Ids of every rule of the given contacts (store.contacts.all_contact_ids: every existing contact)."""
    p = client.pipeline(transaction=False)
    for cid in contact_ids:
        p.smembers(keys.contact_notification_rules(cid))
    return [rid for members in p.execute() for rid in sorted(members) if rid]


def save_rule(client: StrRedis, rule: NotificationRule, *, pipe: redis.client.Pipeline | None = None) -> None:
    """Write a rule's hash and add it to its contact's rule set."""
    with writing(client, pipe) as p:
        p.delete(keys.notification_rule(rule.id))
        p.hset(keys.notification_rule(rule.id), mapping=rule_to_hash(rule))
        p.sadd(keys.contact_notification_rules(rule.contact_id), rule.id)


def create_rule(client: StrRedis, rule: NotificationRule, *, pipe: redis.client.Pipeline | None = None) -> None:
    """Save a new rule; raises NotFound for an unknown contact, AlreadyExists for a taken id."""
    _require_contact(client, rule.contact_id)
    if client.exists(keys.notification_rule(rule.id)):
        raise AlreadyExists(f"a notification rule already exists with id '{rule.id}'")
    save_rule(client, rule, pipe=pipe)


def delete_rule(client: StrRedis, rule_id: str, *, pipe: redis.client.Pipeline | None = None) -> None:
    """Remove a rule from its owner's set and delete its hash; raises NotFound for an unknown rule."""
    rule = _require_rule(client, rule_id)
    with writing(client, pipe) as p:
        p.srem(keys.contact_notification_rules(rule.contact_id), rule_id)
        p.delete(keys.notification_rule(rule_id))


def move_rule(client: StrRedis, rule_id: str, contact_id: str, *,
              pipe: redis.client.Pipeline | None = None) -> None:
    """Give a rule to another contact (removed from its previous owner's set); raises NotFound for an unknown rule."""
    rule = _require_rule(client, rule_id)
    with writing(client, pipe) as p:
        p.srem(keys.contact_notification_rules(rule.contact_id), rule_id)
        p.hset(keys.notification_rule(rule_id), "contact_id", contact_id)
        p.sadd(keys.contact_notification_rules(contact_id), rule_id)




def _require_contact(client: StrRedis, contact_id: str) -> None:
    if not client.hexists(keys.contact(contact_id), "first_name"):
        raise NotFound(f"could not find contact '{contact_id}'")


def _require_rule(client: StrRedis, rule_id: str) -> NotificationRule:
    rule = load_rule(client, rule_id)
    if rule is None:
        raise NotFound(f"could not find notification rule '{rule_id}'")
    return rule
