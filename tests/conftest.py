"""Shared fixtures: config -> redis (fake or real) -> executive/app -> clients.

`r` is a fakeredis client (bytes replies, like a plain redis.Redis.from_url) for
the fast loop; `s` is the str client on the same fake server, the kind every
flapjack_py.store function takes, and `clients` the pair (Clients). `real_r` is
a bytes client of a real redis-server started once per test session through
flapjack_py.runtime.embedded_redis, flushed after each test; `real_s` and
`real_clients` are its str client and the pair.
`clock` moves time with time-machine and shifts Redis TTLs by the same amount.
`browser`, `page` and `base_url`: a real chromium, and the directory's `app` fixture served to it.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Iterator
from typing import Any

import fakeredis
import pytest
import redis
import time_machine

from flapjack_py.runtime.connection import embedded_clients
from flapjack_py.runtime.embedded_redis import EmbeddedRedis
from flapjack_py.store.plumbing.client import Clients, StrRedis, as_str_redis
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


@pytest.fixture(autouse=True)
def _restore_root_logging() -> Iterator[None]:
    """Put the root logger back as the test found it: a test that runs `flapjack ...` in process applies the
    config's `logging` section (dictConfig: root level and handler), which would otherwise hide later tests'
    warnings from caplog."""
    root = logging.getLogger()
    level, handlers = root.level, list(root.handlers)
    yield
    for handler in root.handlers:
        if handler not in handlers:
            root.removeHandler(handler)
            handler.close()
    root.setLevel(level)


@pytest.fixture
def fake_server() -> fakeredis.FakeServer:
    """The fake server `r`, `s` and `clients` share."""
    return fakeredis.FakeServer()


@pytest.fixture
def r(fake_server: fakeredis.FakeServer) -> Iterator[redis.Redis]:
    """A fresh fakeredis client returning bytes."""
    client = fakeredis.FakeRedis(server=fake_server)
    yield client
    client.flushall()


@pytest.fixture
def s(fake_server: fakeredis.FakeServer) -> StrRedis:
    """The str client (what store/ takes) on `r`'s fake server."""
    return as_str_redis(fakeredis.FakeRedis(server=fake_server, decode_responses=True))


@pytest.fixture
def clients(r: redis.Redis, s: StrRedis) -> Clients:
    """The pair on the fake server, as a process composes it."""
    return Clients(text=s, raw=r)  # type: ignore[arg-type]


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmbeddedRedis]:
    """A real redis/valkey server for the whole session (persistence off)."""
    # a per-process directory: an executive left over from an earlier run (same checkout) finds no socket
    server = EmbeddedRedis(tmp_path_factory.mktemp(f"redis-{os.getpid()}"), persistent=False)
    server.start()
    yield server
    server.stop()


@pytest.fixture
def real_clients(redis_server: EmbeddedRedis) -> Iterator[Clients]:
    """The str and bytes clients of the real server, as a process composes them; emptied before and after."""
    pair = embedded_clients(redis_server)
    pair.raw.flushall()
    yield pair
    pair.raw.flushall()
    pair.close()


@pytest.fixture
def real_r(real_clients: Clients) -> redis.Redis:
    """A bytes client of the real server (emptied before and after the test)."""
    return real_clients.raw  # type: ignore[return-value]


@pytest.fixture
def real_s(real_clients: Clients) -> StrRedis:
    """The str client of the real server: the kind every flapjack_py.store function takes."""
    return real_clients.text


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
    servers = {"r": "fake_server", "real_r": "real_clients"}  # any client of a server brings in these
    clients = [request.getfixturevalue(name) for name, server in servers.items() if server in request.fixturenames]
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
