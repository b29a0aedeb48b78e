"""Nagios perfdata and NSCA command-file receivers: pure record parsing plus the pipe read loop (engine.md 8).

Nagios writes one tab-separated record per line (the templates are in README.md, "Nagios").
A tab inside the plugin's long output is kept (the long output is the last field); a tab
inside its first output line shifts the fields, which the perfdata check catches: that
line is rejected with reason `tab_in_output` rather than stored with shifted fields.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from typing import Any

from flapjack_py.intake.buffer import RejectedLine as RejectedLine  # re-exported: what the parsers raise

log = logging.getLogger(__name__)

NSCA_STATES = {"0": "ok", "1": "warning", "2": "critical", "3": "unknown"}
_DIGITS = re.compile(r"^\d+$")
_NSCA = re.compile(r"^\[(\d+)\]\s*PROCESS_SERVICE_CHECK_RESULT;([^;]*);([^;]*);([^;]*);(.*)$")
_PERFDATA = re.compile(r"^\s*(?:(?:'[^']*'|[^\s'=]+)=\S*\s*)*$")
"""Nagios performance data: space-separated label=value[;warn;crit;min;max] items, or nothing."""

Parser = Callable[[str], dict[str, Any]]


def parse_nagios_line(line: str) -> dict[str, Any]:
    """Turn one perfdata record into a service event; raise RejectedLine saying why it cannot."""
    line = line.rstrip("\r\n")
    fields = line.split("\t")
    if len(fields) < 9:
        raise RejectedLine("fields", "ERROR - rejecting this line as it doesn't split into at least 9 tab "
                                     f"separated strings: [{line}]")
    object_type, timestamp, entity, check, state, _exec_time, _latency, output, perfdata = fields[:9]
    if not _DIGITS.match(timestamp):
        raise RejectedLine("timestamp", "ERROR - rejecting this line as second string doesn't look like a "
                                        f"timestamp: [{line}]")
    if object_type not in ("[HOSTPERFDATA]", "[SERVICEPERFDATA]"):
        raise RejectedLine("object_type", "ERROR - rejecting this line as first string is neither "
                                          f"'[HOSTPERFDATA]' nor '[SERVICEPERFDATA]': [{line}]")
    if not _PERFDATA.match(perfdata):
        raise RejectedLine("tab_in_output", "ERROR - rejecting this line as its perfdata field is not performance "
                                            f"data (a tab in the plugin output shifts the fields): [{line}]")
    event = {"entity": entity, "check": check, "type": "service", "state": nagios_state(state),
             "summary": output, "perfdata": perfdata, "time": int(timestamp)}
    if len(fields) > 9:
        event["details"] = "\t".join(fields[9:]).replace("\\n", "\n")
    return event


def nagios_state(state: str) -> str:
    """`up` -> ok, `down` -> critical (any case); other states pass through."""
    return {"up": "ok", "down": "critical"}.get(state.lower(), state)


def parse_nsca_line(line: str) -> dict[str, Any]:
    """`[TS] PROCESS_SERVICE_CHECK_RESULT;host;service;code;output` -> event (deviation D15: codes -> states)."""
    line = line.rstrip("\r\n")
    match = _NSCA.match(line)
    if not match:
        raise RejectedLine("format", f"ERROR - rejecting this line; illegal format: [{line}]")
    timestamp, entity, check, code, output = match.groups()
    if code.strip() not in NSCA_STATES:
        raise RejectedLine("return_code", f"ERROR - rejecting this line; return code is not 0, 1, 2 or 3: [{line}]")
    return {"entity": entity, "check": check, "type": "service", "state": NSCA_STATES[code.strip()],
            "summary": output, "time": int(timestamp)}
