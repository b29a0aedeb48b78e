"""Fuzz every operation with *malformed* input (schemathesis negative mode; issue 4 item 5).

test_fuzz.py sends valid requests; this module mainly sends requests that violate the
OpenAPI document (wrong types, missing required members, bad ids and query
values) to the WSGI app over the real Redis server, seeded with checks made by
real events plus a contact, a medium and an entity. Every response must be
non-5xx and still conform to the document (documented status, content type and
error body). Bounded: a fixed seed, no shrinking, no deadline, a dozen examples
per operation; the module runs in about 20 s.
"""

from __future__ import annotations

from typing import Any

import pytest
import redis
import schemathesis
from flask import Flask
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from flapjack_py.executive import Executive
from flapjack_py.store.events import push_event
from tests.api.fuzzing import operations, run_cases
from web import create_app

pytestmark = [pytest.mark.real, pytest.mark.slow]
MAX_EXAMPLES = 12
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]
SEED_EVENTS: list[dict[str, Any]] = [
    {"type": "service", "entity": "www.example.com", "check": "SSH", "state": "ok", "summary": "fine"},
    {"type": "service", "entity": "www.example.com", "check": "SSH", "state": "critical", "summary": "refused"},
    {"type": "service", "entity": "db.example.com", "check": "Disk / Usage", "state": "warning"},
]
JSONAPI = "application/vnd.api+json"


def _seed(app: Flask, client: redis.Redis) -> None:
    """Real events through the executive, then a contact with a medium and an entity through the API."""
    for event in SEED_EVENTS:
        push_event(client, event)
    Executive(client, {"executive": {"new_check_scheduled_maintenance_duration": 0}}).drain()
    http = app.test_client()
    http.post("/api/contacts", json={"contacts": [{"id": "21", "first_name": "Ada", "last_name": "L"}]},
              content_type=JSONAPI)
    http.post("/api/contacts/21/media", json={"media": [{"type": "email", "address": "ada@example.com"}]},
              content_type=JSONAPI)
    http.post("/api/entities", json={"entities": [{"id": "1234", "name": "api.example.com", "contacts": ["21"]}]},
              content_type=JSONAPI)


@pytest.fixture
def malformed_app(real_r: redis.Redis) -> Flask:
    """The app over the real (flushed) Redis server, with some data to find."""
    app = create_app(redis=real_r)
    _seed(app, real_r)
    return app


@pytest.fixture
def malformed_schema(malformed_app: Flask) -> Any:
    """The app's own document, loaded over WSGI, generating input that violates it (and valid input, since
    operations whose only parameter is a free string id have no invalid form)."""
    return schemathesis.openapi.from_wsgi("/api/openapi.json", malformed_app)


@pytest.mark.parametrize(("method", "path"), operations())
def test_malformed_input_is_answered_without_5xx(malformed_schema: Any, method: str, path: str) -> None:
    """No 5xx for input that breaks the document, and still the documented status, type and body."""
    run_cases(malformed_schema, method, path, MAX_EXAMPLES, lambda case: case.call_and_validate(checks=CHECKS),
              modes=(GenerationMode.NEGATIVE, GenerationMode.POSITIVE))
