"""An idle executive wakes on the first event, not on a poll tick (issue 11): its wait returns with the event."""

from __future__ import annotations

import json
import threading
import time

import pytest
import redis

from flapjack_py import keys
from flapjack_py.executive import Executive

CONFIG = {"executive": {"new_check_scheduled_maintenance_duration": 0}}
EVENT = json.dumps({"type": "service", "state": "ok", "entity": "e", "check": "c"})


def test_an_idle_executive_wakes_on_the_first_event(real_r: redis.Redis, monkeypatch: pytest.MonkeyPatch) -> None:
    ex = Executive(real_r, CONFIG)
    monkeypatch.setattr(ex, "_install_signal_handlers", lambda: None)  # signals are the main thread's
    waiting, woken = threading.Event(), []
    original = ex.queue.wait

    def wait(_timeout: float) -> bool:
        waiting.set()
        found = original(30.0)  # longer than the test waits: only the event can end it in time
        woken.append(found)
        return found

    monkeypatch.setattr(ex.queue, "wait", wait)
    thread = threading.Thread(target=ex.run, daemon=True)
    thread.start()
    try:
        assert waiting.wait(20), "the executive never waited for events"
        real_r.lpush("events", EVENT)
        deadline = time.monotonic() + 20
        while real_r.hget(keys.event_counters(), "all") != b"1" and time.monotonic() < deadline:
            time.sleep(0.01)
        assert real_r.hget(keys.event_counters(), "all") == b"1"
        assert woken == [True]  # the wait in progress returned with the event
    finally:
        ex.stop()
        real_r.lpush("events", EVENT)  # wakes it to see it is stopped
        thread.join(20)
