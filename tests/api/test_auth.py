"""Optional bearer-token authentication (api-v1.md 14)."""

from __future__ import annotations

import pytest

from web import create_app

from .helpers import body_of, errors

pytestmark = pytest.mark.real


def client_for(real_r, token):
    return create_app(redis=real_r, config={"web": {"api_token": token}}).test_client()


def test_open_without_token(client):
    assert client.get("/api/entities").status_code == 200


@pytest.mark.parametrize("header", [None, "Bearer wrong", "s3cret", "Basic s3cret", "Bearer "])
def test_missing_or_bad_token_is_401(real_r, header):
    client = client_for(real_r, "s3cret")
    res = client.get("/api/entities", headers={"Authorization": header} if header else {})
    assert errors(res, 401) == ["authentication required"]
    assert res.headers["WWW-Authenticate"] == "Bearer"
    assert "Access-Control-Allow-Origin" not in res.headers


def test_valid_token(real_r):
    client = client_for(real_r, "s3cret")
    res = client.get("/api/entities", headers={"Authorization": "Bearer s3cret"})
    assert body_of(res) == {"entities": []}
    res = client.post("/api/entities", json={}, headers={"Authorization": "Bearer s3cret"})
    assert errors(res, 403) == ["No 'entities' object received"]


def test_list_of_tokens(real_r):
    client = client_for(real_r, ["one", "two"])
    assert client.get("/api/metrics/checks", headers={"Authorization": "Bearer two"}).status_code == 200
    assert client.get("/api/metrics/checks", headers={"Authorization": "Bearer one"}).status_code == 200
    assert client.get("/api/metrics/checks", headers={"Authorization": "Bearer three"}).status_code == 401


def test_openapi_and_options_without_token(real_r):
    client = client_for(real_r, "s3cret")
    res = client.get("/api/openapi.json")
    assert res.status_code == 200 and "/entities" in body_of(res)["paths"]
    res = client.options("/api/entities/1")
    assert res.status_code == 204 and res.data == b""
    assert "Access-Control-Max-Age" not in res.headers  # no web.cors_origins configured
