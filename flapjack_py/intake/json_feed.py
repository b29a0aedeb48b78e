"""`flapjack receiver json` / `oneoff`: validate JSON events and queue them (engine.md 8).

The input is a stream of concatenated JSON objects (whitespace between them optional),
read as it arrives so a long-running feeder's events go out at once. From a named pipe
(`--fifo`, run by `flapjack server`) it is one event per line, through the receivers' buffer.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Generator, Iterable, Iterator
from typing import Any, TextIO

from flapjack_py.errors import InvalidEvent
from flapjack_py.intake.buffer import RejectedLine
from flapjack_py.model.events import parse_event
from flapjack_py.store.events import push_event
from flapjack_py.store.plumbing.client import StrRedis

log = logging.getLogger(__name__)

_DECODER = json.JSONDecoder()


def split_stream(chunks: Iterable[str]) -> Iterator[str]:
    """Yield each top-level JSON text of a stream of chunks; a tail that never parses is yielded as is."""
    buffer = ""
    for chunk in chunks:
        buffer += chunk
        buffer = yield from _complete_values(buffer)
    if buffer.strip():
        yield buffer.strip()


def _complete_values(buffer: str) -> Generator[str, None, str]:
    """Yield the complete values at the head of `buffer`; return what is left (generator return value)."""
    while True:
        stripped = buffer.lstrip()
        if not stripped:
            return ""
        try:
            _, end = _DECODER.raw_decode(stripped)
        except json.JSONDecodeError:
            return stripped  # incomplete (or bad): wait for more input
        yield stripped[:end]
        buffer = stripped[end:]


def read_chunks(stream: TextIO) -> Iterator[str]:
    """Lines of a text stream as they arrive."""
    yield from iter(stream.readline, "")


def validate(raw: str, now: float) -> tuple[dict[str, Any] | None, list[str]]:
    """(event to queue, []) for a valid JSON event, with `time` = now when missing; (None, errors) otherwise."""
    try:
        parse_event(raw)
    except InvalidEvent as exc:
        return None, exc.errors
    data = json.loads(raw)
    if "time" not in data or data["time"] is None:
        data["time"] = int(now)
    return data, []


def feed(client: StrRedis, texts: Iterable[str], say: Callable[[str], None]) -> tuple[int, int]:
    """Queue every valid event, report each; return (queued, invalid)."""
    queued = invalid = 0
    for raw in texts:
        event, errors = validate(raw, time.time())
        if event is None:
            say(f"Invalid event data received, {', '.join(errors)} {raw}")
            invalid += 1
            continue
        push_event(client, event)
        say(f"Enqueued event data, {json.dumps(event)}")
        queued += 1
    return queued, invalid


def oneoff_event(entity: str, check: str, state: str, summary: str, now: float) -> dict[str, Any]:
    """The service event `receiver oneoff` queues."""
    return {"entity": entity, "check": check, "type": "service", "state": state, "summary": summary,
            "time": int(now)}


def parse_line(line: str) -> dict[str, Any]:
    """One line of the pipe as a validated event (time defaulted to now); raise RejectedLine ("invalid") if not."""
    event, errors = validate(line, time.time())
    if event is None:
        raise RejectedLine("invalid", f"{', '.join(errors)}: {line}")
    return event
