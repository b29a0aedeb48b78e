"""GET /api/stale_checks (issue 14 point 5), with moved time."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from flask.testing import FlaskClient

pytestmark = pytest.mark.real


def test_stale_checks_listed_longest_silent_first(client: FlaskClient, send: Callable[..., None],
                                                  drain: Callable[[], int], clock: Any) -> None:
    for _ in range(3):
        send("web-01", "HTTP", "ok")
        send("db-01", "MySQL", "ok")
        clock.advance(60)
    db_heard = clock.now - 60
    send("web-01", "HTTP", "ok")
    web_heard = clock.now
    assert client.get("/api/stale_checks").get_json() == {"stale_checks": []}
    clock.advance(180)
    drain()  # the executive's housekeeping finds them
    assert client.get("/api/stale_checks").get_json() == {"stale_checks": [
        {"id": "db-01:MySQL", "last_heard": db_heard, "silent_for": 240},
        {"id": "web-01:HTTP", "last_heard": web_heard, "silent_for": 180}]}
    send("db-01", "MySQL", "ok")  # heard from again: no longer listed, even before the next sweep
    assert [c["id"] for c in client.get("/api/stale_checks").get_json()["stale_checks"]] == ["web-01:HTTP"]
