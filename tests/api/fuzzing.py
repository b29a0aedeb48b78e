"""Run schemathesis per API operation without its pytest plugin (whose lazy fixtures break on pytest 9).

Operations are listed at collection time from a throwaway app over fakeredis;
each test then loads the document from its own app and runs hypothesis over
that one operation's cases.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import fakeredis
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schemathesis import GenerationMode

from web import create_app


def operations() -> list[tuple[str, str]]:
    """(METHOD, path) of every operation in the app's OpenAPI document."""
    schema = schemathesis.openapi.from_wsgi("/api/openapi.json", create_app(redis=fakeredis.FakeRedis()))
    return [(op.ok().method.upper(), op.ok().path) for op in schema.get_all_operations()]


def run_cases(schema: Any, method: str, path: str, max_examples: int, check: Callable[[Any], None],
              modes: tuple[GenerationMode, ...] = (GenerationMode.POSITIVE,)) -> None:
    """Generate up to `max_examples` cases for one operation (fixed seed, no deadline) in the given
    generation modes (positive: valid input; negative: input that violates the document) and check each."""
    operation = schema[path][method]
    strategy = st.one_of(*(operation.as_strategy(generation_mode=mode) for mode in modes))

    @given(case=strategy)
    @settings(max_examples=max_examples, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    def cases(case: Any) -> None:
        check(case)

    cases()
