"""`flapjack explain ENTITY:CHECK [--at TIME]`: the decision trace in the terminal (issue 14 point 4)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
import redis
from click.testing import Result

from flapjack_py.executive import Executive
from flapjack_py.store import contacts as contact_store
from flapjack_py.store import entities as entity_store
from flapjack_py.store.plumbing.client import StrRedis

pytestmark = pytest.mark.real

START = 1_700_000_000  # 2023-11-14 22:13:20 UTC


def feed(client: redis.Redis, *states: str, every: int = 30) -> None:
    """Events for foo:PING, `every` seconds apart from START, each processed at once."""
    import time_machine

    executive = Executive(client, {"executive": {"new_check_scheduled_maintenance_duration": 0}})
    for i, state in enumerate(states):
        with time_machine.travel(START + i * every, tick=False):
            client.lpush("events", json.dumps({"type": "service", "entity": "foo", "check": "PING", "state": state}))
            executive.drain()


def test_explain_names_the_filter_and_the_contact_media(flapjack: Callable[..., Result], real_r: redis.Redis, real_s: StrRedis) -> None:
    feed(real_r, "ok")
    contact_store.create_contact(real_s, {"id": "ada", "first_name": "Ada", "last_name": "L",
                                          "media": {"email": "ada@example.com"}})
    entity_store.add_entity_contacts(real_s, entity_store.entity_id(real_s, "foo"), ["ada"])
    feed(real_r, "ok", "critical", "critical")  # at START+30 held by the initial delay, at START+60 notified
    result = flapjack("explain", "foo:PING")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].startswith("2023-11-14 22:14:20 UTC  foo:PING  critical: problem notification (critical), alerted")
    assert "  contact ada: rules chose media" in lines
    assert any(line.startswith("    email: alert recorded, but the gateway is not enabled") for line in lines)
    assert "2023-11-14 22:13:50 UTC  foo:PING  critical: not notified, delays filter: initial failure delay not over" \
        in result.output


def test_explain_at_a_time_shows_what_was_decided_then(flapjack: Callable[..., Result], real_r: redis.Redis) -> None:
    feed(real_r, "critical", "critical")
    at = flapjack("explain", "foo:PING", "--at", "2023-11-14T22:13:40Z")
    assert at.exit_code == 0, at.output
    assert at.output.startswith("2023-11-14 22:13:20 UTC  foo:PING  critical: not notified, delays filter")
    assert len(at.output.splitlines()) == 1  # the notification at 22:13:50 came later
    before = flapjack("explain", "foo:PING", "--at", "2023-11-14T22:00:00Z")
    assert before.output.startswith("No decision recorded for foo:PING at or before 2023-11-14 22:00:00 UTC")


def test_explain_json_and_bad_input(flapjack: Callable[..., Result], real_r: redis.Redis) -> None:
    feed(real_r, "critical")
    entries: list[dict[str, Any]] = json.loads(flapjack("explain", "foo:PING", "--json").output)
    assert [e["stopped_by"]["code"] for e in entries] == ["initial_delay"]
    assert flapjack("explain", "nocolon").exit_code == 2
    assert flapjack("explain", "foo:PING", "--at", "the day after never").exit_code == 2
