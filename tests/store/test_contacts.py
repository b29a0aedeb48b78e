"""Data-layer tests of flapjack_py.store.contacts (fakeredis, bytes replies)."""

from __future__ import annotations

import pytest
import redis

from flapjack_py.errors import AlreadyExists, NotFound
from flapjack_py.model.contacts import Medium
from flapjack_py.model.rules import ALL_MEDIA, NotificationRule
from flapjack_py.store import contacts as cs
from flapjack_py.store import media as media_store
from flapjack_py.store import rules as rule_store
from flapjack_py.store.plumbing.client import StrRedis


@pytest.fixture
def ada(r: redis.Redis, s: StrRedis) -> str:
    return cs.create_contact(s, {"id": "21", "first_name": "Ada", "last_name": "Lovelace", "email": "a@x",
                                 "timezone": "Europe/London",
                                 "media": {"email": {"address": "a@x", "interval": 300, "rollup_threshold": 3},
                                           "sms": "+61", "pagerduty": {"service_key": "k", "subdomain": "s"}}})


def test_create_stores_seed_layout_and_a_general_rule(r: redis.Redis, ada: str, s: StrRedis) -> None:
    assert r.hgetall("contact:21") == {b"first_name": b"Ada", b"last_name": b"Lovelace", b"email": b"a@x"}
    assert r.hgetall("contact_media:21") == {b"email": b"a@x", b"sms": b"+61", b"pagerduty": b"k"}
    assert r.hgetall("contact_media_intervals:21") == {b"email": b"300"}
    assert r.hgetall("contact_media_rollup_thresholds:21") == {b"email": b"3"}
    assert r.get("contact_tz:21") == b"Europe/London"
    assert r.hgetall("contact_pagerduty:21") == {b"subdomain": b"s", b"token": b"", b"username": b"", b"password": b""}
    (rule,) = rule_store.load_rules(s, "21")
    assert rule.critical_media == list(ALL_MEDIA) and rule.unknown_media is None
    assert r.hget(f"notification_rule:{rule.id}", "unknown_blackhole") == b"false"


def test_create_rejects_an_existing_id_and_makes_a_uuid_without_one(r: redis.Redis, ada: str, s: StrRedis) -> None:
    with pytest.raises(AlreadyExists):
        cs.create_contact(s, {"id": "21", "first_name": "X"})
    new_id = cs.create_contact(s, {"last_name": "Nameless"})
    assert len(new_id) == 36 and cs.load_contact(s, new_id).first_name == ""


def test_media_values_and_effective_settings(r: redis.Redis, ada: str, s: StrRedis) -> None:
    media = media_store.load_media(s, "21")
    assert list(media) == ["email", "sms", "pagerduty"]
    assert (media["email"].effective_interval, media["email"].effective_rollup_threshold) == (300, 3)
    assert (media["sms"].effective_interval, media["sms"].effective_rollup_threshold) == (900, None)
    media_store.update_medium(s, "21", "email", interval=None, rollup_threshold=0)
    assert media_store.load_medium(s, "21", "email") == Medium("21", "email", "a@x", None, 0)
    media_store.delete_medium(s, "21", "sms")
    assert media_store.load_medium(s, "21", "sms") is None


def test_update_contact_and_timezone(r: redis.Redis, ada: str, s: StrRedis) -> None:
    cs.update_contact(s, "21", first_name="Augusta", timezone="Not/AZone")
    assert cs.load_contact(s, "21") == cs.Contact("21", "Augusta", "Lovelace", "a@x", "Europe/London")
    cs.update_contact(s, "21", timezone=None, email=None)
    assert cs.load_contact(s, "21") == cs.Contact("21", "Augusta", "Lovelace", None, None)
    with pytest.raises(NotFound):
        cs.update_contact(s, "nobody", first_name="x")


def test_pagerduty_credentials_crud(r: redis.Redis, ada: str, s: StrRedis) -> None:
    assert media_store.load_pagerduty_credentials(s, "21") == {"service_key": "k", "subdomain": "s", "token": "",
                                                      "username": "", "password": ""}
    media_store.update_pagerduty_credentials(s, "21", token="t")
    assert media_store.load_pagerduty_credentials(s, "21")["token"] == "t"
    media_store.delete_pagerduty_credentials(s, "21")
    assert media_store.load_pagerduty_credentials(s, "21") is None
    assert "pagerduty" not in media_store.load_media(s, "21")


def test_rules_crud_and_automatic_general_rule(r: redis.Redis, ada: str, s: StrRedis) -> None:
    (general,) = rule_store.load_rules(s, "21")
    specific = NotificationRule(id="spec", contact_id="21", entities=["foo"], critical_media=["sms"])
    rule_store.create_rule(s, specific)
    with pytest.raises(AlreadyExists):
        rule_store.create_rule(s, specific)
    rule_store.delete_rule(s, general.id)
    rules = rule_store.load_rules(s, "21")  # all specific again: a new general rule is created first
    assert [rule.is_specific for rule in rules] == [False, True]
    assert len(rule_store.rule_ids(s, "21")) == 2
    cs.create_contact(s, {"id": "22", "first_name": "Bob"})
    rule_store.move_rule(s, "spec", "22")
    assert "spec" in rule_store.rule_ids(s, "22") and "spec" not in rule_store.rule_ids(s, "21")
    assert rule_store.load_rule(s, "spec").contact_id == "22"
    assert len(rule_store.all_rule_ids(s, cs.all_contact_ids(s))) == 3  # 21: new general; 22: its general + spec


def test_delete_contact_removes_everything(r: redis.Redis, ada: str, s: StrRedis) -> None:
    r.sadd("contacts_for:e1", "21", "99")
    r.sadd("contacts_for:e1:PING", "21")
    r.set("drop_alerts_for_contact:21:email:foo:PING:critical", "d")
    cs.add_contact_tags(s, "21", ["ops"])
    assert cs.contact_tags(s, "21") == ["ops"]
    cs.delete_contact(s, "21")
    assert sorted(r.keys()) == [b"contacts_for:e1"]
    assert r.smembers("contacts_for:e1") == {b"99"}


def test_list_contacts_sorted_by_last_then_first_name(r: redis.Redis, s: StrRedis) -> None:
    for cid, first, last in (("1", "Zed", "Alpha"), ("2", "Amy", "Beta"), ("3", "Al", "Alpha")):
        cs.create_contact(s, {"id": cid, "first_name": first, "last_name": last})
    r.hset("contact:ghost", "last_name", "x")  # no first_name: not a contact
    assert [c.id for c in cs.list_contacts(s)] == ["3", "1", "2"]
