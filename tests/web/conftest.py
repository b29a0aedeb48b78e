"""Fixtures of the web security tests: an app over the real Redis with a user and a token per role.

`people.token[role]` is an API token acting with `role`; `people.login(client, role)`
logs a test client in through the real login form. Passwords are PASSWORD.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import flask
import pytest
import redis
from argon2 import PasswordHasher

import web
from flapjack_py import credentials, keys
from flapjack_py.access import Role
from flapjack_py.executive import Executive
from flapjack_py.runtime.connection import clients_for
from flapjack_py.store import users as user_store
from flapjack_py.store.events import push_event
from flapjack_py.store.plumbing.client import StrRedis
from tests.forms import FormClient

PASSWORD = "correct horse battery"
CONFIG: dict[str, Any] = {"executive": {"new_check_scheduled_maintenance_duration": 0},
                          "web": {"login_rate_limit": "1000 per hour"}}


@dataclass
class People:
    """One user per role (named after it) and one API token each."""

    r: redis.Redis
    token: dict[Role, str] = field(default_factory=dict)

    @functools.cached_property
    def s(self) -> StrRedis:
        """The str client on `r`'s server (what store/ takes), made once."""
        return clients_for(self.r).text

    def add(self, role: Role) -> None:
        user_store.save_user(self.s, user_store.User(role.value, role, credentials.hash_password(PASSWORD), 0))
        secret = credentials.new_token()
        digest = credentials.token_digest(secret)
        user_store.add_token(self.s, digest, user_store.Token(credentials.token_id(digest), role.value, 0))
        self.token[role] = secret

    def bearer(self, role: Role) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token[role]}"}

    @staticmethod
    def login(client: FormClient, role: Role, password: str = PASSWORD) -> Any:
        """POST the login form (with its CSRF token) as the user named after `role`."""
        return client.post("/login", data={"username": role.value, "password": password})


@pytest.fixture(autouse=True)
def cheap_hashes(monkeypatch: pytest.MonkeyPatch) -> None:
    """argon2 at its lowest cost: the tests check who gets in, not how slow guessing is."""
    monkeypatch.setattr(credentials, "_HASHER", PasswordHasher(time_cost=1, memory_cost=8, parallelism=1))


def known_check(r: redis.Redis, entity: str = "web-01", check: str = "HTTP") -> None:
    """Make `entity:check` exist through the real event path (UI forms refuse unknown checks)."""
    push_event(r, {"type": "service", "entity": entity, "check": check, "state": "ok", "summary": "fine"})
    Executive(r, CONFIG).drain()


def world_keys(r: redis.Redis) -> set[bytes]:
    """Every key but the signing key (made on the first UI request) and the audit trail (where the refusal
    itself is written): what a refused request must not change."""
    return set(r.keys()) - {keys.web_secret_key().encode(), keys.audit().encode()}


@pytest.fixture
def people(real_r: redis.Redis) -> People:
    found = People(real_r)
    for role in Role:
        found.add(role)
    return found


@pytest.fixture
def make_app(real_r: redis.Redis) -> Callable[..., flask.Flask]:
    """make_app(**web_settings): the production app (UI included) over the real Redis."""
    def build(**web_settings: Any) -> flask.Flask:
        config = {**CONFIG, "web": {**CONFIG["web"], **web_settings}}
        app = web.create_app(redis=real_r, config=config)
        app.test_client_class = FormClient
        return app
    return build


@pytest.fixture
def app(make_app: Callable[..., flask.Flask]) -> flask.Flask:
    return make_app()


@pytest.fixture
def client(app: flask.Flask) -> FormClient:
    return app.test_client()  # type: ignore[return-value]
