"""Shared API fixtures: the app over the real Redis server, a test client, and data made by real events."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import redis
from flask import Flask
from flask.testing import FlaskClient

from flapjack_py.executive import Executive
from flapjack_py.store.events import push_event
from flapjack_py.store.plumbing.client import StrRedis
from web import create_app

EXECUTIVE_CONFIG = {"executive": {"new_check_scheduled_maintenance_duration": 0}}


@pytest.fixture
def app(real_r: redis.Redis) -> Flask:
    """The web app over the real Redis server, no token."""
    return create_app(redis=real_r)


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


@pytest.fixture
def send(real_r: redis.Redis, real_s: StrRedis) -> Callable[..., None]:
    """send(entity, check, state, summary=..., **fields): push a service event and let the executive process it."""
    executive = Executive(real_r, EXECUTIVE_CONFIG)

    def _send(entity: str, check: str, state: str = "ok", summary: str | None = None, **fields: Any) -> None:
        event = {"type": "service", "entity": entity, "check": check, "state": state, **fields}
        if summary is not None:
            event["summary"] = summary
        push_event(real_s, event)
        executive.drain()

    return _send


@pytest.fixture
def drain(real_r: redis.Redis) -> Callable[[], int]:
    """Run the executive over whatever is queued."""
    executive = Executive(real_r, EXECUTIVE_CONFIG)
    return executive.drain
