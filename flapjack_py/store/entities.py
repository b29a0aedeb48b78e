"""Entities in Redis: id <-> name maps, create/rename/merge, contacts_for:* sets, entity tags and the
known_tag:entity_tag index, listing (seed 004 "Entities and Checks", "All checks and entities").

Used by the notifier (contacts of a check, engine.md 5.1), the JSON API and
import. Functions take the str client; writes take an optional pipeline
like flapjack_py.store.contacts.
"""

from __future__ import annotations

import hashlib
import logging
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import redis

from flapjack_py import keys
from flapjack_py.errors import NotFound
from flapjack_py.store.plumbing.client import StrRedis, writing

log = logging.getLogger(__name__)

_CHECK_KEY_KINDS = ("scheduled", "unscheduled")


@dataclass(frozen=True)
class Entity:
    """An entity: id, name, its contact ids (contacts_for:ID), check ids (E:C) and whether it is current."""

    id: str
    name: str
    contacts: list[str] = field(default_factory=list)
    checks: list[str] = field(default_factory=list)
    enabled: bool = False


# --- ids and names -------------------------------------------------------


def entity_id(client: StrRedis, name: str) -> str | None:
    """The id of the entity named `name`, or None."""
    return client.hget(keys.entity_ids_by_name(), name) or None


def entity_name(client: StrRedis, entity_id_: str) -> str | None:
    """The name of entity `entity_id_`, or None."""
    return client.hget(keys.entity_names_by_id(), entity_id_) or None


def all_entity_names(client: StrRedis) -> dict[str, str]:
    """Every entity id -> name."""
    return dict(client.hgetall(keys.entity_names_by_id()))


def list_entities(client: StrRedis, enabled: bool | None = None) -> list[Entity]:
    """Every entity with an id, sorted by name; `enabled` True/False keeps only current/not current ones."""
    names = all_entity_names(client)
    ids = sorted((eid for eid in names if eid), key=lambda eid: (names[eid], eid))
    entities = load_entities(client, ids)
    if enabled is None:
        return entities
    return [e for e in entities if e.enabled is enabled]


def load_entity(client: StrRedis, entity_id_: str) -> Entity | None:
    """One entity, or None."""
    found = load_entities(client, [entity_id_])
    return found[0] if found else None


def load_entities(client: StrRedis, ids: Sequence[str]) -> list[Entity]:
    """The known entities among `ids`, in order (unknown dropped), in two round trips."""
    p = client.pipeline(transaction=False)
    for eid in ids:
        p.hget(keys.entity_names_by_id(), eid)
    names = p.execute()
    known = [(eid, name) for eid, name in zip(ids, names, strict=True) if name is not None]
    for eid, name in known:
        p.smembers(keys.contacts_for(eid))
        p.zrange(keys.all_checks_for(name), 0, -1)
        p.zrange(keys.current_checks(name), 0, -1)
        p.zscore(keys.current_entities(), name)
    replies = p.execute()
    entities = []
    for i, (eid, name) in enumerate(known):
        contacts, all_checks, current, score = replies[4 * i:4 * i + 4]
        checks = sorted(set(all_checks) | set(current))
        entities.append(Entity(id=eid, name=name, contacts=sorted(contacts),
                               checks=[keys.check_id(name, c_) for c_ in checks], enabled=score is not None))
    return entities


def entity_check_names(client: StrRedis, name: str) -> list[str]:
    """Sorted names of every check ever seen or current on the entity named `name`."""
    return sorted(set(client.zrange(keys.all_checks_for(name), 0, -1)) | set(client.zrange(keys.current_checks(name), 0, -1)))


# --- create, import, rename, merge ---------------------------------------


def save_entity(client: StrRedis, entity_id_: str, name: str) -> None:
    """Create or reconcile the id <-> name mapping (api-v1.md 8.2).

    New id: mapped to `name` (another id that held the name is dropped from the
    id map). Known id, same name: nothing. Known id, other name: rename_entity.
    """
    current = entity_name(client, entity_id_)
    if current == name:
        return
    if current is not None:
        rename_entity(client, entity_id_, name)
        return
    previous_id = entity_id(client, name)
    with writing(client, None) as p:
        if previous_id is not None:
            p.hdel(keys.entity_names_by_id(), previous_id)
        p.hset(keys.entity_ids_by_name(), name, entity_id_)
        p.hset(keys.entity_names_by_id(), entity_id_, name)
    log.info("entity %s created (id %s)", name, entity_id_)


def import_entity(client: StrRedis, entity_id_: str, name: str, contacts: Sequence[str] | None,
                  tags: Iterable[str] = ()) -> None:
    """Upsert an entity as POST /entities and `flapjack import entities` do.

    The contact set is replaced by the listed ids that exist as contacts (None
    clears it); tags are added, never removed.
    """
    save_entity(client, entity_id_, name)
    set_entity_contacts(client, entity_id_, contacts or [])
    add_entity_tags(client, entity_id_, tags)


def rename_entity(client: StrRedis, entity_id_: str, new_name: str) -> None:
    """Rename an entity, moving every per-check key to the new name; merge when another entity has that name.

    After a merge this entity's id takes over the name and the other id is
    dropped from the id maps. Raises NotFound for an unknown id.
    """
    old_name = entity_name(client, entity_id_)
    if old_name is None:
        raise NotFound(f"could not find entity '{entity_id_}'")
    if old_name == new_name:
        return
    other_id = entity_id(client, new_name)
    _move_check_data(client, old_name, new_name)
    with writing(client, None) as p:
        p.hdel(keys.entity_ids_by_name(), old_name)
        if other_id is not None and other_id != entity_id_:
            p.hdel(keys.entity_names_by_id(), other_id)
        p.hset(keys.entity_ids_by_name(), new_name, entity_id_)
        p.hset(keys.entity_names_by_id(), entity_id_, new_name)
    log.info("entity %s (id %s) %s %s", old_name, entity_id_, "merged into" if other_id else "renamed to", new_name)


# --- contacts of entities and checks -------------------------------------


def set_entity_contacts(client: StrRedis, entity_id_: str, contact_ids: Iterable[str]) -> None:
    """Replace contacts_for:ID with the listed ids that exist as contacts."""
    existing = _existing_contacts(client, contact_ids)
    with writing(client, None) as p:
        p.delete(keys.contacts_for(entity_id_))
        if existing:
            p.sadd(keys.contacts_for(entity_id_), *existing)


def add_entity_contacts(client: StrRedis, entity_id_: str, contact_ids: Iterable[str], check: str | None = None,
                        *, pipe: redis.client.Pipeline | None = None) -> None:
    """Add contacts (existing ones only) to contacts_for:ID, or contacts_for:ID:CHECK when `check` is given."""
    existing = _existing_contacts(client, contact_ids)
    if existing:
        with writing(client, pipe) as p:
            p.sadd(keys.contacts_for(entity_id_, check), *existing)


def remove_entity_contacts(client: StrRedis, entity_id_: str, contact_ids: Iterable[str],
                           check: str | None = None, *, pipe: redis.client.Pipeline | None = None) -> None:
    """Remove contacts from contacts_for:ID (or contacts_for:ID:CHECK)."""
    ids = list(contact_ids)
    if ids:
        with writing(client, pipe) as p:
            p.srem(keys.contacts_for(entity_id_, check), *ids)


def contact_ids_for_entity(client: StrRedis, entity_id_: str) -> list[str]:
    """Sorted members of contacts_for:ID."""
    return sorted(client.smembers(keys.contacts_for(entity_id_)))


def contact_ids_for_check(client: StrRedis, entity: str, check: str | None = None) -> list[str]:
    """Existing contacts of a check (engine.md 5.1): contacts_for:EID, then contacts_for:ALL, then
    contacts_for:EID:C; de-duplicated keeping the first occurrence. Without `check`, the entity's."""
    eid = entity_id(client, entity)
    p = client.pipeline(transaction=False)
    if eid is not None:
        p.smembers(keys.contacts_for(eid))
    p.smembers(keys.contacts_for(keys.ALL_ENTITIES_ID))
    if eid is not None and check is not None:
        p.smembers(keys.contacts_for(eid, check))
    ids = [cid for members in p.execute() for cid in sorted(members)]
    return _existing_contacts(client, dict.fromkeys(ids))


def entity_ids_for_contact(client: StrRedis, contact_id: str) -> list[str]:
    """Ids of entities a contact is registered for (entity or per-check sets), `ALL` excluded, sorted."""
    prefix = keys.contacts_for("")
    found = set()
    for key in client.scan_iter(match=keys.contacts_for_pattern(), count=1000):
        eid = key[len(prefix):].split(":", 1)[0]
        if eid != keys.ALL_ENTITIES_ID and client.sismember(key, contact_id):
            found.add(eid)
    return sorted(found)


# --- entity tags ---------------------------------------------------------


def entity_tags(client: StrRedis, entity_id_: str) -> list[str]:
    """Sorted tags of an entity (members of known_tag:entity_tag whose entity_tag:TAG holds the id)."""
    tags = sorted(client.smembers(keys.known_entity_tags()))
    p = client.pipeline(transaction=False)
    for tag in tags:
        p.sismember(keys.entity_tag(tag), entity_id_)
    return [tag for tag, member in zip(tags, p.execute(), strict=True) if member]


def entity_ids_with_tag(client: StrRedis, tag: str) -> list[str]:
    """Sorted ids of entities tagged `tag`."""
    return sorted(client.smembers(keys.entity_tag(tag)))


def add_entity_tags(client: StrRedis, entity_id_: str, tags: Iterable[str], *,
                    pipe: redis.client.Pipeline | None = None) -> None:
    """Tag an entity: SADD entity_tag:TAG ID and the tag index."""
    tags = [t for t in tags if t]
    if tags:
        with writing(client, pipe) as p:
            for tag in tags:
                p.sadd(keys.entity_tag(tag), entity_id_)
            p.sadd(keys.known_entity_tags(), *tags)


def remove_entity_tags(client: StrRedis, entity_id_: str, tags: Iterable[str]) -> None:
    """Untag an entity; a tag no entity carries any more leaves the index."""
    for tag in tags:
        client.srem(keys.entity_tag(tag), entity_id_)
        if not client.exists(keys.entity_tag(tag)):
            client.srem(keys.known_entity_tags(), tag)


# --- private: moving check data between entity names ---------------------


def _existing_contacts(client: StrRedis, contact_ids: Iterable[str]) -> list[str]:
    ids = list(dict.fromkeys(contact_ids))
    p = client.pipeline(transaction=False)
    for cid in ids:
        p.hexists(keys.contact(cid), "first_name")
    return [cid for cid, ok in zip(ids, p.execute(), strict=True) if ok]


def _move_check_data(c: StrRedis, old: str, new: str) -> None:
    """Move (or merge) every key and member about checks of entity `old` to entity `new`."""
    checks = entity_check_names(c, old)
    moves = [(keys.all_checks_for(old), keys.all_checks_for(new)), (keys.current_checks(old), keys.current_checks(new))]
    for check in checks:
        moves.append((keys.check(old, check), keys.check(new, check)))
        moves.append((keys.alerts_by_check(old, check), keys.alerts_by_check(new, check)))
        prefix = keys.check_id(old, check) + ":"
        moves += [(k, new + k[len(old):]) for k in c.scan_iter(match=_glob_escape(prefix) + "*", count=1000)]
        moves += _drop_key_moves(c, old, new, check)
    for src, dst in dict(moves).items():
        if c.exists(src):
            _move_key(c, src, dst)
    _rename_members(c, old, new, checks)


def _drop_key_moves(c: StrRedis, old: str, new: str, check: str) -> list[tuple[str, str]]:
    pattern = keys.drop_alerts_for_contact("*", "*", _glob_escape(keys.check_id(old, check))) + "*"
    moves = []
    for key in c.scan_iter(match=pattern, count=1000):
        head, _, rest = key.partition(f":{keys.check_id(old, check)}")
        if rest == "" or rest.startswith(":"):
            moves.append((key, f"{head}:{keys.check_id(new, check)}{rest}"))
    return moves


def _move_key(c: StrRedis, src: str, dst: str) -> None:
    """RENAME src to dst, or merge into an existing dst (dst's scalar values win; the later-ending
    current maintenance wins)."""
    if not c.exists(dst):
        c.rename(src, dst)
        return
    kind = c.type(src)
    if kind == "string":
        if src.endswith("_maintenance") and c.pttl(src) > c.pttl(dst):
            c.rename(src, dst)
            return
    elif kind == "hash":
        for name, value in c.hgetall(src).items():
            c.hsetnx(dst, name, value)
    elif kind == "list":
        merged = c.lrange(dst, 0, -1) + c.lrange(src, 0, -1)
        if all(v.isdigit() for v in merged):
            merged = sorted(merged, key=int)
        c.delete(dst)
        c.rpush(dst, *merged)
    elif kind == "set":
        c.sunionstore(dst, [dst, src])
    elif kind == "zset":
        c.zunionstore(dst, [dst, src], aggregate="MAX")
    c.delete(src)


def _rename_members(c: StrRedis, old: str, new: str, checks: Sequence[str]) -> None:
    """Rewrite E:C members (all_checks, failed_checks, alerting sets, check tags, ack hashes) and current_entities."""
    zsets = [keys.all_checks(), keys.failed_checks(),
             *c.scan_iter(match=keys.contact_alerting_checks("*", "*"), count=1000)]
    sets = list(c.scan_iter(match=keys.check_tag("*"), count=1000))
    for check in checks:
        old_id, new_id = keys.check_id(old, check), keys.check_id(new, check)
        for key in zsets:
            score = c.zscore(key, old_id)
            if score is not None:
                c.zrem(key, old_id)
                c.zadd(key, {new_id: score}, gt=True)
        for key in sets:
            if c.srem(key, old_id):
                c.sadd(key, new_id)
        _rehash(c, old_id, new_id)
    score = c.zscore(keys.current_entities(), old)
    if score is not None:
        c.zrem(keys.current_entities(), old)
        c.zadd(keys.current_entities(), {new: score}, gt=True)


def _rehash(c: StrRedis, old_id: str, new_id: str) -> None:
    old_hash = c.hget(keys.check_hashes_by_id(), old_id)
    if old_hash is None:
        return
    c.hdel(keys.check_hashes_by_id(), old_id)
    c.hdel(keys.checks_by_hash(), old_hash)
    new_hash = hashlib.sha1(new_id.encode("utf-8")).hexdigest()[:8]
    c.hset(keys.check_hashes_by_id(), new_id, new_hash)
    c.hset(keys.checks_by_hash(), new_hash, new_id)


def _glob_escape(text: str) -> str:
    return re.sub(r"([*?\[\]\\])", r"\\\1", text)


def entity_ids_for_contacts(client: StrRedis, contact_ids: Sequence[str]) -> dict[str, list[str]]:
    """contact id -> sorted ids of the entities it is registered for (as entity_ids_for_contact), in one scan."""
    prefix = keys.contacts_for("")
    found: dict[str, set[str]] = {cid: set() for cid in contact_ids}
    names = [k for k in client.scan_iter(match=keys.contacts_for_pattern(), count=1000)
             if k[len(prefix):].split(":", 1)[0] != keys.ALL_ENTITIES_ID]
    p = client.pipeline(transaction=False)
    for key in names:
        p.type(key)
    sets = [key for key, kind in zip(names, p.execute(), strict=True) if kind == "set"]
    for key in sets:
        p.smembers(key)
    for key, members in zip(sets, p.execute(), strict=True):
        for cid in found.keys() & members:
            found[cid].add(key[len(prefix):].split(":", 1)[0])
    return {cid: sorted(eids) for cid, eids in found.items()}
