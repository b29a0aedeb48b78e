"""GET /api/checks/ENTITY:CHECK/decisions: the decision trace over the API (issue 14 point 4)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import redis
from flask.testing import FlaskClient

from flapjack_py.store import contacts as contact_store
from flapjack_py.store import entities as entity_store
from flapjack_py.store.plumbing.client import StrRedis

pytestmark = pytest.mark.real


def test_decisions_explain_the_filter_and_the_contacts(client: FlaskClient, send: Callable[..., None],
                                                        real_r: redis.Redis, clock: Any, real_s: StrRedis) -> None:
    send("web-01", "HTTP", "ok")
    contact_store.create_contact(real_s, {"id": "ada", "first_name": "Ada", "last_name": "L",
                                          "media": {"email": "ada@example.com"}})
    entity_store.add_entity_contacts(real_s, entity_store.entity_id(real_s, "web-01"), ["ada"])
    send("web-01", "HTTP", "critical")
    clock.advance(30)
    send("web-01", "HTTP", "critical")
    reply = client.get("/api/checks/web-01:HTTP/decisions")
    assert reply.status_code == 200
    newest, held = reply.get_json()["decisions"]
    assert newest["type"] == "problem"
    assert newest["contacts"][0]["media"] == [
        {"medium": "email", "outcome": "gateway_disabled", "alert": newest["contacts"][0]["media"][0]["alert"]}]
    assert held["stopped_by"]["code"] == "initial_delay"
    assert any("initial failure delay" in line for line in held["explanation"])
    # at: only what was decided at or before that time
    before = client.get(f"/api/checks/web-01:HTTP/decisions?at={clock.now - 1}").get_json()["decisions"]
    assert [d["stopped_by"]["code"] for d in before] == ["initial_delay"]
    assert client.get("/api/checks/web-01:HTTP/decisions?limit=1").get_json()["decisions"] == [newest]


def test_unknown_entity_and_malformed_id(client: FlaskClient) -> None:
    assert client.get("/api/checks/nowhere:HTTP/decisions").status_code == 404
    assert client.get("/api/checks/nocolon/decisions").status_code == 400


def test_decisions_need_a_viewer_when_a_token_exists(real_r: redis.Redis) -> None:
    from web import create_app

    app = create_app(redis=real_r, config={"web": {"api_token": "s3cret-token"}})
    anonymous = app.test_client().get("/api/checks/web-01:HTTP/decisions")
    assert anonymous.status_code == 401


def test_in_the_openapi_document(client: FlaskClient) -> None:
    paths = client.get("/api/openapi.json").get_json()["paths"]
    assert "get" in paths["/checks/{check_id}/decisions"]
