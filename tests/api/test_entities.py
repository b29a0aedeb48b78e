"""Entities: GET, POST (import/upsert), PATCH (api-v1.md 8)."""

from __future__ import annotations

import pytest

from flapjack_py import keys
from flapjack_py.store import entities as store

from .helpers import body_of, errors, patch, post

pytestmark = pytest.mark.real


def test_post_creates_and_get_lists_sorted(client, real_r, real_s):
    real_r.hset(keys.contact("21"), mapping={"first_name": "Ada", "last_name": "L", "email": "a@x"})
    res = post(client, "/api/entities", {"entities": [
        {"id": "2", "name": "zeta", "contacts": ["21", "nobody"], "tags": ["web"]},
        {"id": "1", "name": "alpha"}]})
    assert res.status_code == 201
    assert body_of(res) == ["2", "1"]
    assert res.headers["Location"] == "http://localhost/api/entities/2,1"
    res = client.get("/api/entities")
    assert res.status_code == 200
    assert body_of(res) == {"entities": [
        {"id": "1", "name": "alpha", "links": {"contacts": [], "checks": [], "escalation_policies": []}},
        {"id": "2", "name": "zeta", "links": {"contacts": ["21"], "checks": [], "escalation_policies": []}}]}
    assert store.entity_tags(real_s, "2") == ["web"]


def test_post_omitting_contacts_clears_them(client, real_r, real_s):
    real_r.hset(keys.contact("21"), mapping={"first_name": "Ada"})
    post(client, "/api/entities", {"entities": [{"id": "1", "name": "a", "contacts": ["21"]}]})
    post(client, "/api/entities", {"entities": [{"id": "1", "name": "a"}]})
    assert store.contact_ids_for_entity(real_s, "1") == []


@pytest.mark.parametrize(("body", "message"), [
    ({}, "No 'entities' object received"),
    ({"entities": {}}, "The received 'entities'' object is not an Array"),
    ({"entities": [{"name": "x"}]}, "Entity with a nil id detected"),
    ({"entities": ["x"]}, "Entity with a nil id detected"),
    ({"entities": [{"id": "1"}]}, "Entity name not provided"),
    ({"entities": [{"id": "1", "name": "ok"}, {"id": "2", "name": ""}]}, "Entity name not provided"),
])
def test_post_validation(client, real_r, body, message, real_s):
    assert errors(post(client, "/api/entities", body), 403) == [message]
    assert store.all_entity_names(real_s) == {}


@pytest.mark.parametrize(("name", "message"), [
    ("web:01", "entity name must not contain a colon (':' separates entity and check in check ids): \"web:01\""),
    ("::1", "entity name must not contain a colon (':' separates entity and check in check ids): \"::1\""),
    ("web\x0001", 'entity name has a control character (U+0000 at offset 3): "web\\u000001"'),
])
def test_post_refuses_names_that_do_not_fit_the_layout(client, name, message, real_s):
    body = {"entities": [{"id": "1", "name": "fine"}, {"id": "2", "name": name}]}
    assert errors(post(client, "/api/entities", body), 422) == [message]
    assert store.all_entity_names(real_s) == {}


def test_patch_refuses_a_rename_that_does_not_fit_the_layout(client, real_s):
    post(client, "/api/entities", {"entities": [{"id": "1", "name": "web-01"}]})
    ops = [{"op": "add", "path": "/entities/0/links/tags", "value": ["t"]},
           {"op": "replace", "path": "/entities/0/name", "value": "web:01"}]
    assert errors(patch(client, "/api/entities/1", ops), 422) == [
        "entity name must not contain a colon (':' separates entity and check in check ids): \"web:01\""]
    assert store.entity_name(real_s, "1") == "web-01"
    assert store.entity_tags(real_s, "1") == []  # nothing of the request applied


def test_post_invalid_json_and_content_type(client):
    res = client.post("/api/entities", data="{", content_type="application/json")
    assert errors(res, 400) == ["Invalid JSON in request body"]
    res = client.post("/api/entities", data="{}", content_type="text/plain")
    assert errors(res, 415) == ["Unsupported Content-Type"]


def test_get_by_ids_and_not_found(client, send):
    send("www.example.com", "PING", "ok")
    send("www.example.com", "SSH", "critical")
    eid = client.get("/api/entities").get_json()["entities"][0]["id"]
    res = client.get(f"/api/entities/nope,{eid}")
    assert body_of(res) == {"entities": [{"id": eid, "name": "www.example.com", "links": {
        "contacts": [], "checks": ["www.example.com:PING", "www.example.com:SSH"], "escalation_policies": []}}]}
    assert errors(client.get("/api/entities/1234,5678"), 404) == ["could not find entities: '1234', '5678'"]


def test_enabled_filter(client, send):
    send("on.example.com", "PING", "ok")
    post(client, "/api/entities", {"entities": [{"id": "off", "name": "off.example.com"}]})
    names = lambda q: [e["name"] for e in client.get(f"/api/entities{q}").get_json()["entities"]]  # noqa: E731
    assert names("?enabled=TRUE") == ["on.example.com"]
    assert names("?enabled=no") == ["off.example.com"]
    assert names("?enabled=maybe") == ["off.example.com", "on.example.com"]


def test_pagination(client):
    post(client, "/api/entities", {"entities": [{"id": str(i), "name": f"e{i}"} for i in range(5)]})
    body = body_of(client.get("/api/entities?page=2&per_page=2"))
    assert [e["id"] for e in body["entities"]] == ["2", "3"]
    assert body["meta"] == {"pagination": {"page": 2, "per_page": 2, "total_pages": 3, "total_count": 5}}


def test_patch_rename_links_and_tags(client, real_r, send, real_s):
    send("old.example.com", "PING", "critical")
    eid = store.entity_id(real_s, "old.example.com")
    real_r.hset(keys.contact("21"), mapping={"first_name": "Ada"})
    res = patch(client, f"/api/entities/{eid}", [
        {"op": "replace", "path": "/entities/0/name", "value": "new.example.com"},
        {"op": "add", "path": "/entities/0/links/contacts/-", "value": "21"},
        {"op": "add", "path": "/entities/0/links/tags", "value": ["a/b", "c"]},
        {"op": "remove", "path": "/entities/0/links/tags/a~1b"},
        {"op": "test", "path": "/entities/0/name", "value": "x"}])
    assert res.status_code == 204 and res.data == b""
    assert store.entity_name(real_s, eid) == "new.example.com"
    assert store.contact_ids_for_entity(real_s, eid) == ["21"]
    assert store.entity_tags(real_s, eid) == ["c"]
    assert body_of(client.get(f"/api/entities/{eid}"))["entities"][0]["links"]["checks"] == ["new.example.com:PING"]
    res = patch(client, f"/api/entities/{eid}", [{"op": "remove", "path": "/entities/0/links/contacts/21"}])
    assert res.status_code == 204
    assert store.contact_ids_for_entity(real_s, eid) == []


def test_patch_errors(client):
    post(client, "/api/entities", {"entities": [{"id": "1", "name": "a"}]})
    ops = [{"op": "replace", "path": "/entities/0/name", "value": "b"}]
    assert errors(patch(client, "/api/entities/1,nope", ops), 404) == ["could not find entity 'nope'"]
    assert errors(patch(client, "/api/entities/1", []), 400) == ["Invalid JSON-Patch request"]
    assert errors(patch(client, "/api/entities/1", {"op": "x"}), 400) == ["Invalid JSON-Patch request"]
    res = client.patch("/api/entities/1", json=ops, content_type="application/json")
    assert errors(res, 415) == ["Unsupported Content-Type"]
