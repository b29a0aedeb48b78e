"""Fixtures of the web UI tests: a real Redis with data made by the executive, the app and its client.

`world` builds data the way production does: events pushed on the queue, then
Executive.drain(). New-check maintenance is off so checks alert at once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import flask
import pytest
import redis

import web
from flapjack_py.executive import Executive
from flapjack_py.runtime.connection import clients_for
from flapjack_py.store import contacts as contact_store
from flapjack_py.store import entities as entity_store
from flapjack_py.store import media as media_store
from flapjack_py.store.events import push_event
from tests.forms import FormClient

CONFIG: dict[str, Any] = {"executive": {"new_check_scheduled_maintenance_duration": 0}}


class World:
    """Makes monitoring data through the real event path."""

    def __init__(self, client: redis.Redis) -> None:
        clients = clients_for(client)  # this test world's composition: `r` bytes, `s` str (what store/ takes)
        self.r, self.s = client, clients.text
        self.executive = Executive(clients, CONFIG)

    def event(self, entity: str, check: str, state: str, summary: str = "", **extra: Any) -> None:
        """Queue one service event (not processed until drain())."""
        push_event(self.s, {"type": "service", "entity": entity, "check": check, "state": state,
                            "summary": summary or f"{check} is {state}", **extra})

    def drain(self) -> int:
        return self.executive.drain()

    def contact(self, contact_id: str, first: str, last: str, entity: str, email: str = "") -> None:
        """A contact with an email medium (no rollup, 60 s interval) linked to `entity`."""
        contact_store.create_contact(self.s, {"id": contact_id, "first_name": first, "last_name": last,
                                              "email": email or f"{first.lower()}@example.com"})
        media_store.set_medium(self.s, contact_id, "email", email or f"{first.lower()}@example.com", 60)
        eid = entity_store.entity_id(self.s, entity)
        if eid is None:
            eid = f"id-{entity}"
            entity_store.save_entity(self.s, eid, entity)
        entity_store.add_entity_contacts(self.s, eid, [contact_id])


@pytest.fixture
def world(real_r: redis.Redis) -> World:
    return World(real_r)


@pytest.fixture
def make_app() -> Callable[[redis.Redis], flask.Flask]:
    """Build the app as production does: web.create_app (the UI blueprint included)."""
    def build(client: redis.Redis) -> flask.Flask:
        app = web.create_app(redis=client, config=CONFIG)
        app.config["TESTING"] = True
        app.test_client_class = FormClient
        return app
    return build


@pytest.fixture
def app(real_r: redis.Redis, make_app: Callable[[redis.Redis], flask.Flask]) -> flask.Flask:
    return make_app(real_r)


@pytest.fixture
def client(app: flask.Flask) -> Iterator[flask.testing.FlaskClient]:
    with app.test_client() as c:
        yield c
