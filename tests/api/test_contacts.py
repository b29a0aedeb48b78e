"""Contacts over the JSON API (api-v1.md 4) and a contact's alert history (14), against a real Redis."""

from __future__ import annotations

import re

import pytest
import redis
from flask.testing import FlaskClient

from flapjack_py import keys
from flapjack_py.store import alerts as alert_store
from flapjack_py.store import entities as entity_store
from flapjack_py.store import rules as rule_store
from flapjack_py.store.plumbing.client import StrRedis
from tests.api.helpers import JSONAPI, body_of, errors, patch, post

UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")


def create(client: FlaskClient, *contacts: dict) -> list[str]:
    response = post(client, "/api/contacts", {"contacts": list(contacts)})
    assert response.status_code == 201, response.get_data(as_text=True)
    return response.get_json()


def contact(client: FlaskClient, contact_id: str) -> dict:
    return body_of(client.get(f"/api/contacts/{contact_id}"))["contacts"][0]


# --- POST ----------------------------------------------------------------------------


def test_post_creates_contacts_with_location_and_general_rule(client: FlaskClient, real_r: redis.Redis, real_s: StrRedis) -> None:
    response = post(client, "/api/contacts", {"contacts": [
        {"id": "21", "first_name": "Ada", "last_name": "Lovelace", "email": "ada@example.com",
         "timezone": "Europe/London", "tags": ["x"], "links": {"entities": ["1"]}},
        {"id": 22, "first_name": "Bob"}]})
    assert response.status_code == 201
    assert response.headers["Location"] == "http://localhost/api/contacts/21,22"
    assert body_of(response) == ["21", "22"]
    ada = contact(client, "21")
    rule_ids = ada["links"].pop("notification_rules")
    assert ada == {"id": "21", "first_name": "Ada", "last_name": "Lovelace", "email": "ada@example.com",
                   "timezone": "Europe/London", "links": {"entities": [], "media": []}}
    assert len(rule_ids) == 1
    rule = rule_store.load_rule(real_s, rule_ids[0])
    assert rule is not None and not rule.is_specific and rule.contact_id == "21"


def test_post_generates_uuid_and_empty_first_name(client: FlaskClient) -> None:
    [new_id] = create(client, {"last_name": "Nameless"})
    assert UUID.match(new_id)
    assert contact(client, new_id)["first_name"] == ""


def test_post_unknown_timezone_is_ignored_and_legacy_media_stored(client: FlaskClient) -> None:
    create(client, {"id": "1", "first_name": "A", "timezone": "Mars/Olympus",
                    "media": {"email": {"address": "a@b", "interval": 300, "rollup_threshold": 3},
                              "sms": "+61400", "pagerduty": {"service_key": "k", "subdomain": "s"}}})
    found = contact(client, "1")
    assert found["timezone"] is None
    assert found["links"]["media"] == ["1_email", "1_sms"]
    assert body_of(client.get("/api/media/1_email"))["media"][0]["interval"] == 300
    assert body_of(client.get("/api/pagerduty_credentials/1"))["pagerduty_credentials"][0]["service_key"] == "k"


@pytest.mark.parametrize("body", [
    {}, {"contact": []}, {"contacts": {"id": "1"}}, {"contacts": ["1"]}, {"contacts": [{"id": [1]}]},
    {"contacts": [{"id": True}]}, {"contacts": [{"media": ["email"]}]}, {"contacts": [{"media": {"email": 3}}]},
    [1, 2],
])
def test_post_invalid_bodies_are_422(client: FlaskClient, body: object) -> None:
    assert errors(post(client, "/api/contacts", body), 422) == ["No valid contacts were submitted"]
    assert body_of(client.get("/api/contacts")) == {"contacts": []}


def test_post_unknown_legacy_medium_is_422(client: FlaskClient) -> None:
    response = post(client, "/api/contacts", {"contacts": [{"first_name": "A", "media": {"pigeon": "x"}}]})
    assert errors(response, 422) == ["Invalid media type 'pigeon'"]


def test_post_existing_ids_are_409_and_nothing_is_created(client: FlaskClient) -> None:
    create(client, {"id": "a", "first_name": "A"}, {"id": "b", "first_name": "B"})
    response = post(client, "/api/contacts", {"contacts": [
        {"id": "b", "first_name": "B"}, {"id": "c", "first_name": "C"}, {"id": "a", "first_name": "A"}]})
    assert errors(response, 409) == ["Contacts already exist with the following IDs: b, a"]
    assert errors(client.get("/api/contacts/c"), 404) == ["could not find contacts 'c'"]


def test_post_repeated_id_in_one_request_is_409(client: FlaskClient) -> None:
    response = post(client, "/api/contacts", {"contacts": [{"id": "x", "first_name": "A"}, {"id": "x"}]})
    assert errors(response, 409) == ["Contacts already exist with the following IDs: x"]
    assert body_of(client.get("/api/contacts")) == {"contacts": []}


def test_post_invalid_json_is_400(client: FlaskClient) -> None:
    response = client.post("/api/contacts", data="{nope", content_type="application/vnd.api+json")
    assert errors(response, 400) == ["Invalid JSON in request body"]


def test_post_when_locked_is_423(client: FlaskClient, real_r: redis.Redis) -> None:
    real_r.set(keys.contact_mass_update_lock(), "someone else", ex=30)
    response = post(client, "/api/contacts", {"contacts": [{"id": "1", "first_name": "A"}]})
    assert errors(response, 423) == ["unable to obtain lock for resource 'contact_mass_update'"]
    assert real_r.get(keys.contact_mass_update_lock()) == b"someone else"
    assert body_of(client.get("/api/contacts")) == {"contacts": []}


# --- GET -----------------------------------------------------------------------------


def test_get_lists_sorted_by_last_then_first_name(client: FlaskClient) -> None:
    create(client, {"id": "1", "first_name": "Zed", "last_name": "Adams"}, {"id": "2", "first_name": "Amy"},
           {"id": "3", "first_name": "Bea", "last_name": "Adams"})
    response = client.get("/api/contacts/")
    assert response.status_code == 200 and response.headers["Content-Type"] == JSONAPI
    assert [c["id"] for c in body_of(response)["contacts"]] == ["2", "3", "1"]


def test_get_by_ids_keeps_request_order_and_drops_unknown(client: FlaskClient) -> None:
    create(client, {"id": "1", "first_name": "A"}, {"id": "2", "first_name": "B"})
    assert [c["id"] for c in body_of(client.get("/api/contacts/2,nope,1,2"))["contacts"]] == ["2", "1"]


def test_get_none_found_is_404_listing_every_id(client: FlaskClient) -> None:
    assert errors(client.get("/api/contacts/x,y"), 404) == ["could not find contacts 'x, y'"]


def test_get_links_entities_media_and_rules(client: FlaskClient, real_r: redis.Redis, real_s: StrRedis) -> None:
    create(client, {"id": "21", "first_name": "Ada", "media": {"sms": "+61", "email": "a@b", "pagerduty": "k"}})
    entity_store.save_entity(real_s, "e1", "www.example.com")
    entity_store.save_entity(real_s, "e2", "db.example.com")
    entity_store.add_entity_contacts(real_s, "e1", ["21"])
    entity_store.add_entity_contacts(real_s, "e2", ["21"], check="ping")
    entity_store.add_entity_contacts(real_s, keys.ALL_ENTITIES_ID, ["21"])
    links = contact(client, "21")["links"]
    assert links["entities"] == ["e1", "e2"]
    assert sorted(links["media"]) == ["21_email", "21_sms"]


def test_get_paginated(client: FlaskClient) -> None:
    create(client, *({"id": str(i), "first_name": f"n{i}"} for i in range(5)))
    response = client.get("/api/contacts?per_page=2&page=2")
    body = body_of(response)
    assert [c["id"] for c in body["contacts"]] == ["2", "3"]
    assert body["meta"] == {"pagination": {"page": 2, "per_page": 2, "total_pages": 3, "total_count": 5}}
    assert 'rel="next"' in response.headers["Link"] and 'rel="prev"' in response.headers["Link"]
    assert "meta" not in body_of(client.get("/api/contacts"))
    assert body_of(client.get("/api/contacts?page=3"))["meta"]["pagination"]["per_page"] == 50
    assert errors(client.get("/api/contacts?page=x"), 400) == ["page must be a positive integer"]
    assert errors(client.get("/api/contacts?page=1&per_page=1001"), 400) == [
        "per_page must be an integer from 1 to 1000"]


# --- PATCH ---------------------------------------------------------------------------


def test_patch_replaces_fields_on_every_id(client: FlaskClient) -> None:
    create(client, {"id": "1", "first_name": "A", "timezone": "UTC"}, {"id": "2", "first_name": "B"})
    response = patch(client, "/api/contacts/1,2", [
        {"op": "replace", "path": "/contacts/0/last_name", "value": "Smith"},
        {"op": "replace", "path": "/contacts/0/email", "value": "s@example.com"},
        {"op": "replace", "path": "/contacts/0/timezone", "value": "Australia/Broken_Hill"},
        {"op": "test", "path": "/contacts/0/first_name", "value": "A"},
        {"op": "replace", "path": "/contacts/0/shoe_size", "value": 9},
        {"op": "replace", "path": "/entities/0/last_name", "value": "X"},
        {"path": "/contacts/0/last_name"}])
    assert response.status_code == 204 and response.get_data() == b""
    for cid, first in (("1", "A"), ("2", "B")):
        found = contact(client, cid)
        assert (found["first_name"], found["last_name"], found["email"], found["timezone"]) == \
            (first, "Smith", "s@example.com", "Australia/Broken_Hill")


def test_patch_invalid_timezone_is_ignored_and_null_removes(client: FlaskClient) -> None:
    create(client, {"id": "1", "first_name": "A", "timezone": "UTC"})
    patch(client, "/api/contacts/1", [{"op": "replace", "path": "/contacts/0/timezone", "value": "Nowhere/Land"}])
    assert contact(client, "1")["timezone"] == "UTC"
    patch(client, "/api/contacts/1", [{"op": "replace", "path": "/contacts/0/timezone", "value": None}])
    assert contact(client, "1")["timezone"] is None


def test_patch_adds_and_removes_entity_links(client: FlaskClient, real_r: redis.Redis, real_s: StrRedis) -> None:
    create(client, {"id": "1", "first_name": "A"})
    entity_store.save_entity(real_s, "1234", "www.example.com")
    ops = [{"op": "add", "path": "/contacts/0/links/entities/-", "value": "1234"},
           {"op": "add", "path": "/contacts/0/links/entities", "value": "unknown"}]
    assert patch(client, "/api/contacts/1", ops).status_code == 204
    assert contact(client, "1")["links"]["entities"] == ["1234"]
    assert not real_r.exists(keys.contacts_for("unknown"))
    ops = [{"op": "remove", "path": "/contacts/0/links/entities/1234"}]
    assert patch(client, "/api/contacts/1", ops).status_code == 204
    assert contact(client, "1")["links"]["entities"] == []


def test_patch_moves_and_deletes_rules(client: FlaskClient, real_r: redis.Redis) -> None:
    create(client, {"id": "1", "first_name": "A"}, {"id": "2", "first_name": "B"})
    [rule_id] = contact(client, "2")["links"]["notification_rules"]
    ops = [{"op": "add", "path": "/contacts/0/links/notification_rules/-", "value": rule_id},
           {"op": "add", "path": "/contacts/0/links/notification_rules/-", "value": "nope"}]
    assert patch(client, "/api/contacts/1", ops).status_code == 204
    assert rule_id in contact(client, "1")["links"]["notification_rules"]
    assert contact(client, "2")["links"]["notification_rules"] == []
    assert body_of(client.get(f"/api/notification_rules/{rule_id}"))["notification_rules"][0]["links"] == \
        {"contacts": ["1"]}
    ops = [{"op": "remove", "path": f"/contacts/0/links/notification_rules/{rule_id}"}]
    assert patch(client, "/api/contacts/1", ops).status_code == 204
    assert rule_id not in contact(client, "1")["links"]["notification_rules"]
    assert not real_r.exists(keys.notification_rule(rule_id))


def test_patch_unknown_ids_are_404_and_nothing_changes(client: FlaskClient) -> None:
    create(client, {"id": "1", "first_name": "A"})
    response = patch(client, "/api/contacts/1,x,y", [{"op": "replace", "path": "/contacts/0/first_name",
                                                      "value": "Z"}])
    assert errors(response, 404) == ["could not find contacts 'x, y'"]
    assert contact(client, "1")["first_name"] == "A"


@pytest.mark.parametrize("ops", [[], {"op": "replace"}, "x"])
def test_patch_invalid_document_is_400(client: FlaskClient, ops: object) -> None:
    create(client, {"id": "1", "first_name": "A"})
    assert errors(patch(client, "/api/contacts/1", ops), 400) == ["Invalid JSON-Patch request"]


def test_patch_wrong_content_type_is_415(client: FlaskClient) -> None:
    create(client, {"id": "1", "first_name": "A"})
    response = client.patch("/api/contacts/1", json=[], content_type="application/json")
    assert errors(response, 415) == ["Unsupported Content-Type"]


def test_patch_when_locked_is_423(client: FlaskClient, real_r: redis.Redis) -> None:
    create(client, {"id": "1", "first_name": "A"})
    real_r.set(keys.contact_mass_update_lock(), "other")
    response = patch(client, "/api/contacts/1", [{"op": "replace", "path": "/contacts/0/first_name", "value": "Z"}])
    assert errors(response, 423) == ["unable to obtain lock for resource 'contact_mass_update'"]
    real_r.delete(keys.contact_mass_update_lock())
    assert contact(client, "1")["first_name"] == "A"


# --- DELETE --------------------------------------------------------------------------


def test_delete_removes_everything(client: FlaskClient, real_r: redis.Redis, real_s: StrRedis) -> None:
    create(client, {"id": "1", "first_name": "A", "timezone": "UTC", "media": {"email": "a@b", "pagerduty": "k"}},
           {"id": "2", "first_name": "B"})
    entity_store.save_entity(real_s, "e1", "www")
    entity_store.add_entity_contacts(real_s, "e1", ["1", "2"])
    [rule_id] = contact(client, "1")["links"]["notification_rules"]
    real_r.set(keys.drop_alerts_for_contact("1", "email"), "1")
    response = client.delete("/api/contacts/1")
    assert response.status_code == 204 and response.get_data() == b""
    assert errors(client.get("/api/contacts/1"), 404) == ["could not find contacts '1'"]
    assert [c["id"] for c in body_of(client.get("/api/contacts"))["contacts"]] == ["2"]
    assert real_r.smembers(keys.contacts_for("e1")) == {b"2"}
    for key in (keys.notification_rule(rule_id), keys.contact_media("1"), keys.contact_tz("1"),
                keys.contact_pagerduty("1"), keys.drop_alerts_for_contact("1", "email")):
        assert not real_r.exists(key)


def test_delete_unknown_ids_are_404_and_nothing_is_deleted(client: FlaskClient) -> None:
    create(client, {"id": "1", "first_name": "A"})
    assert errors(client.delete("/api/contacts/1,nope"), 404) == ["could not find contacts 'nope'"]
    assert contact(client, "1")["id"] == "1"


def test_delete_when_locked_is_423(client: FlaskClient, real_r: redis.Redis) -> None:
    create(client, {"id": "1", "first_name": "A"})
    real_r.set(keys.contact_mass_update_lock(), "other")
    assert errors(client.delete("/api/contacts/1"), 423) == [
        "unable to obtain lock for resource 'contact_mass_update'"]


def test_put_is_not_routable(client: FlaskClient) -> None:
    assert errors(client.put("/api/contacts/1", json={}), 404) == ["not routable"]


# --- alerts ----------------------------------------------------------------------------


def record_alert(real_r: redis.Redis, alert_id: str, ts: int, media: str = "email", type_: str = "problem") -> None:
    pipe = real_r.pipeline()
    alert_store.add_alert(pipe, {"id": alert_id, "timestamp": ts, "contact": "1", "media": media,
                                 "address": "a@b", "check": "www:ping", "type": type_, "rollup": "",
                                 "state": "critical", "subject": "s", "body": "b", "status": "queued"}, 3600)
    pipe.execute()


def test_contact_alerts_newest_first_with_filters(client: FlaskClient, real_r: redis.Redis) -> None:
    create(client, {"id": "1", "first_name": "A"})
    record_alert(real_r, "a1", 1000)
    record_alert(real_r, "a2", 2000, media="sms")
    record_alert(real_r, "a3", 3000, type_="recovery")
    body = body_of(client.get("/api/contacts/1/alerts"))
    assert [a["id"] for a in body["alerts"]] == ["a3", "a2", "a1"]
    assert body["alerts"][2] == {"id": "a1", "timestamp": 1000, "contact": "1", "media": "email", "address": "a@b",
                                 "check": "www:ping", "type": "problem", "rollup": "", "state": "critical",
                                 "subject": "s", "body": "b"}
    assert [a["id"] for a in body_of(client.get("/api/contacts/1/alerts?media=email"))["alerts"]] == ["a3", "a1"]
    assert [a["id"] for a in body_of(client.get("/api/contacts/1/alerts?type=problem&limit=1"))["alerts"]] == ["a2"]
    window = "start_time=1970-01-01T00:25:00Z&end_time=1970-01-01T00:45:00Z"
    assert [a["id"] for a in body_of(client.get(f"/api/contacts/1/alerts?{window}"))["alerts"]] == ["a2"]


def test_contact_alerts_unknown_contact_is_404(client: FlaskClient) -> None:
    assert errors(client.get("/api/contacts/nope/alerts"), 404) == ["could not find contact 'nope'"]
