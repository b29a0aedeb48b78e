"""The executive notifies through the notifier its composition root gives it (issue 16 point 2)."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pytest
import redis

from flapjack_py.executive import Executive
from flapjack_py.notify.request import NotifyRequest

pytestmark = pytest.mark.real

CONFIG = {"executive": {"new_check_scheduled_maintenance_duration": 0}}


class Recording:
    """A notifier that only records what it is asked to decide."""

    def __init__(self) -> None:
        self.batches: list[list[tuple[str, str]]] = []

    def notify(self, requests: Sequence[NotifyRequest], changes: Mapping[str, Sequence[Any]] | None = None,
               watch: Callable[[list[str]], None] | None = None, reads: Any = None) -> None:
        self.batches.append([(r.notification.event_id, r.notification.state) for r in requests])


def test_the_executive_hands_its_notifications_to_the_notifier_it_is_given(real_r: redis.Redis) -> None:
    notifier = Recording()
    executive = Executive(real_r, CONFIG, notifier)
    real_r.lpush("events", *(json.dumps({"type": "service", "entity": "web", "check": check, "state": state,
                                         "initial_failure_delay": 0}) for check, state in
                             [("a", "ok"), ("a", "critical"), ("b", "ok"), ("b", "warning")]))
    assert executive.drain() == 4
    assert notifier.batches == [[("web:a", "critical"), ("web:b", "warning")]]
    assert not real_r.keys("alert:*")  # nothing decided but by the notifier given
