"""A scripted HTTP server on 127.0.0.1 for the URL-fetch tests: it counts the requests it gets.

`server.route(path, handler)` scripts a path (handlers below: reply, redirect, drip, silent); every
request is recorded (path, headers), scripted or not, so a test can assert that none came.
"""

from __future__ import annotations

import ssl
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Handler = Callable[[BaseHTTPRequestHandler, threading.Event], None]


@dataclass
class Seen:
    """One request the server got."""

    path: str
    headers: dict[str, str]


@dataclass
class CalendarServer:
    """The running server: its port, scripted routes and the requests seen."""

    port: int = 0
    routes: dict[str, Handler] = field(default_factory=dict)
    seen: list[Seen] = field(default_factory=list)
    stop: threading.Event = field(default_factory=threading.Event)
    scheme: str = "http"

    def url(self, path: str, host: str = "127.0.0.1") -> str:
        return f"{self.scheme}://{host}:{self.port}{path}"

    def route(self, path: str, handler: Handler) -> None:
        self.routes[path] = handler


def reply(body: bytes, status: int = 200, **headers: str) -> Handler:
    """Answer `status` with `body` (Content-Length set unless headers say otherwise)."""
    def handle(request: BaseHTTPRequestHandler, stop: threading.Event) -> None:
        request.send_response(status)
        sent = {"Content-Type": "text/calendar", "Content-Length": str(len(body)), **headers}
        for name, value in sent.items():
            request.send_header(name.replace("_", "-"), value)
        request.end_headers()
        request.wfile.write(body)
    return handle


def redirect(location: str, status: int = 302) -> Handler:
    return reply(b"", status, Location=location)


def drip(every: float = 0.05) -> Handler:
    """Headers at once, then one byte every `every` seconds until the client goes (or the server stops)."""
    def handle(request: BaseHTTPRequestHandler, stop: threading.Event) -> None:
        request.send_response(200)
        request.send_header("Content-Type", "text/calendar")
        request.end_headers()
        try:
            while not stop.wait(every):
                request.wfile.write(b"B")
                request.wfile.flush()
        except OSError:
            return
    return handle


def silent(request: BaseHTTPRequestHandler, stop: threading.Event) -> None:
    """Never answer (until the server stops)."""
    stop.wait(30)


@contextmanager
def serving(tls: ssl.SSLContext | None = None) -> Iterator[CalendarServer]:
    """A CalendarServer on a free port of 127.0.0.1 (HTTPS with `tls`), stopped afterwards."""
    state = CalendarServer(scheme="https" if tls else "http")

    class Requests(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (http.server's name)
            state.seen.append(Seen(self.path, dict(self.headers.items())))
            state.routes.get(self.path.partition("?")[0], reply(b"not here", 404))(self, state.stop)

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (http.server's name)
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Requests)
    if tls is not None:
        server.socket = tls.wrap_socket(server.socket, server_side=True)
    state.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        state.stop.set()
        server.shutdown()
        server.server_close()
        thread.join(5)
