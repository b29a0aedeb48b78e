"""`flapjack receiver httpbroker`: an HTTP cache of check states in front of the queue (engine.md 8).

Clients POST their latest state to /state; every interval the broker sends each cached
state as an event with time = now, turning states older than their ttl into UNKNOWN.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from flapjack_py.intake.buffer import Intake
from flapjack_py.store.events import push_event
from flapjack_py.store.plumbing.client import StrRedis

log = logging.getLogger(__name__)

DEFAULT_TTL = 300  # seconds, when a state says ttl 0 or none
MAX_BODY = 64 * 1024
"""Largest POST body accepted, in bytes (413 beyond)."""
SENT_FIELDS = ("entity", "check", "state", "summary")


def normalise_state(data: Any, now: float) -> dict[str, Any]:
    """A POSTed state with defaults: time missing/0 -> now, type missing -> service, ttl 0 -> 300.

    Raises ValueError when it is not a JSON object or a field has the wrong type.
    """
    if not isinstance(data, dict):
        raise ValueError("expected a JSON object")
    state: dict[str, Any] = {name: _text(data, name) for name in ("entity", "check", "type", "state", "summary")}
    state["type"] = state["type"] or "service"
    state["time"] = _number(data, "time") or int(now)
    state["ttl"] = _number(data, "ttl") or DEFAULT_TTL
    return state


def event_for(state: dict[str, Any], now: float) -> dict[str, Any] | None:
    """The event to send for a cached state at `now`, or None when entity/check/state/summary is empty."""
    if not all(state.get(name) for name in SENT_FIELDS):
        return None
    event = {name: state[name] for name in ("entity", "check", "type", "state", "summary")}
    event["time"] = int(now)
    age = int(now) - int(state["time"])
    if state["ttl"] >= 0 and age > state["ttl"]:
        event["state"] = "UNKNOWN"
        event["summary"] = f"httpbroker: Cached state is stale ({age}s old, should be < {state['ttl']}s)"
    return event


class StateCache:
    """Latest state per `E:C`, shared by the HTTP handler threads and the sender."""

    def __init__(self) -> None:
        self._states: dict[str, dict[str, Any]] = {}
        self._lock = threading.Lock()

    def put(self, state: dict[str, Any]) -> None:
        """Cache a state (latest wins)."""
        with self._lock:
            self._states[f"{state['entity']}:{state['check']}"] = state

    def snapshot(self) -> dict[str, dict[str, Any]]:
        """A copy of the cache."""
        with self._lock:
            return {k: dict(v) for k, v in self._states.items()}


def cached_events(cache: StateCache, now: float) -> list[dict[str, Any]]:
    """The event to send for every sendable cached state at `now`."""
    events = (event_for(state, now) for state in cache.snapshot().values())
    return [event for event in events if event is not None]


def send_cached(client: StrRedis, cache: StateCache, now: float) -> int:
    """Queue an event for every sendable cached state at once; return how many were sent."""
    events = cached_events(cache, now)
    for event in events:
        push_event(client, event)
    return len(events)


def make_server(cache: StateCache, host: str, port: int, feed: Intake | None = None) -> ThreadingHTTPServer:
    """An HTTP server (not yet serving) for POST/GET /state on the cache; POSTs are counted on `feed`."""
    handler = type("BoundStateHandler", (_StateHandler,), {"cache": cache, "feed": feed})
    server = ThreadingHTTPServer((host, port), handler)
    server.daemon_threads = True
    return server


def run_sender(feed: Intake, cache: StateCache, interval: float, stop: threading.Event) -> None:
    """Hand the cache's events to `feed` every `interval` seconds until `stop` is set."""
    while not stop.wait(interval):
        events = cached_events(cache, time.time())
        for event in events:
            feed.add(event, read=False)
        log.debug("httpbroker sent %d cached states", len(events))


class _StateHandler(BaseHTTPRequestHandler):
    cache: StateCache
    feed: Intake | None

    def do_POST(self) -> None:  # noqa: N802 - http.server's naming
        if self.path.rstrip("/") != "/state":
            return self._reply(404, "Not found\n")
        length = self.headers.get("Content-Length") or "0"
        if not length.isdigit() or int(length) > MAX_BODY:
            self._rejected("too_large", f"Content-Length {length[:20]!r} (at most {MAX_BODY} bytes)")
            self.close_connection = True
            return self._reply(413, f"Error: the body must be at most {MAX_BODY} bytes\n")
        try:
            state = normalise_state(json.loads(self.rfile.read(int(length)) or b"null"), time.time())
        except ValueError as exc:
            self._rejected("bad_state", str(exc))
            return self._reply(400, f"Error: {exc}\n")
        if self.feed is not None:
            self.feed.count_read()
        self.cache.put(state)
        self._reply(200, f"Caching state: {json.dumps(state)}\n")

    def _rejected(self, reason: str, message: str) -> None:
        if self.feed is not None:
            self.feed.reject(reason, message)

    def do_GET(self) -> None:  # noqa: N802
        if self.path.rstrip("/") != "/state":
            return self._reply(404, "Not found\n")
        self._reply(200, json.dumps(self.cache.snapshot()), "application/json")

    def _reply(self, status: int, body: str, content_type: str = "text/plain; charset=utf-8") -> None:
        data = body.encode()
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - http.server's signature
        log.debug("httpbroker %s " + format, self.client_address[0], *args)


def _text(data: dict[str, Any], name: str) -> str:
    value = data.get(name)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise ValueError(f"{name} must be a string")
    return value


def _number(data: dict[str, Any], name: str) -> int:
    value = data.get(name)
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"{name} must be a number")
    return int(value)
