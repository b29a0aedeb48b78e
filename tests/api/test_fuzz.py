"""Fuzz the whole API from its OpenAPI document (schemathesis): no 5xx, responses conform to the document.

Bounded: a few examples per operation, no deadline, over the real Redis server
(flushed between operations). Some data exists first so lookups can succeed.
"""

from __future__ import annotations

import pytest
import redis
import schemathesis
from flask import Flask
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from flapjack_py.executive import Executive
from flapjack_py.store.events import push_event
from flapjack_py.store.plumbing.client import StrRedis
from tests.api.fuzzing import operations, run_cases
from web import create_app

pytestmark = [pytest.mark.real, pytest.mark.slow]
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]


@pytest.fixture
def fuzz_app(real_r: redis.Redis, real_s: StrRedis) -> Flask:
    for check, state in (("PING", "ok"), ("SSH", "critical")):
        push_event(real_s, {"type": "service", "entity": "www.example.com", "check": check, "state": state})
    Executive(real_r, {"executive": {"new_check_scheduled_maintenance_duration": 0}}).drain()
    return create_app(redis=real_r)


@pytest.mark.parametrize(("method", "path"), operations())
def test_api_conforms(fuzz_app: Flask, method: str, path: str) -> None:
    schema = schemathesis.openapi.from_wsgi("/api/openapi.json", fuzz_app)
    run_cases(schema, method, path, 5, lambda case: case.call_and_validate(checks=CHECKS))
