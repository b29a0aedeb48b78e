"""The far ends of the delivery scenarios, run in a child process of the bench (`Sinks`, driven by
bench/worker.py): a local SMTP server (aiosmtpd) and a local HTTP server answering 202 as PagerDuty's
Events v2 endpoint does, both on one asyncio loop in a thread.

Each counts the sessions (TCP connections) it saw and records every message or event it accepted: the
alert it carries (an email's Message-ID names the alert id; a PagerDuty event is its routing key and
dedup key, that is the contact's service and the check) and when it was accepted. A few are kept whole,
for the plain clients of the same-run references (bench/plain_clients.py) to send again.

`pause(medium)` stops one of them as a crash would (it stops listening and drops its open connections) and
`resume(medium)` listens again on the same port (benchmarks/soak.py's SMTP outages).
"""

from __future__ import annotations

import asyncio
import base64
import json
import logging
import re
import threading
import time
import weakref
from collections.abc import Callable
from typing import Any

log = logging.getLogger(__name__)

EMAIL, PAGERDUTY = "email", "pagerduty"
SAMPLES = 20  # messages and posts kept whole per medium
ACCEPTED = b'{"status":"success","message":"Event processed","dedup_key":%s}'
_MESSAGE_ID = re.compile(rb"^Message-ID:[ \t]*<([^@>\r\n]+)", re.IGNORECASE | re.MULTILINE)
_CONTENT_LENGTH = re.compile(rb"^content-length:[ \t]*(\d+)", re.IGNORECASE | re.MULTILINE)
_CLOSE = re.compile(rb"^connection:[ \t]*close", re.IGNORECASE | re.MULTILINE)


def alert_key(medium: str, alert_id: str, address: str, check: str) -> str:
    """What the sink records for an alert of `medium`: the alert id of an email, `routing key/dedup key`
    (the contact's service key and the check) of a PagerDuty event."""
    return f"{address}/{check}" if medium == PAGERDUTY else alert_id


class Deliveries:
    """What the servers accepted since the last `take`; shared by the loop's thread and the caller's."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._clear()

    def record(self, medium: str, key: str, sample: dict[str, Any] | None = None) -> None:
        at = time.time()
        with self._lock:
            self.received[medium].append((key, at))
            if sample is not None and len(self.samples[medium]) < SAMPLES:
                self.samples[medium].append(sample)

    def session(self, medium: str) -> None:
        with self._lock:
            self.sessions[medium] += 1

    def count(self) -> int:
        with self._lock:
            return sum(len(found) for found in self.received.values())

    def take(self) -> dict[str, Any]:
        """Everything recorded (received: medium -> [key, unix time] in order; sessions; samples), then forget it."""
        with self._lock:
            taken = {"received": self.received, "sessions": self.sessions, "samples": self.samples}
            self._clear()
        return taken

    def _clear(self) -> None:
        self.received: dict[str, list[tuple[str, float]]] = {EMAIL: [], PAGERDUTY: []}
        self.sessions = {EMAIL: 0, PAGERDUTY: 0}
        self.samples: dict[str, list[dict[str, Any]]] = {EMAIL: [], PAGERDUTY: []}


class Mailbox:
    """aiosmtpd's handler: every message accepted (250) and recorded under its Message-ID's alert id."""

    def __init__(self, deliveries: Deliveries) -> None:
        self.deliveries = deliveries

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:  # noqa: N802 (aiosmtpd's name)
        content = bytes(envelope.original_content or envelope.content or b"")
        head = content.split(b"\r\n\r\n", 1)[0]
        found = _MESSAGE_ID.search(head)
        sample = {"from": envelope.mail_from, "to": list(envelope.rcpt_tos),
                  "data": base64.b64encode(content).decode()}
        self.deliveries.record(EMAIL, found.group(1).decode() if found else "", sample)
        return "250 OK"


class PagerDutyProtocol(asyncio.Protocol):
    """HTTP/1.1 with keep-alive, as far as a POST of an Events v2 body needs: 202 and PagerDuty's answer."""

    def __init__(self, deliveries: Deliveries) -> None:
        self.deliveries = deliveries
        self.buffer = b""
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        self.deliveries.session(PAGERDUTY)

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        while self.transport is not None and (request := self._request()) is not None:
            self._answer(*request)

    def _request(self) -> tuple[bytes, bytes] | None:
        """(head, body) of the next whole request in the buffer, taken off it; None until one is whole."""
        end = self.buffer.find(b"\r\n\r\n")
        if end < 0:
            return None
        head = self.buffer[:end]
        length = _CONTENT_LENGTH.search(head)
        size = int(length.group(1)) if length else 0
        if len(self.buffer) < end + 4 + size:
            return None
        body = self.buffer[end + 4:end + 4 + size]
        self.buffer = self.buffer[end + 4 + size:]
        return head, body

    def _answer(self, head: bytes, body: bytes) -> None:
        assert self.transport is not None
        try:
            event = json.loads(body)
            key = f"{event.get('routing_key', '')}/{event.get('dedup_key', '')}"
        except (ValueError, AttributeError):
            event, key = None, ""
        path = head.split(b" ", 2)[1].decode("latin-1") if head.count(b" ") >= 2 else "/"
        self.deliveries.record(PAGERDUTY, key, {"path": path, "body": body.decode("utf-8", "replace")})
        dedup = json.dumps(event.get("dedup_key") if isinstance(event, dict) else None).encode()
        answer = ACCEPTED % dedup
        closing = bool(_CLOSE.search(head)) or head.split(b"\r\n", 1)[0].endswith(b"HTTP/1.0")
        self.transport.write(b"HTTP/1.1 202 Accepted\r\nContent-Type: application/json\r\nContent-Length: %d\r\n%s\r\n%s"
                             % (len(answer), b"Connection: close\r\n" if closing else b"", answer))
        if closing:
            self.transport.close()
            self.transport = None


class Sinks:
    """Both servers on 127.0.0.1 (free ports), on an asyncio loop in a daemon thread."""

    def __init__(self) -> None:
        self.deliveries = Deliveries()
        self.loop = asyncio.new_event_loop()
        self.ports: dict[str, int] = {}
        self._servers: dict[str, asyncio.base_events.Server] = {}  # listening, by medium
        self._factories: dict[str, Callable[[], asyncio.Protocol]] = {}
        self._open: dict[str, weakref.WeakSet[Any]] = {EMAIL: weakref.WeakSet(), PAGERDUTY: weakref.WeakSet()}
        self._thread = threading.Thread(target=self._run, name="bench-sinks", daemon=True)
        self._started = threading.Event()

    def start(self) -> dict[str, int]:
        """Start the servers; their ports by medium."""
        self._thread.start()
        if not self._started.wait(30):
            raise RuntimeError("the bench's SMTP and HTTP servers did not start")
        return self.ports

    def stop(self) -> None:
        """Stop listening, end the loop and its thread."""
        for server in self._servers.values():
            self.loop.call_soon_threadsafe(server.close)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(10)
        if not self._thread.is_alive():
            self.loop.close()

    def pause(self, medium: str) -> None:
        """Stop the server of `medium` as a crash would: no longer listening, its open connections dropped
        (aborted, no goodbye). Nothing happens when it is paused already."""
        asyncio.run_coroutine_threadsafe(self._pause(medium), self.loop).result(30)

    def resume(self, medium: str) -> None:
        """Listen again, on the same port, after `pause`. Nothing happens when it is listening."""
        asyncio.run_coroutine_threadsafe(self._serve(medium, self.ports[medium]), self.loop).result(30)

    async def _pause(self, medium: str) -> None:
        server = self._servers.pop(medium, None)
        if server is None:
            return
        server.close()
        for protocol in list(self._open[medium]):
            transport = getattr(protocol, "transport", None)
            if transport is not None:
                transport.abort()
        await server.wait_closed()

    async def _serve(self, medium: str, port: int) -> None:
        if medium in self._servers:
            return

        def factory() -> asyncio.Protocol:
            protocol = self._factories[medium]()
            self._open[medium].add(protocol)
            return protocol

        server = await self.loop.create_server(factory, "127.0.0.1", port)
        self._servers[medium] = server
        self.ports[medium] = int(server.sockets[0].getsockname()[1])

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.run_until_complete(self._listen())
        self._started.set()
        self.loop.run_forever()

    async def _listen(self) -> None:
        from aiosmtpd.smtp import SMTP  # a test dependency of the project: only the delivery scenarios need it

        mailbox = Mailbox(self.deliveries)

        def smtp() -> SMTP:
            self.deliveries.session(EMAIL)
            return SMTP(mailbox, hostname="bench-smtp", ident="flapjack bench")

        pagerduty: Callable[[], asyncio.Protocol] = lambda: PagerDutyProtocol(self.deliveries)  # noqa: E731
        self._factories.update({EMAIL: smtp, PAGERDUTY: pagerduty})
        for medium in (EMAIL, PAGERDUTY):
            await self._serve(medium, 0)
