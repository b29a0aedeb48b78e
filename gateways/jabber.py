"""`flapjack gateway jabber`: one long-lived XMPP client that delivers alerts and runs the chat bot.

engine.md section 6.3. An asyncio thread runs the slixmpp client (join rooms and
announce on connect, whitespace keepalive, reconnect with back-off, STARTTLS as
the server requires, stop on a refused login); a drain thread runs rq burst
rounds on the `jabber` queue while the client is connected, so alerts wait in
the queue while the server is away. Each alert goes through
gateways.worker.deliver / base.deliver_alert (status, retries, logging); it
counts as delivered once the server has answered a ping sent after it.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import logging
import signal
import socket
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import slixmpp
from rq import Queue
from rq.serializers import JSONSerializer
from rq.timeouts import TimerDeathPenalty
from slixmpp.exceptions import IqError, IqTimeout
from slixmpp.xmlstream.xmlstream import NotConnectedError

from flapjack_py.config.gateways import GatewaySettings
from flapjack_py.config.settings import Config
from flapjack_py.config.types import Port, Text, Texts
from flapjack_py.model.alert import Alert
from flapjack_py.notify.render import local_time
from flapjack_py.runtime.connection import open_clients
from flapjack_py.runtime.supervisor import EXIT_CONFIG
from flapjack_py.store.plumbing.client import Clients

from . import base, worker
from .jabber_bot import Bot, BotSettings, command_in_chat, command_in_room

log = logging.getLogger(__name__)

MEDIUM = "jabber"
REQUIRED = ("jabberid", "password")
DEFAULT_PORT = 5222
KEEPALIVE = 60
"""Seconds between whitespace keepalives."""
CONNECT_WAIT = 60.0
"""Longest wait (s) of one alert for the connection before its try fails (and rq retries it)."""
CONFIRM_TIMEOUT = 15.0
"""Seconds to wait for the server's answer to the ping that confirms an alert was received."""
JOIN_TIMEOUT = 15.0
TICK = 0.2
"""Seconds between looks at the queue while idle."""
ROUND_JOBS = 10
"""Most alerts per rq round, so a stop request is seen soon."""
REFUSAL = "sorry, you are not allowed to give me commands"


class JabberSection(GatewaySettings):
    """`gateways.jabber` as the config is validated (JabberSettings is what the client reads of it);
    `allowed_jids` empty means nobody may give commands."""

    required = REQUIRED
    server: Text | None = None
    port: Port = DEFAULT_PORT
    jabberid: Text | None = None
    password: Text | None = None
    alias: Text = "flapjack"
    identifiers: Texts = ()
    rooms: Texts = ()
    allowed_jids: Texts = ()
    allowed_rooms: Texts = ()
    ca_file: Text | None = None


@dataclass(frozen=True)
class JabberSettings:
    """The `gateways.jabber` section, with engine.md 6.3 defaults applied."""

    jid: str
    password: str
    server: str | None = None
    port: int = DEFAULT_PORT
    alias: str = "flapjack"
    identifiers: tuple[str, ...] = ("flapjack",)
    rooms: tuple[str, ...] = ()
    allowed_jids: frozenset[str] = frozenset()
    """JIDs that may give commands, directly or in a room; empty: nobody (deny by default)."""
    allowed_rooms: frozenset[str] | None = None
    """Rooms commands are read in; None: every joined room."""
    ca_file: str | None = None

    @classmethod
    def from_mapping(cls, settings: Mapping[str, Any]) -> JabberSettings:
        """Read the gateway section; the resource `/<hostname>` is added to a bare jabberid."""
        jid = str(settings["jabberid"])
        if "/" not in jid:
            jid = f"{jid}/{socket.gethostname()}"
        alias = str(settings.get("alias") or "flapjack")
        identifiers = tuple(dict.fromkeys([*map(str, settings.get("identifiers") or []), alias]))
        return cls(jid=jid, password=str(settings["password"]), server=settings.get("server") or None,
                   port=int(settings.get("port") or DEFAULT_PORT), alias=alias, identifiers=identifiers,
                   rooms=tuple(_bare(r) for r in settings.get("rooms") or []),
                   allowed_jids=_jid_set(settings.get("allowed_jids")) or frozenset(),
                   allowed_rooms=_jid_set(settings.get("allowed_rooms")), ca_file=settings.get("ca_file"))


def backoff(attempt: int) -> float:
    """Seconds before reconnect attempt number `attempt` (1-based): 2 s, 10 s after 10 tries, 60 s after 60."""
    if attempt > 60:
        return 60.0
    return 10.0 if attempt > 10 else 2.0


class JabberClient(slixmpp.ClientXMPP):
    """The XMPP side: connection life, sending alerts, handing chat commands to the bot."""

    def __init__(self, settings: JabberSettings, bot: Bot) -> None:
        super().__init__(settings.jid, settings.password)
        self.settings = settings
        self.bot = bot
        self.ready = asyncio.Event()
        self.auth_failed = False
        self.auth_error = "no usable login method"
        self.stopping = False
        self.attempts = 0
        self._pending_reconnect: asyncio.TimerHandle | None = None
        self.whitespace_keepalive = True
        self.whitespace_keepalive_interval = KEEPALIVE
        if settings.ca_file:
            self.ca_certs = Path(settings.ca_file)
        for plugin in ("xep_0030", "xep_0045", "xep_0199", "xep_0203"):
            self.register_plugin(plugin)
        self.add_event_handler("session_start", self._on_session_start)
        self.add_event_handler("disconnected", self._on_disconnected)
        self.add_event_handler("failed_auth", self._on_auth_refused)
        self.add_event_handler("failed_all_auth", self._on_failed_auth)
        self.add_event_handler("message", self._on_chat)
        self.add_event_handler("groupchat_message", self._on_groupchat)

    def start(self) -> None:
        """Start connecting (runs in the client's loop)."""
        self.connect(self.settings.server, self.settings.port) if self.settings.server else self.connect()

    def reschedule_connection_attempt(self) -> asyncio.Future[Any] | None:
        """Retry a failed connect after the engine.md 6.3 back-off (slixmpp's own doubles up to 300 s)."""
        if self._current_connection_attempt is None or self.stopping:
            return None
        self.attempts += 1
        self._connect_loop_wait = backoff(self.attempts)
        log.info("jabber: cannot reach the server; next try in %.0fs", self._connect_loop_wait)
        self._current_connection_attempt = asyncio.ensure_future(self._connect_loop(), loop=self.loop)
        return self._current_connection_attempt

    async def deliver(self, to: str, body: str, groupchat: bool) -> None:
        """Send one message once connected; return when the server has confirmed it.

        Raises base.TransientError when not connected in time or not confirmed.
        """
        await self._wait_ready()
        self.send_message(mto=slixmpp.JID(to), mbody=body, mtype="groupchat" if groupchat else "chat")
        try:
            await self.plugin["xep_0199"].send_ping(slixmpp.JID(self.boundjid.host), timeout=CONFIRM_TIMEOUT)
        except IqError:
            pass  # an error reply still proves the server read the message sent before the ping
        except IqTimeout:
            raise base.TransientError("the XMPP server did not confirm the message") from None

    async def _wait_ready(self) -> None:
        """Wait (at most CONNECT_WAIT s) for a session; TransientError when none comes or the gateway stops."""
        deadline = time.monotonic() + CONNECT_WAIT
        while not self.ready.is_set():
            if self.stopping or time.monotonic() > deadline:
                raise base.TransientError("not connected to the XMPP server")
            await asyncio.sleep(0.1)

    async def close(self) -> None:
        """Disconnect for good (no reconnect)."""
        self.stopping = True
        self.ready.clear()
        self.cancel_connection_attempt()
        if self.transport:
            await self.disconnect(wait=2.0)

    # --- connection events -----------------------------------------------------

    async def _on_session_start(self, event: Any) -> None:
        self.attempts = 0
        self.send_presence()
        announcement = f"flapjack's jabber gateway started at {local_time(int(time.time()))}, hello! Try typing 'help'."
        for room in self.settings.rooms:
            try:
                await self.plugin["xep_0045"].join_muc_wait(slixmpp.JID(room), self.settings.alias, maxstanzas=0,
                                                            timeout=JOIN_TIMEOUT)
            except (TimeoutError, IqError, IqTimeout, NotConnectedError) as exc:
                log.error("jabber: cannot join room %s: %s", room, exc)
                continue
            self.send_message(mto=slixmpp.JID(room), mbody=announcement, mtype="groupchat")
        log.info("jabber: connected as %s, rooms: %s", self.boundjid.full, ", ".join(self.settings.rooms) or "none")
        self.ready.set()

    def _on_disconnected(self, reason: Any) -> None:
        self.ready.clear()
        if self.stopping or self.auth_failed or self._pending_reconnect is not None:
            return  # slixmpp may report one failed attempt twice: count and schedule it once
        self.attempts += 1
        delay = backoff(self.attempts)
        log.warning("jabber: disconnected (%s); reconnecting in %.0fs", reason or "connection lost", delay)
        self._pending_reconnect = self.loop.call_later(delay, self._reconnect)

    def _reconnect(self) -> None:
        self._pending_reconnect = None
        if not (self.stopping or self.auth_failed or self.transport):
            self.start()

    def _on_auth_refused(self, failure: Any) -> None:
        condition = failure["condition"] if hasattr(failure, "get_plugin") else str(failure)
        self.auth_error = f"{condition or 'refused'} (wrong jabberid or password?)"

    def _on_failed_auth(self, event: Any) -> None:
        self.auth_failed = True
        self.stopping = True
        log.error("jabber: cannot log in as %s: %s; stopping", self.boundjid.bare, self.auth_error)

    # --- chat --------------------------------------------------------------------

    async def _on_chat(self, msg: slixmpp.Message) -> None:
        if msg["type"] not in ("chat", "normal") or not msg["body"] or msg["from"].bare == self.boundjid.bare:
            return
        sender = msg["from"]
        if sender.bare not in self.settings.allowed_jids:
            log.warning("jabber: command from %s refused (not in allowed_jids): %.200r", sender.bare, msg["body"])
            reply = REFUSAL
        else:
            reply = await self._interpret(command_in_chat(msg["body"]), sender.resource or sender.bare)
        self.send_message(mto=sender, mbody=reply, mtype="chat")

    async def _on_groupchat(self, msg: slixmpp.Message) -> None:
        room = msg["from"].bare
        if (msg["mucnick"] == self.settings.alias or room not in self.settings.rooms or not msg["body"]
                or msg["delay"]["stamp"]):
            return
        command = command_in_room(msg["body"], self.settings.identifiers)
        if command is None:
            return
        refused = self._room_refusal(room, msg["mucnick"])
        if refused:
            log.warning("jabber: command from %s refused (%s): %.200r", msg["from"], refused, command)
            reply = REFUSAL
        else:
            reply = await self._interpret(command, str(msg["from"]))
        self.send_message(mto=slixmpp.JID(room), mbody=reply, mtype="groupchat")

    def _room_refusal(self, room: str, nick: str) -> str | None:
        """Why a room occupant's command is refused, or None: the room and the occupant's real JID must be allowed.

        The real JID is known when the room shows it to the bot (non-anonymous rooms, or the bot is a moderator,
        as the room's creator is); a nick alone proves nothing, so an unknown real JID is refused.
        """
        if self.settings.allowed_rooms is not None and room not in self.settings.allowed_rooms:
            return "room not in allowed_rooms"
        real = self.plugin["xep_0045"].get_jid_property(slixmpp.JID(room), nick, "jid")
        if not real:
            return "the room hides the occupant's real JID; make it non-anonymous or the bot a moderator"
        if slixmpp.JID(str(real)).bare not in self.settings.allowed_jids:
            return f"{slixmpp.JID(str(real)).bare} not in allowed_jids"
        return None

    async def _interpret(self, command: str, sender: str) -> str:
        """The bot's reply, computed off the event loop (it reads Redis)."""
        log.info("jabber: command from %s: %r", sender, command)
        return await asyncio.get_running_loop().run_in_executor(None, self.bot.reply, command, sender)


class JabberSender:
    """The medium's sender for base.deliver_alert: hands each alert to the XMPP client's loop."""

    medium = MEDIUM

    def __init__(self, client: JabberClient, loop: asyncio.AbstractEventLoop, settings: Mapping[str, Any]) -> None:
        self.client = client
        self.loop = loop
        self.settings = settings

    def send(self, alert: Alert) -> None:
        """Send the alert's body as groupchat (address is a joined room) or chat; raise TransientError."""
        address = alert["address"]
        groupchat = _bare(address) in self.client.settings.rooms
        future = asyncio.run_coroutine_threadsafe(
            self.client.deliver(address, str(alert.get("body") or ""), groupchat), self.loop)
        try:
            future.result(CONNECT_WAIT + CONFIRM_TIMEOUT + 5)
        except concurrent.futures.TimeoutError:
            future.cancel()
            raise base.TransientError("timed out handing the message to the XMPP server") from None

    def close(self) -> None:
        """Nothing to release: the gateway owns the client."""


class JabberGateway:
    """The running gateway: the XMPP client in an asyncio thread and the drain thread."""

    def __init__(self, settings: Mapping[str, Any], clients: Clients, events_queue: str = "events",
                 unowned_checks: str = "everyone") -> None:
        self.raw_settings = settings
        self.settings = JabberSettings.from_mapping(settings)
        self.redis = clients.raw  # rq
        worker.use_clients(clients)
        bot = Bot(clients.text, BotSettings(alias=self.settings.alias, identifiers=self.settings.identifiers,
                                      events_queue=events_queue, boot_time=int(time.time()),
                                      unowned_checks=unowned_checks))
        self.loop = asyncio.new_event_loop()
        self.xmpp: JabberClient = self._in_loop(lambda: JabberClient(self.settings, bot))
        self.stopped = threading.Event()
        self._threads: list[threading.Thread] = []

    def start(self, burst: bool = False) -> None:
        """Connect and start draining the queue (in burst mode: until it is empty)."""
        self._spawn("jabber-xmpp", self._run_loop)
        asyncio.run_coroutine_threadsafe(self._start_client(), self.loop).result(10)
        self._spawn("jabber-drain", lambda: self._drain(burst))

    def stop(self) -> None:
        """Stop draining (the alert in hand is finished), disconnect and end the threads."""
        self.stopped.set()
        if self.loop.is_running() and not self.xmpp.ready.is_set():
            self.loop.call_soon_threadsafe(setattr, self.xmpp, "stopping", True)  # an alert waiting gives up
        for thread in self._threads[1:]:
            thread.join(CONNECT_WAIT)
        if self.loop.is_running():
            # a shutdown step that takes too long is abandoned, not fatal
            with contextlib.suppress(concurrent.futures.TimeoutError, RuntimeError):
                asyncio.run_coroutine_threadsafe(self.xmpp.close(), self.loop).result(5)
            self.loop.call_soon_threadsafe(self.loop.stop)
        if self._threads:
            self._threads[0].join(10)
        if not self.loop.is_running() and not self.loop.is_closed():
            close_loop(self.loop)

    @property
    def auth_failed(self) -> bool:
        """True when the server refused the login (the gateway then stops)."""
        return self.xmpp.auth_failed

    def wait(self, timeout: float | None = None) -> bool:
        """Wait until the gateway stops by itself (refused login, burst done); True if it did."""
        return self.stopped.wait(timeout)

    # --- threads ---------------------------------------------------------------

    def _spawn(self, name: str, target: Any) -> None:
        thread = threading.Thread(target=target, name=name, daemon=True)
        thread.start()
        self._threads.append(thread)

    def _run_loop(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.run_forever()

    async def _start_client(self) -> None:
        self.xmpp.start()

    def _in_loop(self, build: Any) -> Any:
        """Build an object whose constructor needs the loop as the current one (slixmpp does)."""
        asyncio.set_event_loop(self.loop)
        try:
            return build()
        finally:
            asyncio.set_event_loop(None)

    def _drain(self, burst: bool) -> None:
        """Run rq burst rounds on the queue while connected, until stopped (or, in burst mode, empty)."""
        queue = Queue(MEDIUM, connection=self.redis, serializer=JSONSerializer)
        sender = JabberSender(self.xmpp, self.loop, self.raw_settings)
        worker.recover_abandoned(self.redis, MEDIUM)
        give_up = time.monotonic() + CONNECT_WAIT
        with worker.active_gateway(sender):  # type: ignore[arg-type]
            while not self.stopped.is_set() and not self.xmpp.auth_failed:
                if not self._connected(TICK):
                    if burst and time.monotonic() > give_up:
                        log.error("jabber: not connected after %.0fs; burst run gives up", CONNECT_WAIT)
                        break
                    continue
                worker.enqueue_due(queue)
                if queue.count:
                    self._work_round()
                elif burst:
                    break
                else:
                    self.stopped.wait(TICK)
        self.stopped.set()

    def _connected(self, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while not self.xmpp.ready.is_set() and time.monotonic() < deadline and not self.stopped.is_set():
            time.sleep(0.05)
        return self.xmpp.ready.is_set()

    def _work_round(self) -> None:
        """One rq burst round in this (non-main) thread."""
        rq_worker = worker.make_worker(self.redis, MEDIUM)
        rq_worker.death_penalty_class = TimerDeathPenalty  # SIGALRM works only in the main thread
        rq_worker._install_signal_handlers = lambda: None  # type: ignore[method-assign] # noqa: SLF001 -- run() owns signals
        rq_worker.work(burst=True, with_scheduler=False, logging_level="WARNING", max_jobs=ROUND_JOBS)


def run(config: Config, burst: bool = False) -> int:
    """`flapjack gateway jabber`: run until SIGTERM/SIGINT (or, with burst, until the queue is empty).

    Returns 0, or EXIT_CONFIG when the server refused the login (no retry loop, no restart).
    Raises ConfigError when the gateway is not enabled or misses jabberid/password.
    """
    settings = base.gateway_settings(config, MEDIUM, REQUIRED)
    clients, embedded = open_clients(config)
    gateway = JabberGateway(settings, clients, config.executive.queue, config.web.unowned_checks)
    previous = {sig: signal.signal(sig, lambda *_: gateway.stopped.set()) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        gateway.start(burst=burst)
        while not gateway.wait(1.0):
            pass
    finally:
        gateway.stop()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        if embedded:
            embedded.stop()
    return EXIT_CONFIG if gateway.auth_failed else 0


def close_loop(loop: asyncio.AbstractEventLoop) -> None:
    """Cancel what is left on a stopped loop and close it."""
    tasks = asyncio.all_tasks(loop)
    for task in tasks:
        task.cancel()
    loop.run_until_complete(asyncio.gather(*tasks, return_exceptions=True))
    loop.close()


def _bare(jid: str) -> str:
    return str(jid).split("/", 1)[0].lower()


def _jid_set(values: Any) -> frozenset[str] | None:
    """A set of bare JIDs, or None (anyone) when the setting is absent or empty."""
    if not values:
        return None
    return frozenset(_bare(v) for v in ([values] if isinstance(values, str) else values))


GATEWAY = base.Declaration(MEDIUM, JabberSection, run=run)
"""The jabber medium: its own long-lived process, no rq sender (registered in pyproject.toml's
`flapjack_py.gateways` entry points)."""
