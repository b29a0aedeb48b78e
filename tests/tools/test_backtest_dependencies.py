"""`flapjack backtest` with proposed dependencies (issue 33.4): the pages they would have removed (a child's problem
and recovery while its parent failed) and added (a child released when its parent recovered)."""

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
STREAM = [(0, "sw", "ok"), (1, "web", "ok"), (1, "db", "ok"), (60, "sw", "critical"), (61, "web", "critical"),
          (62, "db", "critical"), (90, "sw", "critical"), (91, "web", "critical"), (92, "db", "critical"),
          (150, "web", "ok"), (200, "sw", "ok"), (300, "db", "ok")]
"""The switch fails; web and db behind it fail with it; web recovers first, then the switch, then db."""


def archive_stream(client: StrRedis) -> None:
    contact_store.create_contact(client, {"id": "ada", "first_name": "Ada", "media": {"email": "ada@example.com"}})
    for name in ("sw", "web", "db"):
        entity_store.save_entity(client, f"id-{name}", name)
        entity_store.add_entity_contacts(client, f"id-{name}", ["ada"])
    executive = Executive(client, {"executive": {"archive_events": True, "new_check_scheduled_maintenance_duration": 0}})
    for offset, entity, state in STREAM:
        with time_machine.travel(START + offset, tick=False):
            client.lpush("events", json.dumps({"type": "service", "entity": entity, "check": "PING", "state": state,
                                               "time": START + offset}))
            executive.drain()


def test_proposed_dependencies_remove_and_add_pages(flapjack: Callable[..., Result], real_r: redis.Redis,
                                                    real_s: StrRedis, tmp_path: Path) -> None:
    archive_stream(real_s)
    assert real_r.zcard("alerts") == 6  # problem and recovery of each
    rules = tmp_path / "proposal.json"
    rules.write_text(json.dumps({"dependencies": [{"parent": "sw:PING", "child": {"entity": "web"}},
                                                  {"parent": "sw:PING", "child": {"check": "db:PING"}}]}))
    with time_machine.travel(START + 3600, tick=True):
        result = flapjack("backtest", "--rules", str(rules), "--since", "24h")
        as_json = json.loads(flapjack("backtest", "--rules", str(rules), "--since", "24h", "--json").output)
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[:2] == ["12 archived events replayed: 6 alerts with the current rules, 4 with the proposed ones",
                         "2 proposed dependencies in place of the 0 stored"]
    assert "ada email: +1 added, -3 removed" in lines
    assert "  + 2023-11-14 22:16:40 UTC problem db:PING critical" in lines  # released by the switch's recovery
    assert sorted((a["check"], a["type"]) for a in as_json["removed"]) == [
        ("db:PING", "problem"), ("web:PING", "problem"), ("web:PING", "recovery")]
    assert as_json["dependencies"] == {"current": 0, "proposed": 2}
    assert real_r.zcard("alerts") == 6 and not real_r.exists("dependencies")  # the live database is only read


def test_a_proposed_cycle_or_bad_dependency_is_refused(flapjack: Callable[..., Result], tmp_path: Path) -> None:
    rules = tmp_path / "proposal.json"
    rules.write_text(json.dumps({"dependencies": [{"parent": "a:PING", "child": {"entity": "b"}},
                                                  {"parent": "b:PING", "child": {"entity": "a"}}]}))
    cycle = flapjack("backtest", "--rules", str(rules))
    assert cycle.exit_code == 2 and "dependencies: dependency cycle: " in cycle.output
    rules.write_text(json.dumps({"dependencies": [{"parent": "a", "child": {"entity": "b"}}]}))
    bad = flapjack("backtest", "--rules", str(rules))
    assert bad.exit_code == 2 and "dependencies[0]: parent must be 'ENTITY:CHECK'" in bad.output
