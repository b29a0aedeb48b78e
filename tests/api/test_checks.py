"""Checks: GET, POST, PATCH (api-v1.md 9)."""

from __future__ import annotations

import pytest

from flapjack_py import keys
from flapjack_py.store import checks as check_store
from flapjack_py.store import entities as entity_store
from flapjack_py.store import tags as tag_store

from .helpers import body_of, errors, patch, post

pytestmark = pytest.mark.real


@pytest.fixture
def entity(client):
    post(client, "/api/entities", {"entities": [{"id": "1234", "name": "www.example.com"}]})
    return "1234"


def test_post_enables_and_get_shows(client, real_r, entity, clock, real_s):
    res = post(client, "/api/checks", {"checks": [{"entity_id": entity, "name": "Disk Usage", "tags": ["disk"]}]})
    assert res.status_code == 201
    assert body_of(res) == ["www.example.com:Disk Usage"]
    assert res.headers["Location"] == "http://localhost/api/checks/www.example.com:Disk%20Usage"
    assert check_store.is_enabled(real_s, "www.example.com", "Disk Usage")
    assert real_r.zscore(keys.current_entities(), "www.example.com") == clock.now
    res = client.get("/api/checks/www.example.com:Disk%20Usage")
    assert body_of(res) == {"checks": [{
        "id": "www.example.com:Disk Usage", "name": "Disk Usage", "entity_name": "www.example.com",
        "enabled": True, "tags": ["disk", "www", "example.com", "usage"], "links": {"entities": ["1234"]}}]}


def test_get_all_and_unseen_and_not_found(client, send, real_r):
    send("db.example.com", "PING", "ok")
    send("db.example.com", "a/b:c", "ok")
    body = body_of(client.get("/api/checks"))
    assert [c["id"] for c in body["checks"]] == ["db.example.com:PING", "db.example.com:a/b:c"]
    res = client.get("/api/checks/db.example.com:a/b:c,db.example.com:never,bad,x:y")
    checks = body_of(res)["checks"]
    assert [(c["id"], c["enabled"]) for c in checks] == [("db.example.com:a/b:c", True),
                                                         ("db.example.com:never", False)]
    assert real_r.zscore(keys.all_checks(), "db.example.com:never") is None
    assert errors(client.get("/api/checks/www.example.com:SSH,x:y"), 404) == [
        "could not find entity checks: 'www.example.com:SSH', 'x:y'"]


@pytest.mark.parametrize(("body", "status", "message"), [
    ({}, 403, "No 'checks' object received"),
    ({"checks": "x"}, 403, "The received 'checks'' object is not an Array"),
    ({"checks": [{"name": "SSH"}]}, 403, "Entity id not provided"),
    ({"checks": [{"entity_id": "1234"}]}, 403, "Name not provided"),
    ({"checks": [{"entity_id": "1234", "name": "A"}, {"entity_id": "9", "name": "SSH"}]}, 404,
     "could not find entity '9'"),
    ({"checks": [{"entity_id": "1234", "name": "A"}, {"entity_id": "1234", "name": "Disk\n/var"}]}, 422,
     'check name has a control character (U+000A at offset 4): "Disk\\n/var"'),
])
def test_post_validation(client, real_r, entity, body, status, message, real_s):
    assert errors(post(client, "/api/checks", body), status) == [message]
    assert check_store.all_check_ids(real_s) == []


def test_post_takes_check_names_with_colons(client, entity, real_s):
    res = post(client, "/api/checks", {"checks": [{"entity_id": entity, "name": "HTTP Port 80: /health"}]})
    assert body_of(res) == ["www.example.com:HTTP Port 80: /health"]
    assert check_store.is_enabled(real_s, "www.example.com", "HTTP Port 80: /health")


def test_patch_enabled_and_tags(client, real_r, send, real_s):
    send("www.example.com", "SSH", "ok")
    send("www.example.com", "PING", "ok")
    url = "/api/checks/www.example.com:SSH,www.example.com:PING"
    res = patch(client, url, [{"op": "replace", "path": "/checks/0/enabled", "value": False},
                              {"op": "add", "path": "/checks/0/links/tags", "value": "t1"},
                              {"op": "add", "path": "/checks/0/links/tags/-", "value": ["t2", "t3"]},
                              {"op": "remove", "path": "/checks/0/links/tags/t2"}])
    assert res.status_code == 204
    assert check_store.current_check_names(real_s, "www.example.com") == []
    assert real_r.zscore(keys.current_entities(), "www.example.com") is None
    assert tag_store.check_tags(real_s, "www.example.com", "SSH") == ["t1", "t3"]
    patch(client, "/api/checks/www.example.com:SSH", [{"op": "replace", "path": "/checks/0/enabled", "value": "no"}])
    assert not check_store.is_enabled(real_s, "www.example.com", "SSH")
    patch(client, "/api/checks/www.example.com:SSH", [{"op": "replace", "path": "/checks/0/enabled", "value": True}])
    assert check_store.current_check_names(real_s, "www.example.com") == ["SSH"]
    assert entity_store.load_entity(real_s, entity_store.entity_id(real_s, "www.example.com")).enabled


def test_patch_errors(client, entity):
    ops = [{"op": "replace", "path": "/checks/0/enabled", "value": False}]
    assert errors(patch(client, "/api/checks/nocolon", ops), 400) == ["Malformed check ID"]
    assert errors(patch(client, "/api/checks/other:SSH", ops), 404) == ["could not find entity 'other'"]
    assert errors(patch(client, "/api/checks/www.example.com:SSH", []), 400) == ["Invalid JSON-Patch request"]
