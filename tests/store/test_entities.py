"""Data-layer tests of flapjack_py.store.entities (fakeredis, bytes replies)."""

from __future__ import annotations

import pytest
import redis

from flapjack_py.errors import NotFound
from flapjack_py.store import contacts as cs
from flapjack_py.store import entities as es
from flapjack_py.store.plumbing.client import StrRedis


@pytest.fixture
def contacts(r: redis.Redis, s: StrRedis) -> None:
    for cid in ("c1", "c2", "c3"):
        cs.create_contact(s, {"id": cid, "first_name": cid})


def test_import_entity_maps_ids_contacts_and_tags(r: redis.Redis, contacts: None, s: StrRedis) -> None:
    es.import_entity(s, "e1", "foo", ["c1", "unknown"], ["web", "prod"])
    assert es.load_entity(s, "e1") == es.Entity("e1", "foo", ["c1"], [], False)
    assert es.entity_tags(s, "e1") == ["prod", "web"]
    assert r.smembers("known_tag:entity_tag") == {b"web", b"prod"}
    es.import_entity(s, "e1", "foo", None)
    assert es.contact_ids_for_entity(s, "e1") == []
    assert es.entity_tags(s, "e1") == ["prod", "web"]  # never removed by import


def test_new_id_for_a_known_name_drops_the_old_id(r: redis.Redis, s: StrRedis) -> None:
    es.save_entity(s, "old", "foo")
    es.save_entity(s, "new", "foo")
    assert es.entity_id(s, "foo") == "new"
    assert es.entity_name(s, "old") is None


def test_contacts_for_a_check_in_engine_order_deduplicated(r: redis.Redis, contacts: None, s: StrRedis) -> None:
    es.save_entity(s, "e1", "foo")
    es.add_entity_contacts(s, "e1", ["c2"])
    es.add_entity_contacts(s, "ALL", ["c3", "c2"])
    es.add_entity_contacts(s, "e1", ["c1", "c3"], check="PING")
    r.sadd("contacts_for:e1:PING", "gone")  # not a contact: skipped
    assert es.contact_ids_for_check(s, "foo", "PING") == ["c2", "c3", "c1"]
    assert es.contact_ids_for_check(s, "unknown-entity", "PING") == ["c2", "c3"]
    assert es.entity_ids_for_contact(s, "c1") == ["e1"]
    assert es.entity_ids_for_contact(s, "c3") == ["e1"]  # ALL excluded


def test_list_entities_sorted_by_name_with_enabled_filter(r: redis.Redis, s: StrRedis) -> None:
    es.save_entity(s, "2", "b")
    es.save_entity(s, "1", "c")
    es.save_entity(s, "3", "a")
    r.zadd("current_entities", {"c": 1})
    r.zadd("current_checks:c", {"PING": 1})
    r.zadd("all_checks:c", {"SSH": 1})
    assert [e.name for e in es.list_entities(s)] == ["a", "b", "c"]
    assert [e.name for e in es.list_entities(s, enabled=True)] == ["c"]
    assert es.load_entity(s, "1").checks == ["c:PING", "c:SSH"]


def test_remove_tag_drops_it_from_the_index_when_unused(r: redis.Redis, s: StrRedis) -> None:
    es.add_entity_tags(s, "e1", ["web"])
    es.add_entity_tags(s, "e2", ["web"])
    es.remove_entity_tags(s, "e1", ["web"])
    assert r.smembers("known_tag:entity_tag") == {b"web"}
    es.remove_entity_tags(s, "e2", ["web"])
    assert r.smembers("known_tag:entity_tag") == set()


def test_rename_moves_check_keys_and_members(r: redis.Redis, s: StrRedis) -> None:
    es.save_entity(s, "e1", "foo")
    r.hset("check:foo:PING", "state", "critical")
    r.rpush("foo:PING:states", "5")
    r.set("foo:PING:unscheduled_maintenance", "5", ex=100)
    r.zadd("all_checks", {"foo:PING": 5})
    r.zadd("all_checks:foo", {"PING": 5})
    r.zadd("failed_checks", {"foo:PING": 5})
    r.zadd("current_entities", {"foo": 5})
    r.zadd("contact_alerting_checks:c1:media:email", {"foo:PING": 5})
    r.set("drop_alerts_for_contact:c1:email:foo:PING:critical", "d", ex=100)
    r.hset("check_hashes_by_id", "foo:PING", "deadbeef")
    r.hset("checks_by_hash", "deadbeef", "foo:PING")
    es.rename_entity(s, "e1", "bar")
    assert es.entity_name(s, "e1") == "bar" and es.entity_id(s, "foo") is None
    assert r.hget("check:bar:PING", "state") == b"critical"
    assert r.lrange("bar:PING:states", 0, -1) == [b"5"]
    assert 0 < r.ttl("bar:PING:unscheduled_maintenance") <= 100
    assert r.zrange("all_checks", 0, -1) == [b"bar:PING"]
    assert r.zrange("failed_checks", 0, -1) == [b"bar:PING"]
    assert r.zrange("current_entities", 0, -1) == [b"bar"]
    assert r.zrange("contact_alerting_checks:c1:media:email", 0, -1) == [b"bar:PING"]
    assert r.exists("drop_alerts_for_contact:c1:email:bar:PING:critical")
    new_hash = r.hget("check_hashes_by_id", "bar:PING")
    assert new_hash is not None and r.hget("checks_by_hash", new_hash) == b"bar:PING"
    assert not [k for k in r.keys() if b"foo" in k]


def test_merge_keeps_the_targets_state_and_combines_histories(r: redis.Redis, s: StrRedis) -> None:
    es.save_entity(s, "e1", "foo")
    es.save_entity(s, "e2", "bar")
    for name, state, ts in (("foo", "critical", "5"), ("bar", "ok", "7")):
        r.hset(f"check:{name}:PING", "state", state)
        r.rpush(f"{name}:PING:states", ts)
        r.zadd(f"all_checks:{name}", {"PING": int(ts)})
    es.rename_entity(s, "e1", "bar")
    assert r.hget("check:bar:PING", "state") == b"ok"
    assert r.lrange("bar:PING:states", 0, -1) == [b"5", b"7"]
    assert es.entity_id(s, "bar") == "e1" and es.entity_name(s, "e2") is None
    with pytest.raises(NotFound):
        es.rename_entity(s, "nope", "x")
