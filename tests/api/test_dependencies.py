"""[addition] Dependencies through the API (issue 33.1): create, list, get, delete; every refusal names its
problem; a cycle, directly or through entities and tags (with the checks' current tags), is refused with 422."""

from __future__ import annotations

from typing import Any

import pytest

from flapjack_py.store import dependencies as store
from flapjack_py.store import tags as tag_store
from web.api.openapi import document

from .helpers import body_of, errors, post

pytestmark = pytest.mark.real
DEPS = "/api/dependencies"


def create(client: Any, *items: dict[str, Any]) -> Any:
    return post(client, DEPS, {"dependencies": list(items)})


def test_create_list_get_delete(client: Any, real_s: Any, clock: Any) -> None:
    made = create(client, {"parent": "Switch-3:PING", "child": {"entity": "Web-1"}},
                  {"id": "db", "parent": "switch-3:PING", "child": {"check": "db-1:MySQL"}},
                  {"parent": "dc:POWER", "child": {"tag": "rack-7"}})
    assert made.status_code == 201
    ids = body_of(made)
    assert len(ids) == 3 and ids[1] == "db" and made.headers["Location"].endswith("/api/dependencies/" + ",".join(ids))
    listed = body_of(client.get(DEPS))["dependencies"]
    assert sorted((d["parent"], tuple(d["child"].items())) for d in listed) == [
        ("dc:POWER", (("tag", "rack-7"),)), ("switch-3:PING", (("check", "db-1:MySQL"),)),
        ("switch-3:PING", (("entity", "web-1"),))]
    assert body_of(client.get(f"{DEPS}/db"))["dependencies"] == [
        {"id": "db", "parent": "switch-3:PING", "child": {"check": "db-1:MySQL"}, "created_at": clock.now}]
    assert client.delete(f"{DEPS}/db,{ids[0]}").status_code == 204
    assert [d["id"] for d in body_of(client.get(DEPS))["dependencies"]] == [ids[2]]
    assert errors(client.get(f"{DEPS}/db"), 404) == ["could not find dependencies 'db'"]
    assert errors(client.delete(f"{DEPS}/db,{ids[2]}"), 404) == ["could not find dependencies 'db'"]
    assert len(store.load_all(real_s)) == 1  # a DELETE naming a missing id deletes nothing


@pytest.mark.parametrize(("body", "status", "message"), [
    ({}, 422, "No 'dependencies' object received"),
    ({"dependencies": {}}, 422, "object is not an Array"),
    ({"dependencies": []}, 422, "'dependencies' must list 1 to 1000 dependencies"),
    ({"dependencies": [{"parent": "a:b", "child": {"check": "c:d"}}] * 1001}, 422, "must list 1 to 1000"),
    ({"dependencies": [7]}, 422, "dependencies[0]: a dependency must be an object, got int"),
    ({"dependencies": [{"parent": "a", "child": {"check": "c:d"}}]}, 422,
     "dependencies[0]: parent must be 'ENTITY:CHECK', got \"a\""),
    ({"dependencies": [{"parent": "a:b", "child": {"host": "c"}}]}, 422, "dependencies[0]: child must be one of"),
    ({"dependencies": [{"parent": "a:b", "child": {"check": "c:d"}, "when": 1}]}, 422,
     "dependencies[0]: unknown fields: when"),
    ({"dependencies": [{"id": "a,b", "parent": "a:b", "child": {"tag": "t"}}]}, 422, "dependencies[0]: id must be"),
    ({"dependencies": [{"id": "x", "parent": "a:b", "child": {"tag": "t"}},
                       {"id": "x", "parent": "a:b", "child": {"tag": "u"}}]}, 422, "the same id is given twice"),
    ({"dependencies": [{"parent": "a:b", "child": {"check": "A:b"}}]}, 422,
     "dependency cycle: a:b -> a:b (each depends on the next)"),
])
def test_a_bad_body_is_refused_naming_the_problem(client: Any, real_s: Any, body: Any, status: int,
                                                  message: str) -> None:
    response = post(client, DEPS, body)
    assert any(message in e for e in errors(response, status)), errors(response, status)
    assert store.load_all(real_s) == []


def test_a_taken_id_or_the_same_dependency_again_is_a_conflict(client: Any) -> None:
    assert create(client, {"id": "one", "parent": "a:b", "child": {"tag": "t"}}).status_code == 201
    assert errors(create(client, {"id": "one", "parent": "a:c", "child": {"tag": "t"}}), 409) == [
        "dependencies already exist with the following ids: one"]
    assert errors(create(client, {"parent": "a:b", "child": {"tag": "t"}}), 409) == [
        "tag t already depends on a:b (dependency one)"]


def test_cycles_through_entities_and_tags_are_refused_and_name_the_cycle(client: Any, real_s: Any) -> None:
    assert create(client, {"id": "web-on-core", "parent": "core:PING", "child": {"entity": "web"}}).status_code == 201
    assert create(client, {"parent": "web:PING", "child": {"entity": "core"}}).status_code == 422
    tag_store.add_check_tags(real_s, "core", "PING", ["rack-7"])
    refused = create(client, {"parent": "web:LB", "child": {"tag": "rack-7"}})
    assert errors(refused, 422)[0] in (
        "dependency cycle: core:PING -> web:LB -> core:PING (each depends on the next)",
        "dependency cycle: web:LB -> core:PING -> web:LB (each depends on the next)")
    three = create(client, {"parent": "db:PING", "child": {"check": "core:PING"}},
                   {"parent": "web:APP", "child": {"entity": "db"}})  # core <- web:APP <- db <- core: all at once
    assert "dependency cycle:" in errors(three, 422)[0]
    assert [d.id for d in store.load_all(real_s)] == ["web-on-core"]  # nothing of a refused request was stored
    assert create(client, {"parent": "core:PING", "child": {"entity": "core"}}).status_code == 201  # not itself


def test_the_openapi_document_describes_dependencies() -> None:
    paths = document()["paths"]
    assert set(paths["/dependencies"]) == {"get", "post"} and set(paths["/dependencies/{ids}"]) == {"get", "delete"}
    assert "422" in paths["/dependencies"]["post"]["responses"]
