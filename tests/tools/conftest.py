"""Fixtures for the command-line tools: a CliRunner against the session's real Redis, in UTC."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import redis
from click.testing import CliRunner, Result

from flapjack_py import keys
from flapjack_py.cli import main
from flapjack_py.runtime.embedded_redis import EmbeddedRedis


@pytest.fixture
def utc(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Local time is UTC for the test (tools print and read local time)."""
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.fixture
def flapjack(redis_server: EmbeddedRedis, real_r: redis.Redis, monkeypatch: pytest.MonkeyPatch, utc: None,
             tmp_path: Path) -> Callable[..., Result]:
    """Run `flapjack ARGS...` against the real test Redis (logging at ERROR, so stderr holds only the
    tools' own messages); returns click's Result."""
    config = tmp_path / "flapjack.yml"
    config.write_text("logging:\n  level: ERROR\n")
    monkeypatch.setenv("FLAPJACK_REDIS_URL", redis_server.url)
    monkeypatch.setenv("FLAPJACK_CONFIG", str(config))

    def run(*args: str, input: str | None = None) -> Result:
        return CliRunner().invoke(main, list(args), input=input, catch_exceptions=False)

    return run


def queued(client: redis.Redis) -> list[dict]:
    """Events on the queue, oldest first."""
    return [json.loads(raw) for raw in reversed(client.lrange(keys.events(), 0, -1))]
