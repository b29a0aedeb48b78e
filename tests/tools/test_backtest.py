"""`flapjack backtest --rules FILE --since 24h` on an archived stream with a known difference (issue 14 point 7)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
import redis
import time_machine
from click.testing import Result

from flapjack_py.executive import Executive
from flapjack_py.store import contacts as contact_store
from flapjack_py.store import entities as entity_store
from flapjack_py.store.plumbing.client import StrRedis

pytestmark = pytest.mark.real

START = 1_700_000_000  # 2023-11-14 22:13:20 UTC


def archive_stream(client: redis.Redis) -> None:
    """ada (email + sms, automatic general rule) is told about foo; foo:PING fails, is notified (the repeat at
    +200 s is held back by the media's interval), recovers; the live executive archives every event."""
    contact_store.create_contact(client, {"id": "ada", "first_name": "Ada", "last_name": "L",
                                          "media": {"email": "ada@example.com", "sms": "+61400000000"}})
    entity_store.save_entity(client, "id-foo", "foo")
    entity_store.add_entity_contacts(client, "id-foo", ["ada"])
    executive = Executive(client, {"executive": {"archive_events": True,
                                                 "new_check_scheduled_maintenance_duration": 0}})
    for offset, state in ((0, "ok"), (60, "critical"), (90, "critical"), (200, "critical"), (400, "ok")):
        with time_machine.travel(START + offset, tick=False):
            client.lpush("events", json.dumps({"type": "service", "entity": "foo", "check": "PING", "state": state,
                                               "time": START + offset}))
            executive.drain()


def test_backtest_prints_removed_and_added_alerts_per_contact_and_medium(
        flapjack: Callable[..., Result], real_r: redis.Redis, tmp_path: Path, real_s: StrRedis) -> None:
    archive_stream(real_s)
    live_alerts = real_r.zcard("alerts")
    assert live_alerts == 4  # problem and recovery on email and sms
    rules = tmp_path / "proposal.json"
    rules.write_text(json.dumps({"contacts": [
        {"id": "ada", "media": {"email": {"address": "ada@example.com", "interval": 60}, "sms": "+61400000000"},
         "rules": [{"critical_media": ["email"], "warning_media": ["email"]}]},  # no more sms, email every minute
        {"id": "bob", "first_name": "Bob", "media": {"email": "bob@example.com"}, "entities": ["foo"]}]}))
    with time_machine.travel(START + 3600, tick=True):
        result = flapjack("backtest", "--rules", str(rules), "--since", "24h")
        as_json = json.loads(flapjack("backtest", "--rules", str(rules), "--since", "24h", "--json").output)
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == "5 archived events replayed: 4 alerts with the current rules, 5 with the proposed ones"
    assert "ada email: +1 added, -0 removed" in lines  # the repeat at +200 s: the 60 s interval ran out (replay clock)
    assert "  + 2023-11-14 22:16:40 UTC problem foo:PING critical" in lines
    assert "ada sms: +0 added, -2 removed" in lines
    assert "bob email: +2 added, -0 removed" in lines
    assert "  - 2023-11-14 22:14:50 UTC problem foo:PING critical" in lines  # the replayed problem: 30 s delay
    assert sorted((a["contact"], a["medium"], a["type"]) for a in as_json["removed"]) == [
        ("ada", "sms", "problem"), ("ada", "sms", "recovery")]
    assert sorted((a["contact"], a["medium"], a["type"]) for a in as_json["added"]) == [
        ("ada", "email", "problem"), ("bob", "email", "problem"), ("bob", "email", "recovery")]
    assert real_r.zcard("alerts") == live_alerts  # the live database is only read
    assert not real_r.exists("contact:bob")


def test_backtest_without_archive_or_with_a_bad_file(flapjack: Callable[..., Result], tmp_path: Path) -> None:
    rules = tmp_path / "proposal.json"
    rules.write_text(json.dumps({"contacts": [{"id": "ada", "rules": [{"critical_media": "email"}]}]}))
    bad = flapjack("backtest", "--rules", str(rules))
    assert bad.exit_code == 2 and "contacts[0].rules[0]: Rule critical_media must be a list of strings" in bad.output
    rules.write_text(json.dumps({"contacts": [{"id": "ada"}]}))
    empty = flapjack("backtest", "--rules", str(rules), "--since", "1h")
    assert empty.exit_code == 1 and "no archived events since 1h ago" in empty.output
