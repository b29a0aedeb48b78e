"""Fixtures of the jabber tests: a prosody server on loopback, XMPP test clients, the running gateway.

Chain: `prosody` (module scope: accounts flapjack, alice, bob) -> `jabber_config`
-> `gateway` (JabberGateway on the real Redis, started and stopped) and
`person` / `roommate` (slixmpp clients in their own threads that record what
they receive).
"""

from __future__ import annotations

import asyncio
import queue
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import redis
import slixmpp

from flapjack_py.config.settings import Config, load_config
from flapjack_py.runtime.embedded_redis import EmbeddedRedis
from flapjack_py.store.plumbing.client import Clients
from gateways.jabber import JabberGateway, close_loop
from tests.alerting import enqueue_like_notifier
from tests.polling import wait_for as poll

from .prosody import DOMAIN, MUC, Prosody

PASSWORD = "s3cret-pw"
ROOM = f"ops@{MUC}"
WAIT = 15.0


@pytest.fixture(scope="module")
def prosody(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Prosody]:
    """A prosody server with accounts flapjack, alice and bob (password PASSWORD), stopped at the end."""
    server = Prosody(tmp_path_factory.mktemp("prosody"))
    for user in ("flapjack", "alice", "bob", "mallory"):
        server.register(user, PASSWORD)
    server.start()
    yield server
    server.stop()


@pytest.fixture
def jabber_settings(prosody: Prosody) -> dict[str, Any]:
    """The gateways.jabber section for the test server."""
    return {"enabled": True, "server": "127.0.0.1", "port": prosody.port, "jabberid": f"flapjack@{DOMAIN}",
            "password": PASSWORD, "alias": "flapjack", "rooms": [ROOM],
            "allowed_jids": [f"alice@{DOMAIN}", f"bob@{DOMAIN}"], "ca_file": prosody.ca_file, "retries": 3, "retry_intervals": [1]}


def make_config(redis_url: str, settings: dict[str, Any]) -> Config:
    """A Config with the jabber gateway enabled and the test Redis."""
    return load_config({"redis": {"url": redis_url}, "gateways": {"jabber": settings}})


@pytest.fixture
def jabber_config(redis_server: EmbeddedRedis, jabber_settings: dict[str, Any]) -> Config:
    return make_config(redis_server.url, jabber_settings)


@pytest.fixture
def start_gateway(real_clients: Clients) -> Iterator[Callable[..., JabberGateway]]:
    """start_gateway(settings): a started JabberGateway, stopped at teardown."""
    started: list[JabberGateway] = []

    def _start(settings: dict[str, Any], burst: bool = False) -> JabberGateway:
        gateway = JabberGateway(settings, real_clients)
        gateway.start(burst=burst)
        started.append(gateway)
        return gateway

    yield _start
    for gateway in started:
        gateway.stop()


@pytest.fixture
def gateway(start_gateway: Callable[..., JabberGateway], jabber_settings: dict[str, Any]) -> JabberGateway:
    """The gateway, connected (rooms joined)."""
    gw = start_gateway(jabber_settings)
    wait_for(gw.xmpp.ready.is_set, what="gateway connected")
    return gw


class ChatClient:
    """A slixmpp client in its own thread; `inbox` receives (type, from, body) of every message."""

    def __init__(self, port: int, user: str, ca_file: str, nick: str | None = None) -> None:
        self.loop = asyncio.new_event_loop()
        asyncio.set_event_loop(self.loop)
        self.xmpp = slixmpp.ClientXMPP(f"{user}@{DOMAIN}/test", PASSWORD)
        asyncio.set_event_loop(None)
        self.xmpp.register_plugin("xep_0045")
        self.xmpp.ca_certs = ca_file
        self.nick = nick or user
        self.port = port
        self.inbox: queue.Queue[tuple[str, str, str]] = queue.Queue()
        self.ready = threading.Event()
        self.xmpp.add_event_handler("session_start", self._session_start)
        self.xmpp.add_event_handler("message", self._message)
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.call(self._connect())
        assert self.ready.wait(WAIT), f"{user} did not connect"

    async def _connect(self) -> None:
        self.xmpp.connect("127.0.0.1", self.port)

    def _session_start(self, event: Any) -> None:
        self.xmpp.send_presence()
        self.ready.set()

    def _message(self, msg: slixmpp.Message) -> None:
        if msg["type"] == "groupchat" and (msg["mucnick"] == self.nick or msg["delay"]["stamp"]):
            return
        self.inbox.put((str(msg["type"]), str(msg["from"]), str(msg["body"])))

    def call(self, coro: Any, timeout: float = WAIT) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def join(self, room: str) -> None:
        self.call(self.xmpp.plugin["xep_0045"].join_muc_wait(slixmpp.JID(room), self.nick, maxstanzas=0,
                                                             timeout=WAIT))

    def say(self, to: str, body: str, groupchat: bool = False) -> None:
        async def _send() -> None:
            self.xmpp.send_message(mto=slixmpp.JID(to), mbody=body, mtype="groupchat" if groupchat else "chat")
        self.call(_send())

    def next(self, timeout: float = WAIT, kind: str | None = None) -> tuple[str, str, str]:
        """The next message received (of type `kind` if given)."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError("no message received in time")
            try:
                item = self.inbox.get(timeout=left)
            except queue.Empty:
                raise AssertionError("no message received in time") from None
            if kind is None or item[0] == kind:
                return item

    def ask(self, body: str, to: str = f"flapjack@{DOMAIN}") -> str:
        """Send a chat command to the gateway; return the text of its reply."""
        self.drop_pending()
        self.say(to, body)
        return self.next(kind="chat")[2]

    def drop_pending(self) -> None:
        while not self.inbox.empty():
            self.inbox.get_nowait()

    def close(self) -> None:
        async def _bye() -> None:
            self.xmpp.disconnect(wait=1.0)
        try:
            self.call(_bye(), timeout=5)
        except Exception:  # noqa: BLE001 -- teardown
            pass
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)
        if not self.thread.is_alive():
            close_loop(self.loop)


@pytest.fixture
def client_factory(prosody: Prosody) -> Iterator[Callable[..., ChatClient]]:
    made: list[ChatClient] = []

    def _make(user: str, nick: str | None = None) -> ChatClient:
        client = ChatClient(prosody.port, user, prosody.ca_file, nick)
        made.append(client)
        return client

    yield _make
    for client in made:
        client.close()


@pytest.fixture
def person(client_factory: Callable[..., ChatClient]) -> ChatClient:
    """alice@localhost, connected."""
    return client_factory("alice")


@pytest.fixture
def enqueue(real_r: redis.Redis) -> Callable[..., dict[str, Any]]:
    """enqueue(config, **over): render, record and enqueue a jabber alert as the notifier does."""
    def _enqueue(config: Config, **over: Any) -> dict[str, Any]:
        return enqueue_like_notifier(real_r, config, make_alert(**over))
    return _enqueue


def make_alert(**over: Any) -> dict[str, Any]:
    """A problem/critical jabber alert for foo:ping to alice, with overrides."""
    alert: dict[str, Any] = {
        "id": uuid.uuid4().hex, "timestamp": 1_700_000_000, "contact": "c1", "media": "jabber",
        "address": f"alice@{DOMAIN}", "check": "foo:ping", "type": "problem", "rollup": "",
        "state": "critical", "event_id": "foo:ping", "event_hash": "47ae7a99",
        "summary": "100% packet loss", "details": None, "time": 1_700_000_000, "duration": None,
        "notification_type": "problem",
    }
    alert.update(over)
    return alert


def wait_for(predicate: Callable[[], Any], timeout: float = WAIT, what: str = "condition") -> Any:
    """Poll `predicate` until truthy (bounded), with this suite's longer default wait."""
    return poll(predicate, timeout, what)


