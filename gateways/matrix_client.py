"""The Matrix side of the matrix gateway (gateways/matrix.py): log in, join, sync, send alerts, hand the bot its input.

Runs in the gateway's asyncio loop. Sync failures (the homeserver down or restarting) clear `synced`, so the
drain thread stops taking alerts, and are retried with back-off; a refused login stops the gateway.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from dataclasses import dataclass
from typing import Any

import nio

from flapjack_py.chat.matrix import alert_content, command_of, reaction_target, related_event, thread_content, who
from flapjack_py.model.alert import Alert
from flapjack_py.store import chat
from flapjack_py.store.chat import ChatMessage
from flapjack_py.store.plumbing.client import StrRedis

from . import base
from .matrix_bot import MEDIUM, MatrixBot

log = logging.getLogger(__name__)

SYNC_TIMEOUT_MS = 10_000
"""How long one sync waits on the homeserver for news (long poll)."""
RETRYABLE = frozenset({"M_LIMIT_EXCEEDED", "M_UNKNOWN"})


@dataclass(frozen=True)
class MatrixOptions:
    """What the client needs of `gateways.matrix`."""

    homeserver: str
    user_id: str
    password: str | None = None
    access_token: str | None = None
    rooms: tuple[str, ...] = ()
    device_name: str = "flapjack"


def backoff(attempt: int) -> float:
    """Seconds before sync retry number `attempt` (1-based): 1, 2, 4 ... at most 30."""
    return float(min(2 ** (attempt - 1), 30))


class MatrixClient:
    """One nio.AsyncClient: the sync loop, alert delivery, the bot's input and answers."""

    def __init__(self, options: MatrixOptions, bot: MatrixBot, send_wait: float = 45.0) -> None:
        self.options = options
        self.bot = bot
        self.send_wait = send_wait
        self.synced = threading.Event()
        self.login_failed = False
        self.stopping = False
        self.nio: nio.AsyncClient | None = None
        self._task: asyncio.Task[None] | None = None
        self._room_ids: dict[str, str] = {}
        """Address (alias, user id for a direct room) -> room id, learnt by this process."""

    async def start(self) -> None:
        """Build the client and start the sync loop (in the running loop)."""
        config = nio.AsyncClientConfig(max_timeouts=2, request_timeout=20, encryption_enabled=False)
        self.nio = nio.AsyncClient(self.options.homeserver, self.options.user_id, config=config)
        self._task = asyncio.ensure_future(self._run())

    async def close(self) -> None:
        """Stop syncing and close the HTTP session."""
        self.stopping = True
        self.synced.clear()
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
        if self.nio is not None:
            await self.nio.close()

    # --- the sync loop -----------------------------------------------------------

    async def _run(self) -> None:
        attempt = 0
        listening = False
        while not self.stopping:
            try:
                if not await self._logged_in():
                    return
                await self._join_rooms()
                while not self.stopping:
                    answer = await self._client.sync(timeout=0 if not listening else SYNC_TIMEOUT_MS,
                                                     full_state=not listening)
                    if isinstance(answer, nio.SyncError):
                        raise RuntimeError(f"sync refused: {answer.message}")
                    if not listening:  # what happened before the start is history, not commands
                        self._listen()
                        listening = True
                    attempt = 0
                    self.synced.set()
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # noqa: BLE001 -- the homeserver away: retry with back-off
                self.synced.clear()
                attempt += 1
                log.warning("matrix: %s: %s; retrying in %.0fs", self.options.homeserver, base.describe(exc),
                            backoff(attempt))
                await asyncio.sleep(backoff(attempt))

    async def _logged_in(self) -> bool:
        client = self._client
        if client.access_token:
            return True
        if self.options.access_token:
            client.restore_login(self.options.user_id, self.options.device_name, self.options.access_token)
            return True
        answer = await client.login(self.options.password, device_name=self.options.device_name)
        if isinstance(answer, nio.LoginError):
            if answer.status_code in ("M_FORBIDDEN", "M_USER_DEACTIVATED", "M_INVALID_USERNAME"):
                self.login_failed = True
                log.error("matrix: cannot log in as %s: %s; stopping", self.options.user_id, answer.message)
                return False
            raise RuntimeError(f"login: {answer.message}")
        log.info("matrix: logged in as %s", self.options.user_id)
        return True

    async def _join_rooms(self) -> None:
        for room in self.options.rooms:
            answer = await self._client.join(room)
            if isinstance(answer, nio.JoinError):
                log.error("matrix: cannot join %s: %s", room, answer.message)
            else:
                self._room_ids[room] = answer.room_id

    def _listen(self) -> None:
        self._client.add_event_callback(self._on_message, nio.RoomMessageText)
        self._client.add_event_callback(self._on_reaction, nio.ReactionEvent)
        self._client.add_event_callback(self._on_invite, nio.InviteMemberEvent)

    @property
    def _client(self) -> nio.AsyncClient:
        assert self.nio is not None, "start() builds the client"
        return self.nio

    # --- delivery ------------------------------------------------------------------

    async def deliver(self, alert: Alert, store: StrRedis | None) -> None:
        """Post a problem (its event id remembered), or an acknowledgement/recovery in its problem's thread.

        Raises base.TransientError (homeserver away, rate limited) or base.PermanentError (refused)."""
        deadline = time.monotonic() + self.send_wait
        while not self.synced.is_set():
            if self.stopping or time.monotonic() > deadline:
                raise base.TransientError("not connected to the homeserver")
            await asyncio.sleep(0.1)
        address = alert["address"]
        posted = chat.thread(store, MEDIUM, alert["check"], address) if store is not None else None
        if posted is not None and alert["type"] in ("acknowledgement", "recovery"):
            summary = str(alert.get("summary") or "")
            text = "recovered" if alert["type"] == "recovery" else \
                f"acknowledged by {who(alert.get('actor'))}" + (f": {summary}" if summary else "")
            await self.send(posted.room, thread_content(posted.message_id, text))
            return
        room = await self._room_for(address, store)
        event_id = await self.send(room, alert_content(dict(alert)))
        if alert["type"] == "problem" and not alert["rollup"] and store is not None:
            chat.remember(store, ChatMessage(MEDIUM, room, event_id, alert["check"], alert["id"]), thread_of=address)

    async def send(self, room: str, content: dict[str, Any]) -> str:
        """Send one m.room.message; its event id."""
        try:
            answer = await asyncio.wait_for(self._client.room_send(room, "m.room.message", content), self.send_wait)
        except (TimeoutError, OSError, nio.exceptions.TransferCancelledError) as exc:
            raise base.TransientError(f"sending to {room}: {type(exc).__name__}") from None
        if isinstance(answer, nio.RoomSendError):
            retry = (answer.retry_after_ms or 0) / 1000 or None
            error = base.TransientError if answer.status_code in RETRYABLE or not answer.status_code \
                else base.PermanentError
            raise error(f"sending to {room}: {answer.status_code} {answer.message}", *([retry] if retry and
                                                                                        error is base.TransientError
                                                                                        else []))
        return str(answer.event_id)

    async def _room_for(self, address: str, store: StrRedis | None) -> str:
        """The room id of an address: a room id as it is, an alias resolved, a user's direct room (opened once,
        kept in Redis)."""
        if address.startswith("!"):
            return address
        known = self._room_ids.get(address) or (chat.room_of(store, MEDIUM, address) if store is not None else None)
        if known:
            return known
        if address.startswith("#"):
            found = await self._client.room_resolve_alias(address)
            if isinstance(found, nio.RoomResolveAliasError):
                raise base.PermanentError(f"no room {address}: {found.message}")
            room = str(found.room_id)
            await self._client.join(room)
        else:
            made = await self._client.room_create(is_direct=True, invite=[address],
                                                  preset=nio.RoomPreset.trusted_private_chat)
            if isinstance(made, nio.RoomCreateError):
                raise base.TransientError(f"cannot open a direct room with {address}: {made.message}")
            room = str(made.room_id)
            if store is not None:
                chat.remember_room(store, MEDIUM, address, room)
        self._room_ids[address] = room
        return room

    # --- the bot's input -------------------------------------------------------------

    async def _on_message(self, room: nio.MatrixRoom, event: nio.RoomMessageText) -> None:
        if event.sender == self.options.user_id:
            return
        content = event.source.get("content") or {}
        about = related_event(content)
        command = command_of(event.body)
        if command is None:
            return
        loop = asyncio.get_running_loop()
        if about is None:
            reply = await loop.run_in_executor(None, self.bot.outside, event.sender, command, int(time.time()))
            if reply:
                await self._answer(room.room_id, None, reply)
            return
        reply = await loop.run_in_executor(None, self.bot.command, room.room_id, event.sender, about, command,
                                           int(time.time()))
        if reply:
            await self._answer(room.room_id, about, reply)

    async def _on_reaction(self, room: nio.MatrixRoom, event: nio.ReactionEvent) -> None:
        target = reaction_target(event.source.get("content") or {})
        if event.sender == self.options.user_id or target is None:
            return
        reply = await asyncio.get_running_loop().run_in_executor(
            None, self.bot.reaction, room.room_id, event.sender, target, int(time.time()))
        if reply:
            await self._answer(room.room_id, target, reply)

    async def _on_invite(self, room: nio.MatrixRoom, event: nio.InviteMemberEvent) -> None:
        if event.state_key != self.options.user_id or event.membership != "invite":
            return
        if room.room_id in self.options.rooms or room.room_id in self._room_ids.values():
            await self._client.join(room.room_id)

    async def _answer(self, room: str, root: str | None, text: str) -> None:
        """Answer in `root`'s thread, or (None) in the room."""
        try:
            await self.send(room, thread_content(root, text) if root else {"msgtype": "m.notice", "body": text})
        except base.GatewayError as exc:
            log.warning("matrix: cannot answer in %s: %s", room, exc)
