"""Shared constants and helpers of the executive scenario tests (tests/integration/test_scenarios_*.py).

Each step pushes one event, drains the executive and checks whether a
notification was generated: the executive's own record of it is the
E:C:<type>_notifications lists and E:C:last_<type>_notification keys (docs/spec/engine.md 4.1 step 2).
Defaults: initial failure delay 30 s, repeat failure delay 60 s.
The `step` fixture (send one event at an absolute time, then drain) is in conftest.py.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import redis

from flapjack_py.executive import Executive

SCENARIO = [pytest.mark.real, pytest.mark.usefixtures("notifications", "clock")]
"""The marks of a scenario module (`pytestmark = SCENARIO`): a real Redis, the notifier replaced by the
`notifications` recorder, time frozen by `clock`."""

ENTITY = "web-01.example.com"  # the event builder's defaults (conftest.make_event)
CHECK = "HTTP"
Keys = Any  # conftest.Keys: decoded reads of what the executive wrote

T0 = 1_700_000_000  # clock START: 2023-11-14 22:13:20 UTC
HOUR = "2023111422"
E_C = f"{ENTITY}:{CHECK}"
ACK = {"type": "action", "state": "acknowledgement"}
TEST = {"type": "action", "state": "test_notifications"}
Send = Callable[..., int]
Step = Callable[..., None]  # conftest `step(t, **event)`, `push(**event)`
MakeExecutive = Callable[..., Executive]  # conftest `make_executive(**settings)`
Clock = Any  # tests/conftest.py Clock


def at(clock: Any, t: int) -> None:
    """Move the clock forward to absolute time `t`."""
    assert t >= clock.now, "time only moves forward"
    if t > clock.now:
        clock.advance(t - clock.now)


def um_key(entity: str = ENTITY, check: str = CHECK) -> str:
    return f"{entity}:{check}:unscheduled_maintenance"


def sm_key(entity: str = ENTITY, check: str = CHECK) -> str:
    return f"{entity}:{check}:scheduled_maintenance"


def zset(client: redis.Redis, key: str) -> dict[int, int]:
    return {int(m): int(s) for m, s in client.zrange(key, 0, -1, withscores=True)}
