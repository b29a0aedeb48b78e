"""What the UI's pictures show (pure): a check's state timeline over a span (state bands, maintenance and
acknowledgements, alerts as ticks) and the recent rates (events/s, alerts/s, queue length) from samples.

Data in (read by flapjack_py.store.samples and the check stores), plain lists out; no Redis, no clock.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

SPANS = {"24h": 86_400, "7d": 7 * 86_400}
"""Timeline spans the check page offers, in seconds."""
SAMPLE_BUCKET = 30
"""Seconds between two rate samples (one per bucket, written on executives' heartbeats)."""
SAMPLES_KEPT = 240
"""Rate samples kept (two hours at one per SAMPLE_BUCKET)."""
SPARK_WINDOW = 3600
"""Seconds of history a sparkline shows."""


@dataclass(frozen=True)
class Band:
    """The check was in `state` from `start` to `end` (unix times; `state` '' before any data)."""

    start: int
    end: int
    state: str


@dataclass(frozen=True)
class Window:
    """A maintenance window (`scheduled`) or an acknowledgement (`unscheduled`) clipped to the span."""

    start: int
    end: int
    kind: str
    summary: str = ""


@dataclass(frozen=True)
class Timeline:
    """A check's state timeline from `start` to `end`."""

    start: int
    end: int
    bands: list[Band]
    windows: list[Window] = field(default_factory=list)
    alerts: list[int] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """The compact form web/static/charts.js draws."""
        return {"start": self.start, "end": self.end, "bands": [[b.start, b.end, b.state] for b in self.bands],
                "windows": [[w.start, w.end, w.kind] for w in self.windows], "alerts": self.alerts}


@dataclass(frozen=True)
class Rates:
    """Recent rates: at each time (end of a sample interval), events/s, alerts/s and the queue length."""

    times: list[int]
    events: list[float]
    alerts: list[float]
    queue: list[int]

    def series(self) -> list[tuple[str, str, list[Any]]]:
        """(key, label, values) of each sparkline."""
        return [("events", "events/s", self.events), ("alerts", "alerts/s", self.alerts),
                ("queue", "queued events", self.queue)]


def state_bands(changes: Iterable[tuple[int, str | None]], start: int, end: int) -> list[Band]:
    """Bands of `changes` ((time, state), any order; the change before `start` included) over [start, end].

    Neighbouring bands of one state merge; the time before the first change is no band at all.
    """
    ordered = sorted(changes)
    bands: list[Band] = []
    for i, (at, state) in enumerate(ordered):
        until = ordered[i + 1][0] if i + 1 < len(ordered) else end
        lo, hi = max(at, start), min(until, end)
        if hi <= lo:
            continue
        if bands and bands[-1].state == (state or "") and bands[-1].end == lo:
            bands[-1] = Band(bands[-1].start, hi, bands[-1].state)
        else:
            bands.append(Band(lo, hi, state or ""))
    return bands


def clip_windows(windows: Iterable[tuple[int, int, str, str]], start: int, end: int) -> list[Window]:
    """(start, duration, kind, summary) windows overlapping [start, end], clipped to it, by start."""
    found = [Window(max(s, start), min(s + d, end), kind, summary) for s, d, kind, summary in windows
             if s < end and s + d > start]
    return sorted(found, key=lambda w: (w.start, w.kind))


def timeline(changes: Iterable[tuple[int, str | None]], windows: Iterable[tuple[int, int, str, str]],
             alerts: Iterable[int], start: int, end: int) -> Timeline:
    """The Timeline of one check over [start, end]."""
    return Timeline(start, end, state_bands(changes, start, end), clip_windows(windows, start, end),
                    sorted(t for t in alerts if start <= t <= end))


def rates(samples: Sequence[tuple[int, int, int]], alerts_between: Sequence[int]) -> Rates:
    """Rates from `samples` ((time, events counter, queue length), oldest first) and the alerts counted
    between each two samples (len(samples) - 1 numbers). A counter that went down (reset) reads as 0 events.
    """
    times, events, alerts, queue = [], [], [], []
    for (t0, e0, _), (t1, e1, q1), n in zip(samples, samples[1:], alerts_between, strict=False):
        seconds = max(t1 - t0, 1)
        times.append(t1)
        events.append(round(max(e1 - e0, 0) / seconds, 3))
        alerts.append(round(n / seconds, 3))
        queue.append(q1)
    return Rates(times, events, alerts, queue)
