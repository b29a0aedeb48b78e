"""Fixtures for executive tests against a real Redis: event builder, executive factory, notification recorder.

The chain builds on tests/conftest.py: `real_r` -> `make_executive` -> `executive` -> `send`.
Notifications are observed through the keys the executive writes (`E:C:last_<type>_notification`,
`E:C:<type>_notifications`); `notifications` records the Notification objects handed to the notifier.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import redis
from scenario_steps import CHECK, ENTITY, at

from flapjack_py.executive import Executive
from flapjack_py.model.notification import Notification
from flapjack_py.notify.notifier import Notifier


def make_event(drop: tuple[str, ...] = (), **over: Any) -> dict[str, Any]:
    """A service/critical event for web-01.example.com:HTTP with `over` applied and `drop` keys removed."""
    fields: dict[str, Any] = {"type": "service", "state": "critical", "entity": ENTITY, "check": CHECK}
    fields.update(over)
    return {k: v for k, v in fields.items() if k not in drop}


@pytest.fixture
def event() -> Callable[..., dict[str, Any]]:
    """The `make_event(**over)` builder."""
    return make_event


@pytest.fixture
def notifications(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Notification]]:
    """Every Notification the executive hands to its notifier, in batch order (nothing is alerted).

    Not autouse: test modules that want the notifier replaced say so with
    `pytestmark = pytest.mark.usefixtures("notifications")`.
    """
    calls: list[Notification] = []

    def record(self: Notifier, requests: Any, changes: Any = None) -> None:
        calls.extend(request.notification for request in requests)

    monkeypatch.setattr(Notifier, "notify", record)
    yield calls


@pytest.fixture
def make_executive(real_r: redis.Redis) -> Callable[..., Executive]:
    """`make_executive(**executive_settings)` -> an Executive on the real server."""
    def build(client: redis.Redis | None = None, **settings: Any) -> Executive:
        return Executive(client if client is not None else real_r, {"executive": settings})
    return build


@pytest.fixture
def executive(make_executive: Callable[..., Executive]) -> Executive:
    """An executive without new-check scheduled maintenance (it would block every new check)."""
    return make_executive(new_check_scheduled_maintenance_duration=0)


@pytest.fixture
def push(real_r: redis.Redis) -> Callable[..., None]:
    """`push(**over)` LPUSHes make_event(**over) as JSON; `push(raw="...")` pushes text as is."""
    def do(raw: str | bytes | None = None, **over: Any) -> None:
        real_r.lpush("events", raw if raw is not None else json.dumps(make_event(**over)))
    return do


@pytest.fixture
def send(push: Callable[..., None], executive: Executive) -> Callable[..., int]:
    """`send(**over)`: push one event and drain the executive; returns the number taken."""
    def do(**over: Any) -> int:
        push(**over)
        return executive.drain()
    return do


@pytest.fixture
def step(send: Callable[..., int], clock: Any) -> Callable[..., None]:
    """`step(t, **event)`: at time t (absolute) send one event and drain (the scenario tests)."""
    def do(t: int, **over: Any) -> None:
        at(clock, t)
        assert send(**over) == 1
    return do


class Keys:
    """Reads of what the executive wrote, decoded, for web-01.example.com:HTTP unless told otherwise."""

    def __init__(self, client: redis.Redis) -> None:
        self.r = client

    def notified(self, kind: str, entity: str = ENTITY, check: str = CHECK) -> list[int]:
        """Timestamps in E:C:<kind>_notifications."""
        return [int(v) for v in self.r.lrange(f"{entity}:{check}:{kind}_notifications", 0, -1)]

    def last(self, kind: str, entity: str = ENTITY, check: str = CHECK) -> int | None:
        """E:C:last_<kind>_notification as an int, or None."""
        value = self.r.get(f"{entity}:{check}:last_{kind}_notification")
        return None if value is None else int(value)

    def all_notified(self, entity: str = ENTITY, check: str = CHECK) -> dict[str, list[int]]:
        """Every non-empty <kind>_notifications list of a check."""
        kinds = ("problem", "warning", "critical", "unknown", "recovery", "acknowledgement", "test")
        return {k: v for k in kinds if (v := self.notified(k, entity, check))}

    def check(self, entity: str = ENTITY, check: str = CHECK) -> dict[str, str]:
        """The check:E:C hash."""
        return {k.decode(): v.decode() for k, v in self.r.hgetall(f"check:{entity}:{check}").items()}

    def text(self, key: str) -> str | None:
        value = self.r.get(key)
        return None if value is None else value.decode()

    def counters(self, key: str = "event_counters") -> dict[str, int]:
        return {k.decode(): int(v) for k, v in self.r.hgetall(key).items()}


@pytest.fixture
def stored(real_r: redis.Redis) -> Keys:
    """Decoded reads of the executive's keys."""
    return Keys(real_r)


@pytest.fixture
def world(real_r: redis.Redis, clock: Any) -> Any:
    """A notifier scenario World (tests/integration/notifier_world.py) over the real Redis, time frozen."""
    from notifier_world import World

    return World(real_r, clock)
