"""API conventions shared by every endpoint (api-v1.md 1-2, 13): CORS, OPTIONS, routing errors,
content types, unparseable bodies, JSON-Patch shape, method override, the contact lock, Location
headers, the 500 body, and a sweep of malformed bodies over every documented POST and PATCH.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
import redis
from flask.testing import FlaskClient
from redis.backoff import NoBackoff
from redis.retry import Retry

from flapjack_py import keys
from flapjack_py.store.plumbing.client import StrRedis
from web import create_app

pytestmark = pytest.mark.real
JSONAPI = "application/vnd.api+json; charset=UTF-8"
ORIGIN = "https://dashboard.example.com"
"""The one origin the `api` fixture's app lists in web.cors_origins (and its client sends)."""
CORS = {
    "Access-Control-Allow-Origin": ORIGIN,
    "Access-Control-Allow-Methods": "GET, POST, PUT, PATCH, DELETE, OPTIONS",
    "Access-Control-Allow-Headers": "Authorization, Content-Type, Accept, Cache-Control, X-HTTP-Method-Override",
    "Access-Control-Expose-Headers": "Cache-Control, Content-Language, Content-Type, Expires, Last-Modified, Pragma",
    "Access-Control-Max-Age": "1728000",
}
PATCH_TYPE = "application/json-patch+json"


@pytest.fixture
def api(real_r: redis.Redis) -> FlaskClient:
    """A test client (sending Origin: ORIGIN, which CORS allows) of the app over the real Redis server,
    with contact 21 created through the API."""
    http = create_app(redis=real_r, config={"web": {"cors_origins": [ORIGIN]}}).test_client()
    http.environ_base["HTTP_ORIGIN"] = ORIGIN
    made = http.post("/api/contacts", json={"contacts": [{"id": "21", "first_name": "Ada", "last_name": "L"}]},
                     content_type="application/vnd.api+json")
    assert made.status_code == 201, made.get_data(as_text=True)
    return http


def errors(response: Any, status: int) -> list[str]:
    """The error messages, after asserting status, content type and (for the allowed origin) CORS headers."""
    assert response.status_code == status, response.get_data(as_text=True)
    assert response.headers["Content-Type"] == JSONAPI
    if response.request.headers.get("Origin") == ORIGIN:
        for name, value in CORS.items():
            assert response.headers[name] == value
    body = response.get_json(force=True)
    assert list(body) == ["errors"]
    return body["errors"]


# --- CORS and OPTIONS ---------------------------------------------------------------------


@pytest.mark.parametrize("path", ["/api/contacts", "/api/contacts/21", "/api/metrics", "/api/openapi.json"])
def test_cors_headers_on_success(api: FlaskClient, path: str) -> None:
    response = api.get(path)
    assert response.status_code == 200
    assert response.headers["Content-Type"] == JSONAPI
    for name, value in CORS.items():
        assert response.headers[name] == value


@pytest.mark.parametrize("path", ["/api/contacts", "/api/contacts/21", "/api/checks/a:b/c", "/api/anything/at/all",
                                  "/api", "/api/"])
def test_options_is_204_with_cors_and_no_body(api: FlaskClient, path: str) -> None:
    response = api.options(path)
    assert response.status_code == 204
    assert response.get_data() == b""
    assert "Content-Type" not in response.headers
    for name, value in CORS.items():
        assert response.headers[name] == value


def test_201_has_cors_and_location(api: FlaskClient) -> None:
    response = api.post("/api/contacts", json={"contacts": [{"id": "a b/c", "first_name": "X"}]})
    assert response.status_code == 201
    assert response.headers["Location"] == "http://localhost/api/contacts/a%20b%2Fc"
    assert response.headers["Access-Control-Allow-Origin"] == ORIGIN
    assert response.get_json(force=True) == ["a b/c"]


@pytest.mark.parametrize("origin", [None, "https://evil.example", "null"])
def test_no_cors_headers_for_other_origins(real_r: redis.Redis, origin: str | None) -> None:
    http = create_app(redis=real_r, config={"web": {"cors_origins": [ORIGIN]}}).test_client()
    response = http.get("/api/contacts", headers={"Origin": origin} if origin else {})
    assert response.status_code == 200
    assert not [name for name in response.headers.keys() if name.startswith("Access-Control-")]
    assert "Origin" in response.headers["Vary"]


def test_no_cors_headers_by_default(real_r: redis.Redis) -> None:
    http = create_app(redis=real_r).test_client()
    response = http.options("/api/contacts", headers={"Origin": ORIGIN, "Access-Control-Request-Method": "DELETE"})
    assert response.status_code == 204 and "Access-Control-Allow-Origin" not in response.headers


def test_location_uses_the_configured_base_url(real_r: redis.Redis) -> None:
    http = create_app(redis=real_r, config={"web": {"api_base_url": "https://mon.example.com/api/"}}).test_client()
    response = http.post("/api/contacts", json={"contacts": [{"id": "7", "first_name": "X"}, {"id": "8",
                                                                                          "first_name": "Y"}]})
    assert response.status_code == 201
    assert response.headers["Location"] == "https://mon.example.com/api/contacts/7,8"


# --- routing --------------------------------------------------------------------------------


@pytest.mark.parametrize(("method", "path"), [
    ("GET", "/api/nothing"),
    ("GET", "/api/contacts/21/unknown"),
    ("PUT", "/api/contacts/21"),  # a known path with an unsupported method is not routable [v1]
    ("DELETE", "/api/entities/1"),
    ("POST", "/api/metrics"),
    ("DELETE", "/api/checks/a:b"),
])
def test_not_routable(api: FlaskClient, method: str, path: str) -> None:
    assert errors(api.open(path, method=method), 404) == ["not routable"]


@pytest.mark.parametrize(("method", "content_type"), [("POST", "text/plain"), ("PATCH", "application/json"),
                                                      ("PUT", "text/plain")])
def test_unknown_paths_are_not_routable_whatever_the_content_type(api: FlaskClient, method: str,
                                                                  content_type: str) -> None:
    response = api.open("/api/nothing/here", method=method, data="x", content_type=content_type)
    assert errors(response, 404) == ["not routable"]


def test_collection_get_ignores_a_trailing_slash(api: FlaskClient) -> None:
    assert api.get("/api/contacts/").get_json(force=True) == api.get("/api/contacts").get_json(force=True)


# --- id lists (api-v1 1.1) -----------------------------------------------------------------------


def test_id_lists_drop_empties_and_duplicates_in_request_order(api: FlaskClient) -> None:
    api.post("/api/contacts", json={"contacts": [{"id": "22", "first_name": "Bob"}]})
    found = api.get("/api/contacts/22,,21,22,").get_json(force=True)["contacts"]
    assert [c["id"] for c in found] == ["22", "21"]


def test_ids_are_percent_decoded_exactly_once(api: FlaskClient) -> None:
    assert api.post("/api/contacts", json={"contacts": [{"id": "a%41 b", "first_name": "P"}]}).status_code == 201
    found = api.get("/api/contacts/a%2541%20b").get_json(force=True)["contacts"]
    assert [c["id"] for c in found] == ["a%41 b"]
    assert errors(api.get("/api/contacts/aA%20b"), 404) == ["could not find contacts 'aA b'"]


def test_check_ids_with_slashes_spaces_and_percent_signs(api: FlaskClient, real_r: redis.Redis, real_s: StrRedis) -> None:
    from flapjack_py.executive import Executive
    from flapjack_py.store.events import push_event

    for check in ("Disk / Usage", "Load 100%AB"):
        push_event(real_s, {"type": "service", "entity": "db.example.com", "check": check, "state": "ok"})
    Executive(real_r, {"executive": {"new_check_scheduled_maintenance_duration": 0}}).drain()
    for path in ("/api/checks/db.example.com:Disk%20%2F%20Usage,db.example.com:Load%20100%25AB",
                 "/api/checks/db.example.com:Disk / Usage,db.example.com:Load 100%25AB"):
        found = api.get(path).get_json(force=True)["checks"]
        assert [(c["name"], c["enabled"]) for c in found] == [("Disk / Usage", True), ("Load 100%AB", True)]


# --- content types ------------------------------------------------------------------------------


@pytest.mark.parametrize("content_type", ["text/plain", "application/x-www-form-urlencoded", "application/xml"])
def test_post_with_a_wrong_content_type_is_415(api: FlaskClient, content_type: str) -> None:
    response = api.post("/api/contacts", data='{"contacts":[{"first_name":"X"}]}', content_type=content_type)
    assert errors(response, 415) == ["Unsupported Content-Type"]


def test_post_without_content_type_but_with_a_body_is_415(api: FlaskClient) -> None:
    response = api.post("/api/contacts", data=b'{"contacts":[{"first_name":"X"}]}')
    assert errors(response, 415) == ["Unsupported Content-Type"]


@pytest.mark.parametrize("content_type", ["application/vnd.api+json", "application/json",
                                          "application/json-patch+json", "application/json; charset=utf-8",
                                          "APPLICATION/JSON"])
def test_post_accepts_the_json_types_and_ignores_parameters(api: FlaskClient, content_type: str) -> None:
    response = api.post("/api/contacts", data='{"contacts":[{"first_name":"X"}]}', content_type=content_type)
    assert response.status_code == 201, response.get_data(as_text=True)


def test_post_without_body_and_query_takes_any_content_type(api: FlaskClient) -> None:
    response = api.post("/api/test_notifications/checks/nowhere.example.com:PING", content_type="text/plain")
    assert errors(response, 404) == ["could not find entity 'nowhere.example.com'"]


@pytest.mark.parametrize("content_type", ["application/json", "application/vnd.api+json", "text/plain"])
def test_patch_needs_the_json_patch_type(api: FlaskClient, content_type: str) -> None:
    body = '[{"op":"replace","path":"/contacts/0/first_name","value":"Bob"}]'
    assert errors(api.patch("/api/contacts/21", data=body, content_type=content_type), 415) == [
        "Unsupported Content-Type"]
    assert api.get("/api/contacts/21").get_json(force=True)["contacts"][0]["first_name"] == "Ada"


# --- unparseable bodies and JSON-Patch shape ---------------------------------------------------------


@pytest.mark.parametrize("body", ['{"contacts": [', "not json", "\xff\xfe", '{"a": 1}}', "[1, 2"])
def test_invalid_json_is_400(api: FlaskClient, body: str) -> None:
    response = api.post("/api/contacts", data=body.encode("latin-1"), content_type="application/json")
    assert errors(response, 400) == ["Invalid JSON in request body"]


@pytest.mark.parametrize("body", ["[" * 100000 + "]" * 100000, '{"contacts": [{"id": NaN, "first_name": "x"}]}',
                                  '{"contacts": [{"first_name": Infinity}]}'])
def test_json_that_python_would_stretch_is_400(api: FlaskClient, body: str) -> None:
    response = api.post("/api/contacts", data=body, content_type="application/json")
    assert errors(response, 400) == ["Invalid JSON in request body"]


def test_lone_surrogates_become_question_marks(api: FlaskClient) -> None:
    body = '{"contacts": [{"id": "s\\ud800", "first_name": "Zo\\udc00", "last_name": "\\ud83d\\ude00"}]}'
    response = api.post("/api/contacts", data=body, content_type="application/json")
    assert response.status_code == 201 and response.get_json(force=True) == ["s?"]
    [contact] = api.get("/api/contacts/s%3F").get_json(force=True)["contacts"]
    assert (contact["first_name"], contact["last_name"]) == ("Zo?", "\U0001f600")  # a valid pair is kept


def test_invalid_json_in_a_patch_is_400(api: FlaskClient) -> None:
    response = api.patch("/api/contacts/21", data="[{", content_type=PATCH_TYPE)
    assert errors(response, 400) == ["Invalid JSON in request body"]


@pytest.mark.parametrize("body", ["[]", "{}", '{"op":"replace"}', '"text"', "3", "null"])
def test_a_patch_body_that_is_not_a_non_empty_array_is_400(api: FlaskClient, body: str) -> None:
    response = api.patch("/api/contacts/21", data=body, content_type=PATCH_TYPE)
    assert errors(response, 400) == ["Invalid JSON-Patch request"]


def test_unsupported_patch_operations_are_ignored(api: FlaskClient) -> None:
    ops = [{"op": "test", "path": "/contacts/0/first_name", "value": "Ada"},
           {"op": "move", "from": "/contacts/0/first_name", "path": "/contacts/0/last_name"},
           {"op": "replace", "path": "/contacts/0/no_such_field", "value": 1},
           {"op": "replace", "path": "/media/0/first_name", "value": "wrong collection"},
           {"op": "add", "path": "/contacts/0/first_name", "value": "not a link"},
           {"path": "/contacts/0/first_name", "value": "no op"},
           {"op": "replace", "value": "no path"}, "not an object", 7]
    response = api.patch("/api/contacts/21", json=ops, content_type=PATCH_TYPE)
    assert response.status_code == 204 and response.get_data() == b""
    assert "Content-Type" not in response.headers
    assert api.get("/api/contacts/21").get_json(force=True)["contacts"][0]["first_name"] == "Ada"


# --- method override --------------------------------------------------------------------------------


def test_method_override_header_patch(api: FlaskClient) -> None:
    response = api.post("/api/contacts/21", json=[{"op": "replace", "path": "/contacts/0/first_name",
                                                   "value": "Bob"}],
                        content_type=PATCH_TYPE, headers={"X-HTTP-Method-Override": "PATCH"})
    assert response.status_code == 204
    assert api.get("/api/contacts/21").get_json(force=True)["contacts"][0]["first_name"] == "Bob"


def test_method_override_header_delete(api: FlaskClient) -> None:
    response = api.post("/api/contacts/21", headers={"X-HTTP-Method-Override": "delete"})
    assert response.status_code == 204
    assert errors(api.get("/api/contacts/21"), 404) == ["could not find contacts '21'"]


def test_method_override_form_field_is_ignored(api: FlaskClient) -> None:
    """A plain HTML form could send `_method`: it is never read (issue 17), the POST stays a POST."""
    response = api.post("/api/contacts/21", data={"_method": "DELETE"})
    assert errors(response, 404) == ["not routable"]
    assert api.get("/api/contacts/21").status_code == 200


def test_method_override_is_only_for_the_api(real_r: redis.Redis) -> None:
    http = create_app(redis=real_r).test_client()
    response = http.post("/checks/a/b/enabled", headers={"X-HTTP-Method-Override": "DELETE"})
    assert response.status_code == 400  # still a POST: refused for its missing CSRF token, not routed as DELETE


def test_method_override_is_only_for_post(api: FlaskClient) -> None:
    response = api.get("/api/contacts/21", headers={"X-HTTP-Method-Override": "DELETE"})
    assert response.status_code == 200
    assert api.get("/api/contacts/21").status_code == 200


# --- the contact lock (api-v1 1.5) ------------------------------------------------------------------


def test_contact_writes_give_423_while_the_lock_is_held(api: FlaskClient, real_r: redis.Redis,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    waits: list[float] = []
    monkeypatch.setattr(time, "sleep", waits.append)
    real_r.set(keys.contact_mass_update_lock(), "someone-else", ex=30)
    response = api.post("/api/contacts", json={"contacts": [{"id": "22", "first_name": "X"}]})
    assert errors(response, 423) == ["unable to obtain lock for resource 'contact_mass_update'"]
    assert waits == [1, 1]  # three attempts, a second apart
    assert real_r.get(keys.contact_mass_update_lock()) == b"someone-else"  # another holder's lock is kept
    real_r.delete(keys.contact_mass_update_lock())
    assert errors(api.get("/api/contacts/22"), 404) == ["could not find contacts '22'"]


def test_the_lock_is_released_after_success_and_error(api: FlaskClient, real_r: redis.Redis) -> None:
    assert api.post("/api/contacts", json={"contacts": [{"id": "22", "first_name": "X"}]}).status_code == 201
    assert not real_r.exists(keys.contact_mass_update_lock())
    assert api.post("/api/contacts", json={"contacts": [{"id": "22", "first_name": "X"}]}).status_code == 409
    assert not real_r.exists(keys.contact_mass_update_lock())


def test_concurrent_creates_of_one_contact_make_it_once(real_r: redis.Redis, monkeypatch: pytest.MonkeyPatch) -> None:
    real_sleep = time.sleep
    monkeypatch.setattr(time, "sleep", lambda seconds: real_sleep(seconds / 50))
    app = create_app(redis=real_r)
    statuses: list[int] = []
    start = threading.Barrier(8)

    def create(n: int) -> None:
        http = app.test_client()
        start.wait()
        body = {"contacts": [{"id": "same", "first_name": f"Writer {n}"}]}
        statuses.append(http.post("/api/contacts", json=body).status_code)

    threads = [threading.Thread(target=create, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(statuses)[0] == 201 and statuses.count(201) == 1
    assert set(statuses) <= {201, 409, 423}
    [contact] = app.test_client().get("/api/contacts/same").get_json(force=True)["contacts"]
    assert len(contact["links"]["notification_rules"]) == 1
    assert not real_r.exists(keys.contact_mass_update_lock())


@pytest.mark.parametrize("zone", ["Europe", "A" * 300])
def test_a_timezone_zoneinfo_cannot_open_is_ignored(api: FlaskClient, zone: str) -> None:
    response = api.post("/api/contacts", json={"contacts": [{"id": "tz", "first_name": "T", "timezone": zone}]})
    assert response.status_code == 201, response.get_data(as_text=True)
    patch = [{"op": "replace", "path": "/contacts/0/timezone", "value": zone}]
    assert api.patch("/api/contacts/21", json=patch, content_type=PATCH_TYPE).status_code == 204
    assert [c["timezone"] for c in api.get("/api/contacts/tz,21").get_json(force=True)["contacts"]] == [None, None]


# --- unexpected failures ------------------------------------------------------------------------------


def test_an_unreachable_redis_gives_the_500_body(caplog: pytest.LogCaptureFixture) -> None:
    dead = redis.Redis(host="127.0.0.1", port=1, socket_connect_timeout=0.2, retry=Retry(NoBackoff(), 0))
    http = create_app(redis=dead).test_client()
    with caplog.at_level(logging.ERROR, logger="web.errors"):
        response = http.get("/api/contacts")
    assert errors(response, 500) == ["internal server error"]
    assert "GET /api/contacts failed" in caplog.text


def test_a_plain_bytes_client_works(redis_server: Any) -> None:
    client = redis.Redis.from_url(redis_server.url)
    client.flushall()
    try:
        http = create_app(redis=client).test_client()
        assert http.post("/api/contacts", json={"contacts": [{"id": "é", "first_name": "Zoë"}]}).status_code == 201
        assert http.get("/api/contacts/%C3%A9").get_json(force=True)["contacts"][0]["first_name"] == "Zoë"
    finally:
        client.flushall()
        client.close()


# --- malformed bodies on every documented POST and PATCH ---------------------------------------------

MALFORMED_POST = ["null", "[]", "1", '"x"', "true", "{}", '{"%s": null}', '{"%s": {}}', '{"%s": "x"}',
                  '{"%s": [null]}', '{"%s": [1]}', '{"%s": ["x"]}', '{"%s": [[]]}',
                  '{"%s": [{"id": {}, "name": [], "type": 5, "entity_id": {}, "start_time": 5, "duration": "x",'
                  ' "summary": {}, "first_name": 1, "timezone": 7, "media": [], "address": 5, "interval": "x",'
                  ' "rollup_threshold": {}, "entities": "x", "tags": 5, "time_restrictions": [5],'
                  ' "warning_blackhole": "x", "contacts": {}}]}',
                  '{"%s": [{"start_time": "2024-13-45T99:99:99", "duration": -5, "time_restrictions":'
                  ' [{"start_time": "x", "end_time": [], "rrules": [{"rule_type": "Weekly", "interval": "x",'
                  ' "validations": {"day": [9], "day_of_week": {"x": "y"}}}]}]}]}',
                  '{"%s": [{"duration": 1e400, "interval": 1e400, "id": "' + "x" * 5000 + '"}]}',
                  '{"%s": [{"id": "\\ud800", "name": "\\udc00", "entity_id": "\\ud800", "first_name": "\\ud800",'
                  ' "type": "email", "address": "\\ud800", "summary": "\\ud800", "duration": 60,'
                  ' "start_time": "2024-01-01T00:00:00Z", "tags": ["\\ud800"], "entities": ["\\udfff"]}]}',
                  '{"%s": [{"duration": NaN, "interval": Infinity}]}',
                  '{"%s": ' + "[" * 5000 + "]" * 5000 + "}"]
MALFORMED_PATCH = ['[{"op": "replace", "path": "/{c}/0/{f}", "value": ' + v + "}]"
                   for v in ("null", "{}", "[]", '"x"', "-1", "1e400", '[{"start_time": 5}]', "true")]
PATCH_FIELDS = ["first_name", "timezone", "address", "interval", "rollup_threshold", "service_key", "entities",
                "time_restrictions", "warning_blackhole", "name", "enabled", "end_time", "tags"]


def _documented(method: str) -> Iterator[str]:
    """Concrete paths of the documented operations with `method`; ids are filled in by `_fill`."""
    from web.api.openapi import document

    for template, item in document()["paths"].items():
        if method in item:
            yield "/api" + template


def _fill(template: str, ids: dict[str, str]) -> str:
    """The template's `{ids}`/`{contact_id}` replaced by existing ids of that collection."""
    collection = template.split("/")[2]
    if template.startswith(("/api/scheduled", "/api/unscheduled", "/api/test_")):
        collection = template.split("/")[3]
    return template.replace("{contact_id}", "21").replace("{ids}", ids.get(collection, "21"))


def _collection(path: str) -> str:
    """The JSON-Patch / POST wrapper name of a path."""
    parts = path.split("/")
    if parts[2] == "contacts" and len(parts) > 4:
        return parts[4]
    return parts[2]


@pytest.fixture
def seeded(api: FlaskClient, real_r: redis.Redis, real_s: StrRedis) -> dict[str, str]:
    """Checks made by real events, entity 21 named www.example.com, a medium and the contact's rule id."""
    from flapjack_py.executive import Executive
    from flapjack_py.store.events import push_event

    for state in ("ok", "critical"):
        push_event(real_s, {"type": "service", "entity": "www.example.com", "check": "SSH", "state": state})
    Executive(real_r, {"executive": {"new_check_scheduled_maintenance_duration": 0}}).drain()
    assert api.post("/api/entities", json={"entities": [{"id": "21", "name": "www.example.com"}]}).status_code == 201
    assert api.post("/api/contacts/21/media", json={"media": [{"type": "email", "address": "a@b"}]}).status_code == 201
    rules = api.get("/api/contacts/21").get_json(force=True)["contacts"][0]["links"]["notification_rules"]
    return {"checks": "www.example.com:SSH", "entities": "21", "media": "21_email", "notification_rules": rules[0],
            "contacts": "21", "pagerduty_credentials": "21"}


@pytest.mark.parametrize("template", list(_documented("post")))
def test_malformed_post_bodies_never_give_5xx(api: FlaskClient, seeded: dict[str, str], template: str) -> None:
    path = _fill(template, seeded)
    name = _collection(path)
    for template in MALFORMED_POST:
        body = template.replace("%s", name)
        response = api.post(path, data=body, content_type="application/json")
        assert response.status_code < 500, (body, response.get_data(as_text=True))
        if response.status_code >= 400:
            errors(response, response.status_code)


@pytest.mark.parametrize("template", list(_documented("patch")))
def test_malformed_patch_values_never_give_5xx(api: FlaskClient, seeded: dict[str, str], template: str) -> None:
    path = _fill(template, seeded)
    collection = _collection(path)
    for template in MALFORMED_PATCH:
        for field in PATCH_FIELDS:
            body = template.replace("{c}", collection).replace("{f}", field)
            response = api.patch(path, data=body, content_type=PATCH_TYPE)
            assert response.status_code < 500, (body, response.get_data(as_text=True))
    for member in ("", "x", "~1~0", "%00"):
        for link in ("tags", "contacts", "entities", "notification_rules"):
            ops = [{"op": "remove", "path": f"/{collection}/0/links/{link}/{member}"},
                   {"op": "add", "path": f"/{collection}/0/links/{link}", "value": {"x": [1]}},
                   {"op": "add", "path": f"/{collection}/0/links/{link}/-", "value": None}]
            response = api.patch(path, json=ops, content_type=PATCH_TYPE)
            assert response.status_code < 500, (ops, response.get_data(as_text=True))
