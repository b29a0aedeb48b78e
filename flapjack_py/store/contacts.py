"""Contacts in Redis: contact hash, time zone and contact tags (seed 004 "Contacts"); their media and
PagerDuty credentials live in store/media.py, their rules in store/rules.py.

Used by the notifier and the JSON API. Every function takes a client (bytes or
str replies; reads are decoded here) and writes take an optional pipeline:
with one, writes are queued on it for the caller to execute; without, they
run at once in their own MULTI. A contact exists when `contact:ID` has a
`first_name` field (Flapjack 1.x).
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import redis

from flapjack_py import keys
from flapjack_py.errors import AlreadyExists, NotFound, ValidationError
from flapjack_py.model.contacts import Contact, ContactDetails
from flapjack_py.model.contacts import Medium as Medium
from flapjack_py.model.rules import general_rule
from flapjack_py.model.time_restrictions import is_valid_zone
from flapjack_py.store.media import media_from, replace_media
from flapjack_py.store.plumbing import scripts, staged
from flapjack_py.store.plumbing.client import StrRedis, writing
from flapjack_py.store.rules import save_rule

log = logging.getLogger(__name__)

CONTACT_FIELDS = ("first_name", "last_name", "email")
CONTACTS_CHUNK = 100
"""Contacts per CONTACT_DETAILS call (bounds how long one call holds Redis)."""
"""Fields of the contact:ID hash."""






# --- contacts ------------------------------------------------------------


def contact_exists(client: StrRedis, contact_id: str) -> bool:
    """True when contact:ID has a first_name."""
    return bool(client.hexists(keys.contact(contact_id), "first_name"))


def contact_key_exists(client: StrRedis, contact_id: str) -> bool:
    """True when a contact:ID key exists at all (the API's 409 test)."""
    return bool(client.exists(keys.contact(contact_id)))


def load_contact(client: StrRedis, contact_id: str) -> Contact | None:
    """The contact, or None when it does not exist."""
    found = load_contacts(client, [contact_id])
    return found[0] if found else None


def load_contacts(client: StrRedis, contact_ids: Sequence[str]) -> list[Contact]:
    """The existing contacts among `contact_ids`, in that order (unknown ids dropped), in one round trip."""
    pipe = client.pipeline(transaction=False)
    for cid in contact_ids:
        pipe.hgetall(keys.contact(cid))
        pipe.get(keys.contact_tz(cid))
    replies = pipe.execute()
    contacts = []
    for i, cid in enumerate(contact_ids):
        data, tz = replies[2 * i], replies[2 * i + 1]
        if "first_name" in data:
            contacts.append(_contact_from(cid, data, tz))
    return contacts


def all_contact_ids(client: StrRedis) -> list[str]:
    """Ids of every existing contact (unordered; empty ids skipped)."""
    prefix = keys.contact("")
    ids = [key[len(prefix):] for key in client.scan_iter(match=keys.contact_pattern(), count=1000)]
    return [cid for cid in ids if cid and client.type(keys.contact(cid)) == "hash"]


def list_contacts(client: StrRedis) -> list[Contact]:
    """Every existing contact sorted by (last_name, first_name), null as ''."""
    contacts = load_contacts(client, all_contact_ids(client))
    return sorted(contacts, key=lambda c: (c.last_name or "", c.first_name or "", c.id))


def create_contact(client: StrRedis, data: Mapping[str, Any], *, pipe: redis.client.Pipeline | None = None) -> str:
    """Create a contact from API/import fields; return its id (a new UUID when `id` is absent).

    Fields: id, first_name (stored as '' when missing), last_name, email, timezone
    (unknown zones ignored), media (legacy object: replaces media and PagerDuty
    credentials). Creates the automatic general rule. Raises AlreadyExists when
    contact:ID exists.
    """
    contact_id = str(data["id"]) if data.get("id") is not None else str(uuid.uuid4())
    if contact_key_exists(client, contact_id):
        raise AlreadyExists(f"contact {contact_id} already exists")
    fields = {name: str(data.get(name)) for name in CONTACT_FIELDS if data.get(name) is not None}
    fields.setdefault("first_name", "")
    with writing(client, pipe) as p:
        p.hset(keys.contact(contact_id), mapping=fields)
        if data.get("timezone") is not None:
            set_timezone(client, contact_id, data["timezone"], pipe=p)
        if data.get("media") is not None:
            replace_media(client, contact_id, data["media"], pipe=p)
        save_rule(client, general_rule(contact_id), pipe=p)
    log.info("contact %s created", contact_id)
    return contact_id


def update_contact(client: StrRedis, contact_id: str, *, pipe: redis.client.Pipeline | None = None,
                   **fields: Any) -> None:
    """Set first_name/last_name/email (None removes the field) and/or timezone (None removes, unknown ignored)."""
    _require_contact(client, contact_id)
    with writing(client, pipe) as p:
        for name, value in fields.items():
            if name == "timezone":
                set_timezone(client, contact_id, value, pipe=p)
            elif name not in CONTACT_FIELDS:
                raise ValidationError(f"unknown contact field {name!r}")
            elif value is None:
                p.hdel(keys.contact(contact_id), name)
            else:
                p.hset(keys.contact(contact_id), name, str(value))


def delete_contact(client: StrRedis, contact_id: str, *, pipe: redis.client.Pipeline | None = None) -> None:
    """Delete a contact entirely: rules, contacts_for:* memberships, drop/rollup keys, media, tz, PagerDuty, tags."""
    rule_ids = client.smembers(keys.contact_notification_rules(contact_id))
    sets = [k for k in client.scan_iter(match=keys.contacts_for_pattern(), count=1000) if client.type(k) == "set"]
    tag_sets = list(client.scan_iter(match=keys.contact_tag("*"), count=1000))
    extra = [k for pattern in (keys.drop_alerts_for_contact(contact_id) + "*",
                               keys.drop_rollup_alerts_for_contact(contact_id, "*"),
                               keys.contact_alerting_checks(contact_id, "*"))
             for k in client.scan_iter(match=pattern, count=1000)]
    with writing(client, pipe) as p:
        for rule_id in rule_ids:
            p.delete(keys.notification_rule(rule_id))
        for key in sets + tag_sets:
            p.srem(key, contact_id)
        p.delete(keys.contact(contact_id), keys.contact_media(contact_id), keys.contact_media_intervals(contact_id),
                 keys.contact_media_rollup_thresholds(contact_id), keys.contact_tz(contact_id),
                 keys.contact_pagerduty(contact_id), keys.contact_notification_rules(contact_id), *extra)
    log.info("contact %s deleted", contact_id)


def load_timezone(client: StrRedis, contact_id: str) -> str | None:
    """The contact's stored time zone name, or None."""
    return client.get(keys.contact_tz(contact_id)) or None


def set_timezone(client: StrRedis, contact_id: str, zone: str | None, *,
                 pipe: redis.client.Pipeline | None = None) -> bool:
    """Store a time zone (None removes it); an unknown zone is ignored. Return True when stored/removed."""
    with writing(client, pipe) as p:
        if zone is None:
            p.delete(keys.contact_tz(contact_id))
            return True
        if not is_valid_zone(zone):
            log.info("contact %s: unknown time zone %r ignored", contact_id, zone)
            return False
        p.set(keys.contact_tz(contact_id), zone)
    return True


# --- contact tags --------------------------------------------------------


def add_contact_tags(client: StrRedis, contact_id: str, tags: Iterable[str], *,
                     pipe: redis.client.Pipeline | None = None) -> None:
    """Add the contact to contact_tag:TAG for each tag."""
    with writing(client, pipe) as p:
        for tag in tags:
            p.sadd(keys.contact_tag(tag), contact_id)


def remove_contact_tags(client: StrRedis, contact_id: str, tags: Iterable[str], *,
                        pipe: redis.client.Pipeline | None = None) -> None:
    """Remove the contact from contact_tag:TAG for each tag."""
    with writing(client, pipe) as p:
        for tag in tags:
            p.srem(keys.contact_tag(tag), contact_id)


def contact_tags(client: StrRedis, contact_id: str) -> list[str]:
    """Sorted tags of a contact (scans contact_tag:*)."""
    prefix = keys.contact_tag("")
    return sorted(k[len(prefix):] for k in client.scan_iter(match=keys.contact_tag("*"), count=1000)
                  if client.sismember(k, contact_id))


# --- the notifier's batched read -----------------------------------------


def load_contact_details(client: StrRedis, contact_ids: Sequence[str]) -> list[ContactDetails]:
    """Contact, media (with intervals and thresholds) and rule ids of the existing contacts among
    `contact_ids`, in order, de-duplicated, in one round trip."""
    return staged.run(client, contact_details_reads(contact_ids))


def contact_details_reads(contact_ids: Sequence[str]) -> staged.Reads[list[ContactDetails]]:
    """load_contact_details as one step (flapjack_py.store.plumbing.staged): one CONTACT_DETAILS call per
    CONTACTS_CHUNK contacts."""
    ids = list(dict.fromkeys(contact_ids))
    calls: list[tuple[list[str], list[str]]] = [([key for cid in ids[first:first + CONTACTS_CHUNK] for key in _details_keys(cid)], [])
             for first in range(0, len(ids), CONTACTS_CHUNK)]
    per_call = (yield from staged.script(scripts.CONTACT_DETAILS, calls)) if ids else []
    replies = [reply for replies in per_call for reply in replies]
    found = []
    for cid, (data, media, intervals, thresholds, tz, rules) in zip(ids, replies, strict=True):
        fields = _pairs(data)
        if "first_name" not in fields:
            continue
        found.append(ContactDetails(contact=_contact_from(cid, fields, tz),
                                    media=media_from(cid, _pairs(media), _pairs(intervals), _pairs(thresholds)),
                                    rule_ids=tuple(sorted(rules))))
    return found


def _details_keys(cid: str) -> tuple[str, ...]:
    return (keys.contact(cid), keys.contact_media(cid), keys.contact_media_intervals(cid),
            keys.contact_media_rollup_thresholds(cid), keys.contact_tz(cid), keys.contact_notification_rules(cid))


def _pairs(flat: list[str]) -> dict[str, str]:
    """An HGETALL's flat field, value array as a dict."""
    return dict(zip(flat[::2], flat[1::2], strict=True))


# --- private helpers -----------------------------------------------------


def _require_contact(client: StrRedis, contact_id: str) -> None:
    if not contact_exists(client, contact_id):
        raise NotFound(f"could not find contact '{contact_id}'")


def _contact_from(contact_id: str, data: Mapping[str, str], tz: str | None) -> Contact:
    return Contact(id=contact_id, first_name=data.get("first_name"), last_name=data.get("last_name"),
                   email=data.get("email"), timezone=tz or None)


# --- JSON API helpers ----------------------------------------------------


def create_contacts(client: StrRedis, items: Sequence[Mapping[str, Any]]) -> list[str]:
    """Create several contacts (create_contact fields) in one MULTI; return their ids in order.

    Raises AlreadyExists, naming every supplied id whose contact:ID key exists or
    that is repeated in `items`, before anything is written.
    """
    ids = [str(item["id"]) if item.get("id") is not None else str(uuid.uuid4()) for item in items]
    taken = [cid for cid in dict.fromkeys(ids) if ids.count(cid) > 1 or contact_key_exists(client, cid)]
    if taken:
        raise AlreadyExists(f"Contacts already exist with the following IDs: {', '.join(taken)}")
    with writing(client, None) as p:
        for item, cid in zip(items, ids, strict=True):
            create_contact(client, {**item, "id": cid}, pipe=p)
    return ids


def contact_links(client: StrRedis, contact_ids: Sequence[str]) -> dict[str, tuple[list[str], list[str]]]:
    """contact id -> (media types other than pagerduty in hash order, sorted rule ids), in one round trip."""
    p = client.pipeline(transaction=False)
    for cid in contact_ids:
        p.hkeys(keys.contact_media(cid))
        p.smembers(keys.contact_notification_rules(cid))
    replies = p.execute()
    return {cid: ([m for m in replies[2 * i] if m != "pagerduty"], sorted(replies[2 * i + 1]))
            for i, cid in enumerate(contact_ids)}
