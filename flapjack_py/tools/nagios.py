"""Nagios perfdata FIFO reader and NSCA command-file reader: pure record parsing plus the read loop (engine.md 8).

Nagios writes one tab-separated record per line (see the perfdata templates in `flapjack receiver nagios --help`).
"""

from __future__ import annotations

import logging
import os
import re
import stat
from collections.abc import Callable, Iterable
from typing import Any

import redis

from ..store.events import push_event

log = logging.getLogger(__name__)

DEFAULT_FIFO = "/var/cache/nagios3/event_stream.fifo"
WHOOPS = "Whoops with the fifo, restarting main loop in 10 seconds"
RESTART_DELAY = 10  # seconds between a FIFO's EOF and reopening it
NSCA_STATES = {"0": "ok", "1": "warning", "2": "critical", "3": "unknown"}
_DIGITS = re.compile(r"^\d+$")
_NSCA = re.compile(r"^\[(\d+)\]\s*PROCESS_SERVICE_CHECK_RESULT;([^;]*);([^;]*);([^;]*);(.*)$")


class RejectedLine(ValueError):
    """Raised for a record that cannot become an event; the message is what the receiver prints."""


def parse_nagios_line(line: str) -> dict[str, Any]:
    """Turn one perfdata record into a service event; raise RejectedLine with Flapjack's ERROR message."""
    line = line.rstrip("\r\n")
    fields = line.split("\t")
    if len(fields) < 9:
        raise RejectedLine("ERROR - rejecting this line as it doesn't split into at least 9 tab separated "
                           f"strings: [{line}]")
    object_type, timestamp, entity, check, state, _exec_time, _latency, output, perfdata = fields[:9]
    if not _DIGITS.match(timestamp):
        raise RejectedLine(f"ERROR - rejecting this line as second string doesn't look like a timestamp: [{line}]")
    if object_type not in ("[HOSTPERFDATA]", "[SERVICEPERFDATA]"):
        raise RejectedLine("ERROR - rejecting this line as first string is neither '[HOSTPERFDATA]' nor "
                           f"'[SERVICEPERFDATA]': [{line}]")
    long_output = fields[9] if len(fields) > 9 else None
    event = {"entity": entity, "check": check, "type": "service", "state": nagios_state(state),
             "summary": output, "perfdata": perfdata, "time": int(timestamp)}
    if long_output is not None:
        event["details"] = long_output.replace("\\n", "\n")
    return event


def nagios_state(state: str) -> str:
    """`up` -> ok, `down` -> critical (any case); other states pass through."""
    return {"up": "ok", "down": "critical"}.get(state.lower(), state)


def parse_nsca_line(line: str) -> dict[str, Any]:
    """`[TS] PROCESS_SERVICE_CHECK_RESULT;host;service;code;output` -> event (deviation D15: codes -> states)."""
    line = line.rstrip("\r\n")
    match = _NSCA.match(line)
    if not match:
        raise RejectedLine(f"ERROR - rejecting this line; illegal format: [{line}]")
    timestamp, entity, check, code, output = match.groups()
    if code.strip() not in NSCA_STATES:
        raise RejectedLine(f"ERROR - rejecting this line; return code is not 0, 1, 2 or 3: [{line}]")
    return {"entity": entity, "check": check, "type": "service", "state": NSCA_STATES[code.strip()],
            "summary": output, "time": int(timestamp)}


def check_fifo(path: str) -> None:
    """Raise ValueError (with Flapjack's message) unless `path` exists, is a FIFO and is readable."""
    if not os.path.exists(path):
        raise ValueError(f"No fifo (named pipe) file found at {path}")
    if not stat.S_ISFIFO(os.stat(path).st_mode):
        raise ValueError(f"The file at {path} is not a named pipe, try using mkfifo to make one")
    if not os.access(path, os.R_OK):
        raise ValueError(f"The fifo (named pipe) at {path} is unreadable")


def feed_lines(client: redis.Redis, lines: Iterable[str], parse: Callable[[str], dict[str, Any]],
               say: Callable[[str], None]) -> int:
    """Queue an event per good line, printing an ERROR line for each bad one; return how many were queued."""
    queued = 0
    for line in lines:
        if not line.strip():
            continue
        try:
            event = parse(line)
        except RejectedLine as exc:
            say(str(exc))
            continue
        say(f"{event['entity']}:{event['check']} {event['state']} at {event['time']}: {event['summary']}")
        push_event(client, event)
        queued += 1
    return queued


def read_fifo_once(client: redis.Redis, path: str, parse: Callable[[str], dict[str, Any]],
                   say: Callable[[str], None]) -> int:
    """Open the FIFO, queue events until its writers close it (EOF); return how many were queued."""
    check_fifo(path)
    with open(path, encoding="utf-8", errors="replace") as fifo:
        return feed_lines(client, fifo, parse, say)


def run_forever(client: redis.Redis, path: str, parse: Callable[[str], dict[str, Any]],
                say: Callable[[str], None], sleep: Callable[[float], Any],
                keep_going: Callable[[], bool] = lambda: True) -> None:
    """Read the FIFO again and again: after each EOF print the Whoops line and wait 10 s."""
    while keep_going():
        read_fifo_once(client, path, parse, say)
        say(WHOOPS)
        sleep(RESTART_DELAY)
