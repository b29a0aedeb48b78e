"""Pure report computations (engine.md 7.3, api-v1.md 11): outages, maintenance periods, downtime.

Inputs are plain values (state changes, windows); no Redis. Bounds are unix
seconds or None (unbounded), and inclusive.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Protocol


class Change(Protocol):
    """A state change (flapjack_py.store.history.StateChange)."""

    @property
    def ts(self) -> int: ...
    @property
    def state(self) -> str | None: ...
    @property
    def summary(self) -> str | None: ...
    @property
    def details(self) -> str | None: ...


class Period(Protocol):
    """A maintenance window (flapjack_py.store.maintenance.Window)."""

    @property
    def start(self) -> int: ...
    @property
    def duration(self) -> int: ...
    @property
    def summary(self) -> str: ...


def outages(changes: Sequence[Change], start: int | None, end: int | None) -> list[dict[str, Any]]:
    """Outages from state changes (the change before the window first, if any)."""
    result: list[dict[str, Any]] = []
    previous: Change | None = None
    for index, change in enumerate(changes):
        last, previous = previous, change
        if change.state == "ok":
            continue
        if last is not None and last.state == change.state and result:
            if change.summary is not None:
                result[-1]["summary"] += f" / {change.summary}"
            if change.details is not None:
                result[-1]["details"] += f" / {change.details}"
            continue
        begin = change.ts if (last is not None or start is None) else max(change.ts, start)
        finish = next((c.ts for c in changes[index + 1:] if c.state != change.state), end)
        result.append({"state": change.state, "start_time": begin, "end_time": finish,
                       "duration": None if finish is None else finish - begin,
                       "summary": change.summary or "", "details": change.details or ""})
    return result


def maintenance_periods(windows: Iterable[Period], start: int | None, end: int | None) -> list[dict[str, Any]]:
    """Windows starting in [start, end], plus earlier ones still running at `start`; sorted by start."""
    found = {}
    for w in windows:
        finish = int(w.start + w.duration)
        in_range = (start is None or w.start >= start) and (end is None or w.start <= end)
        running = start is not None and w.start < start and finish >= start
        if in_range or running:
            found[w.start] = {"start_time": w.start, "duration": w.duration, "summary": w.summary,
                              "end_time": finish}
    return [found[s] for s in sorted(found)]


def downtime(outs: Sequence[dict[str, Any]], maintenances: Sequence[dict[str, Any]], start: int | None,
             end: int | None) -> dict[str, Any]:
    """Outages minus scheduled maintenance, with seconds and percentages per state."""
    kept = [dict(o) for o in outs]
    for sm in maintenances:
        kept = sorted(_split(kept, sm), key=lambda o: o["start_time"])
    for sm in maintenances:
        kept = _trim(kept, sm)
    states = list(dict.fromkeys(o["state"] for o in outs))
    totals = dict.fromkeys(states, 0)
    for o in kept:
        if o["duration"] is not None:
            totals[o["state"]] += o["duration"]
    bounded = start is not None and end is not None
    percentages: dict[str, float | None] = dict.fromkeys(states, None)
    if states and bounded:
        span = end - start  # type: ignore[operator]
        totals["ok"] = span - sum(totals.values())
        percentages = {s: (secs * 100 / span if span else 0.0) for s, secs in totals.items() if s != "ok"}
        percentages["ok"] = 100 - sum(percentages.values())  # type: ignore[arg-type]
    return {"total_seconds": totals, "percentages": percentages, "downtime": kept}


def _split(outs: list[dict[str, Any]], sm: dict[str, Any]) -> list[dict[str, Any]]:
    """Split every outage that strictly contains the maintenance period in two."""
    result = []
    for o in outs:
        if o["end_time"] is None or not (o["start_time"] < sm["start_time"] and o["end_time"] > sm["end_time"]):
            result.append(o)
            continue
        result.append({"state": o["state"], "start_time": o["start_time"], "end_time": sm["start_time"],
                       "duration": sm["start_time"] - o["start_time"], "summary": f"{o['summary']} [split start]"})
        result.append({"state": o["state"], "start_time": sm["end_time"], "end_time": o["end_time"],
                       "duration": o["end_time"] - sm["end_time"], "summary": f"{o['summary']} [split finish]"})
    return result


def _trim(outs: list[dict[str, Any]], sm: dict[str, Any]) -> list[dict[str, Any]]:
    """Drop outages inside the maintenance period; cut overlapping ones at its edges."""
    result = []
    for o in outs:
        if o["end_time"] is None or not (sm["start_time"] < o["end_time"] and sm["end_time"] > o["start_time"]):
            result.append(o)
            continue
        if sm["start_time"] <= o["start_time"] and sm["end_time"] >= o["end_time"]:
            continue
        if sm["start_time"] <= o["start_time"]:
            o["start_time"] = sm["end_time"]
        elif sm["end_time"] >= o["end_time"]:
            o["end_time"] = sm["start_time"]
        o["duration"] = o["end_time"] - o["start_time"]
        result.append(o)
    return result
