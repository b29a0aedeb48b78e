"""Decision traces in Redis: a bounded list per check, newest first (flapjack_py/notify/decisions.py builds them)."""

from __future__ import annotations

import json
import logging
from typing import Any, cast

from flapjack_py import keys
from flapjack_py.store.maintenance import SCHEDULED, UNSCHEDULED, load_windows
from flapjack_py.store.plumbing.client import StrRedis
from flapjack_py.store.plumbing.writes import Writes

log = logging.getLogger(__name__)

MAX_READ = 1000
"""Most entries one read returns."""
_COMPACT = json.JSONEncoder(separators=(",", ":"), check_circular=False)
"""json.dumps(..., separators=(",", ":")) without making an encoder per trace, nor looking for cycles (a trace is
nested dicts and lists that never hold themselves): 10 -> 8.4 us a trace of 3 contacts x 2 media."""


def record(pipe: Writes, entity: str, check: str, entry: dict[str, Any], length: int) -> None:
    """LPUSH one trace and LTRIM the list to `length` (0: traces are off, nothing is written)."""
    if length <= 0:
        return
    key = keys.check_decisions(entity, check)
    pipe.lpush(key, _COMPACT.encode(entry))
    pipe.ltrim(key, 0, length - 1)


def load(client: StrRedis, entity: str, check: str, limit: int = MAX_READ) -> list[dict[str, Any]]:
    """The check's traces, newest first; a maintenance stop gets `maintenance_until` from its window."""
    raw = cast(list[str], client.lrange(keys.check_decisions(entity, check), 0, max(min(limit, MAX_READ), 1) - 1))
    entries = []
    for text in raw:
        try:
            entries.append(json.loads(text))
        except ValueError:
            log.warning("%s:%s: unreadable decision trace entry skipped", entity, check)
    _add_maintenance_ends(client, entity, check, entries)
    return entries


def _add_maintenance_ends(c: StrRedis, entity: str, check: str, entries: list[dict[str, Any]]) -> None:
    windows: dict[str, dict[int, int]] = {}
    for entry in entries:
        stop = entry.get("stopped_by") or {}
        start = stop.get("maintenance_start")
        if start is None:
            continue
        kind = SCHEDULED if stop.get("code") == "scheduled_maintenance" else UNSCHEDULED
        if kind not in windows:
            windows[kind] = load_windows(c, entity, check, kind)
        duration = windows[kind].get(int(start))
        if duration is not None:
            stop["maintenance_until"] = int(start) + duration
