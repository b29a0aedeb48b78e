"""Builders for the pure unit tests: events, check snapshots and filter inputs (no Redis)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from flapjack_py.model.checks import CheckSnapshot
from flapjack_py.model.events import Event
from flapjack_py.model.verdicts import FilterInput

NOW = 1_700_000_000


def event_fields(drop: tuple[str, ...] = (), **over: Any) -> dict[str, Any]:
    """A valid raw service event as a dict, with `over` applied and the keys in `drop` left out."""
    fields: dict[str, Any] = {"type": "service", "state": "critical", "entity": "web-01.example.com",
                              "check": "HTTP"}
    fields.update(over)
    return {k: v for k, v in fields.items() if k not in drop}


@pytest.fixture
def raw_event() -> Callable[..., str]:
    """`raw_event(drop=(...), **over)` -> the JSON text of a valid event with `over` applied."""
    def build(drop: tuple[str, ...] = (), **over: Any) -> str:
        return json.dumps(event_fields(drop, **over))
    return build


@pytest.fixture
def make_event() -> Callable[..., Event]:
    """`make_event(**over)` -> a normalised Event (service/critical on web-01.example.com:HTTP)."""
    def build(**over: Any) -> Event:
        fields: dict[str, Any] = {"type": "service", "state": "critical", "entity": "web-01.example.com",
                                  "check": "HTTP"}
        fields.update(over)
        return Event(**fields)
    return build


@pytest.fixture
def make_snapshot() -> Callable[..., CheckSnapshot]:
    """`make_snapshot(**over)` -> a CheckSnapshot of a check that went critical 100 s ago."""
    def build(**over: Any) -> CheckSnapshot:
        fields: dict[str, Any] = {"entity": "web-01.example.com", "check": "HTTP", "registered": True,
                                  "state": "critical", "last_change": NOW - 100, "last_update": NOW,
                                  "failing_since": NOW - 100}
        fields.update(over)
        return CheckSnapshot(**fields)
    return build


@pytest.fixture
def make_input(make_event: Callable[..., Event], make_snapshot: Callable[..., CheckSnapshot]) -> Callable[..., FilterInput]:
    """`make_input(event=..., snapshot=..., previous_state=..., ...)` -> FilterInput with defaults 30/60."""
    def build(event: Event | None = None, snapshot: CheckSnapshot | None = None, previous_state: str | None = "critical",
              now: int = NOW, ifd: int = 30, rfd: int = 60) -> FilterInput:
        return FilterInput(event=event or make_event(), snapshot=snapshot or make_snapshot(),
                           previous_state=previous_state, now=now, default_initial_failure_delay=ifd,
                           default_repeat_failure_delay=rfd)
    return build
