"""GET /api/health (issue 35 item 5): anyone gets `status` and `reasons`; a recognised caller also gets the figures."""

from __future__ import annotations

from typing import Any

import flask
import pytest
import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

import web
from flapjack_py.access import Role
from flapjack_py.executive import Executive
from tests.forms import FormClient

from .conftest import CONFIG, People

pytestmark = pytest.mark.real

SHORT = {"status", "reasons"}
FIGURES = {"checks", "executives", "queue", "gateways"}
"""What a recognised caller gets besides SHORT (flapjack_py.runtime.health may add more, e.g. warnings)."""


def full(body: dict[str, Any]) -> bool:
    """True when `body` is the whole answer: status, reasons and the figures."""
    return SHORT | FIGURES <= set(body)


def health(client: flask.testing.FlaskClient, **headers: str) -> tuple[int, dict[str, Any]]:
    answer = client.get("/api/health", headers=headers)
    assert answer.headers["Cache-Control"] == "no-store"
    return answer.status_code, answer.get_json(force=True)


def test_anonymous_callers_get_only_status_and_reasons(people: People, client: FormClient) -> None:
    status, body = health(client)
    assert status == 503 and set(body) == SHORT
    assert body["status"] == "failing" and body["reasons"][0].startswith("No executive has run yet")


def test_healthy_anonymous_answer_is_short_too(people: People, real_r: redis.Redis, client: FormClient) -> None:
    Executive(real_r, CONFIG).drain()  # an executive beats
    assert health(client) == (200, {"status": "ok", "reasons": []})


@pytest.mark.parametrize("header", ["Bearer wrong", "Basic abc", "Bearer "])
def test_an_unknown_token_is_not_refused_and_gets_the_short_answer(people: People, client: FormClient,
                                                                   header: str) -> None:
    status, body = health(client, Authorization=header)
    assert status == 503 and set(body) == SHORT


@pytest.mark.parametrize("role", list(Role))
def test_a_token_of_any_role_gets_the_figures(people: People, real_r: redis.Redis, client: FormClient,
                                              role: Role) -> None:
    Executive(real_r, CONFIG).drain()
    status, body = health(client, **people.bearer(role))
    assert status == 200 and full(body)
    assert body["executives"]["alive"] == 1 and body["queue"] == {"length": 0, "oldest_age": 0}


def test_a_viewer_session_gets_the_figures(people: People, client: FormClient) -> None:
    people.login(client, Role.VIEWER)
    status, body = health(client)
    assert status == 503 and full(body)
    assert body["executives"] == {"alive": 0, "last_heartbeat_age": None}


def test_a_configured_api_token_gets_the_figures(make_app: Any) -> None:
    client = make_app(api_token="s3cret").test_client()
    assert set(health(client)[1]) == SHORT
    assert full(health(client, Authorization="Bearer s3cret")[1])


def test_with_no_token_and_no_user_everyone_gets_the_figures(client: FormClient) -> None:
    """The open mode: every caller acts as an admin (web/auth.py), so the answer is as before."""
    assert full(health(client)[1])


def test_an_unreachable_redis_is_a_short_503_not_an_error(tmp_path: Any) -> None:
    gone = redis.Redis(unix_socket_path=str(tmp_path / "no.sock"), socket_connect_timeout=0.2,
                       retry=Retry(NoBackoff(), 0))  # no seconds of redis-py back-off
    client = web.create_app(redis=gone, config=CONFIG).test_client()
    status, body = health(client, Authorization="Bearer whatever")
    assert status == 503 and set(body) == SHORT
    assert body["reasons"][0].startswith("Redis is unreachable")
