"""Shared fixtures: config -> redis (fake or real) -> executive/app -> clients.

`r` is a fakeredis client (bytes replies, like a plain redis.Redis.from_url) for
the fast loop. `real_r` is a client of a real redis-server started once per test
session through flapjack_py.embedded_redis, flushed after each test.
`clock` moves time with time-machine and shifts Redis TTLs by the same amount.
`browser`, `page` and `base_url`: a real chromium, and the directory's `app` fixture served to it.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from typing import Any

import fakeredis
import pytest
import redis
import time_machine

from flapjack_py.embedded_redis import EmbeddedRedis
from tests import browser as browsers

START = 1_700_000_000  # 2023-11-14 22:13:20 UTC, a Tuesday
SERVER_FIXTURES = frozenset({"redis_server", "real_r", "smtp_server", "prosody"})
"""Fixtures that start a real server: a test using any of them (directly or through another
fixture) gets the `real` marker, so `-m "not real"` runs only the fast loop."""


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark every test that needs a real server `real` (before `-m` selects)."""
    for item in items:
        if SERVER_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.real)


@pytest.fixture
def r() -> Iterator[redis.Redis]:
    """A fresh fakeredis client returning bytes."""
    client = fakeredis.FakeRedis()
    yield client
    client.flushall()


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmbeddedRedis]:
    """A real redis/valkey server for the whole session (persistence off)."""
    # a per-process directory: an executive left over from an earlier run (same checkout) finds no socket
    server = EmbeddedRedis(tmp_path_factory.mktemp(f"redis-{os.getpid()}"), persistent=False)
    server.start()
    yield server
    server.stop()


@pytest.fixture
def real_r(redis_server: EmbeddedRedis) -> Iterator[redis.Redis]:
    """A client of the real server, emptied before and after the test."""
    client = redis_server.client()
    client.flushall()
    yield client
    client.flushall()
    client.close()


class Clock:
    """Frozen time that tests move forward; shifts the TTLs of Redis keys to match.

    Redis expires keys by its own clock, so when the test jumps `n` seconds
    ahead every key with a TTL has its TTL cut by `n` (keys whose TTL runs out
    are deleted), as if the time had really passed.
    """

    def __init__(self, traveller: time_machine.Coordinates, clients: list[redis.Redis]) -> None:
        self._traveller = traveller
        self.clients = clients

    @property
    def now(self) -> int:
        return int(time.time())

    def advance(self, seconds: float) -> int:
        """Move time forward; return the new `now`."""
        self._traveller.shift(seconds)
        for client in self.clients:
            shift_ttls(client, seconds)
        return self.now


def shift_ttls(client: redis.Redis, seconds: float) -> None:
    """Cut every key's TTL by `seconds`, deleting keys whose TTL runs out."""
    ms = int(seconds * 1000)
    for key in client.scan_iter(count=1000):
        ttl = client.pttl(key)
        if ttl is None or ttl < 0:
            continue
        if ttl <= ms:
            client.delete(key)
        else:
            client.pexpire(key, ttl - ms)


@pytest.fixture
def clock(request: pytest.FixtureRequest) -> Iterator[Clock]:
    """Time frozen at START; `clock.advance(s)` moves it and the TTLs of `r`/`real_r`."""
    clients = [request.getfixturevalue(name) for name in ("r", "real_r") if name in request.fixturenames]
    with time_machine.travel(START, tick=False) as traveller:
        yield Clock(traveller, clients)


# --- real browser (Debian chromium through Playwright; helpers and marks in tests/browser.py) ----------


@pytest.fixture
def base_url(app: Any) -> Iterator[str]:
    """The directory's `app` fixture served on 127.0.0.1, a free port, in a thread."""
    with browsers.serving_app(app) as url:
        yield url


@pytest.fixture
def browser() -> Iterator[Any]:
    """A headless chromium for one test (contexts and pages: browser.new_context())."""
    with browsers.chromium() as found:
        yield found


@pytest.fixture
def page(base_url: str, browser: Any) -> Any:
    """A 1400 x 900 tab of `browser`, the app served at `base_url` (closed after the browser)."""
    tab = browser.new_page(viewport={"width": 1400, "height": 900})
    tab.set_default_timeout(browsers.TIMEOUT_MS)
    return tab
