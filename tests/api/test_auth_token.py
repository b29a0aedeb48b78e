"""Bearer-token authentication beyond the basic on/off cases of test_auth.py (api-v1.md 14):
every documented operation and unknown /api path needs the token, the UI does not, writes are
refused before anything is read or written, tokens never reach the log, comparison is constant-time.
"""

from __future__ import annotations

import hmac
import logging
import re
from typing import Any

import pytest
import redis
from flask.testing import FlaskClient

import web.auth
from web import create_app

pytestmark = pytest.mark.real
JSONAPI = "application/vnd.api+json; charset=UTF-8"
TOKEN = "s3cret-token-ABC"
OTHER = "second-token-XYZ"


def client_for(real_r: redis.Redis, token: Any) -> FlaskClient:
    """A test client of an app configured with `web.api_token: token`."""
    return create_app(redis=real_r, config={"web": {"api_token": token}}).test_client()


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def assert_401(response: Any) -> None:
    """401 with the documented body, content type and challenge (no CORS headers: no origin is configured)."""
    assert response.status_code == 401
    assert response.headers["Content-Type"] == JSONAPI
    assert response.headers["WWW-Authenticate"] == "Bearer"
    assert "Access-Control-Allow-Origin" not in response.headers
    assert response.get_json(force=True) == {"errors": ["authentication required"]}


def test_an_empty_token_list_leaves_the_api_open(real_r: redis.Redis) -> None:
    assert client_for(real_r, []).get("/api/metrics").status_code == 200


@pytest.mark.parametrize("headers", [
    {"Authorization": f"Bearer {TOKEN}x"},
    {"Authorization": f"Bearer {TOKEN[:-1]}"},
    {"Authorization": f"Token {TOKEN}"},
    {"Authorization": "Bearer s3cret-tökén"},
    {"X-Api-Token": TOKEN},
])
def test_near_misses_are_401(real_r: redis.Redis, headers: dict[str, str]) -> None:
    assert_401(client_for(real_r, TOKEN).get("/api/contacts", headers=headers))


def test_the_scheme_is_case_insensitive(real_r: redis.Redis) -> None:
    assert client_for(real_r, TOKEN).get("/api/contacts", headers={"Authorization": f"bearer {TOKEN}"}).status_code \
        == 200


def test_writes_are_refused_before_anything_is_read_or_written(real_r: redis.Redis) -> None:
    http = client_for(real_r, TOKEN)
    assert_401(http.post("/api/contacts", json={"contacts": [{"id": "1", "first_name": "X"}]}))
    assert_401(http.post("/api/contacts", data="not json", content_type="text/plain"))  # 401 before 415/400
    assert_401(http.delete("/api/contacts/1"))
    assert real_r.dbsize() == 0
    made = http.post("/api/contacts", json={"contacts": [{"id": "1", "first_name": "X"}]}, headers=bearer(TOKEN))
    assert made.status_code == 201


def test_every_documented_operation_needs_the_token(real_r: redis.Redis) -> None:
    from web.api.openapi import document

    http = client_for(real_r, TOKEN)
    seen = 0
    for template, item in document()["paths"].items():
        path = "/api" + re.sub(r"{\w+}", "x:y", template)
        for method in item:
            if method not in ("get", "post", "patch", "delete"):
                continue
            if item[method].get("security") == [{}]:  # documented as open (the health check)
                assert http.open(path, method=method.upper()).status_code != 401, (method, path)
                continue
            assert_401(http.open(path, method=method.upper()))
            authorised = http.open(path, method=method.upper(), headers=bearer(TOKEN))
            assert authorised.status_code != 401, (method, path)
            seen += 1
    assert seen >= 47


@pytest.mark.parametrize(("method", "path"), [("GET", "/api/nothing"), ("PUT", "/api/contacts/1"), ("GET", "/api")])
def test_unknown_api_paths_need_the_token_too(real_r: redis.Redis, method: str, path: str) -> None:
    http = client_for(real_r, TOKEN)
    assert_401(http.open(path, method=method))
    response = http.open(path, method=method, headers=bearer(TOKEN))
    assert response.status_code == 404
    assert response.get_json(force=True) == {"errors": ["not routable"]}


def test_the_ui_is_not_guarded_by_the_api_token(real_r: redis.Redis) -> None:
    assert client_for(real_r, TOKEN).get("/apiary").status_code != 401


def test_tokens_never_reach_the_log(real_r: redis.Redis, caplog: pytest.LogCaptureFixture) -> None:
    http = client_for(real_r, [TOKEN, OTHER])
    with caplog.at_level(logging.DEBUG):
        http.get("/api/contacts", headers=bearer(TOKEN))
        http.get("/api/contacts", headers=bearer("guess-" + TOKEN))
        http.get("/api/contacts", headers={"Authorization": f"Basic {OTHER}"})
    assert caplog.records, "a refused request is logged"
    assert TOKEN not in caplog.text and OTHER not in caplog.text


def test_tokens_are_compared_in_constant_time(real_r: redis.Redis, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[bytes, bytes]] = []
    real = hmac.compare_digest

    def spy(a: bytes, b: bytes) -> bool:
        calls.append((a, b))
        return real(a, b)

    monkeypatch.setattr(web.auth.hmac, "compare_digest", spy)
    http = client_for(real_r, [TOKEN, OTHER])
    assert http.get("/api/metrics", headers=bearer(TOKEN)).status_code == 200
    assert len(calls) == 2, "every configured token is compared, whichever matches"
