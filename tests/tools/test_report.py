"""`flapjack report` and its suggestions (issue 32): a flapping check's archived week, the figures, and a suggestion
whose predicted saving is what `flapjack backtest` reports for the same proposal."""

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
from web import create_app

pytestmark = pytest.mark.real

START = 1_700_000_000  # 2023-11-14 22:13:20 UTC
FLAPS = 5


def archive_flapping(client: StrRedis) -> None:
    """ada (email) is told about web; web:HTTP fails for 90 s FLAPS times an hour apart (each paged at +30 s, gone
    by itself), then is down for 600 s (critical every 100 s); the executive archives every event."""
    contact_store.create_contact(client, {"id": "ada", "first_name": "Ada", "last_name": "L",
                                          "media": {"email": "ada@example.com"}})
    entity_store.save_entity(client, "id-web", "web")
    entity_store.add_entity_contacts(client, "id-web", ["ada"])
    executive = Executive(client, {"executive": {"archive_events": True, "events_archive_maxage": 86400 * 2,
                                                 "new_check_scheduled_maintenance_duration": 0}})
    steps = [(0, "ok")]
    for n in range(FLAPS):
        base = 3600 * (n + 1)
        steps += [(base, "critical"), (base + 30, "critical"), (base + 90, "ok")]
    outage = 3600 * (FLAPS + 1)
    steps += [(outage + s, "critical") for s in range(0, 600, 100)] + [(outage + 600, "ok")]
    for offset, state in steps:
        with time_machine.travel(START + offset, tick=False):
            client.lpush("events", json.dumps({"type": "service", "entity": "web", "check": "HTTP", "state": state,
                                               "time": START + offset}))
            executive.drain()


def test_report_and_a_suggestion_proved_by_backtest(flapjack: Callable[..., Result], real_s: StrRedis,
                                                     real_r: redis.Redis, tmp_path: Path) -> None:
    archive_flapping(real_s)
    with time_machine.travel(START + 12 * 3600, tick=True):
        result = flapjack("report", "--since", "24h", "--json", "--suggest")
        assert result.exit_code == 0, result.output
        figures = json.loads(result.output)
        text = flapjack("report", "--since", "1d")
    summary = figures["summary"]
    assert summary["pages"] == {"total": 12, "by_medium": {"email": 12}}
    assert (summary["problems"], summary["self_resolved"], summary["never_acknowledged"]) == (6, 5, 6)
    assert summary["mttr_seconds"] == {"median": 90, "p90": 600, "count": 6}
    assert figures["checks"][0]["check"] == "web:HTTP" and figures["checks"][0]["not_acted_share"] == 1.0
    assert figures["people"] == [{"contact": "ada", "pages": 12, "off_hours_pages": 12, "sleep_hours_pages": 12}]
    assert "pages: 12 (email 12); problems 6, recoveries 6" in text.output.splitlines()

    [suggestion] = figures["suggestions"]
    assert suggestion["check"] == "web:HTTP" and suggestion["change"] == {"initial_failure_delay": 120}
    assert (suggestion["pages_before"], suggestion["pages_after"], suggestion["missed_problems"]) == (12, 2, 0)
    assert suggestion["reason"].startswith("raise initial_failure_delay of web:HTTP to 120 s: 10 of 12 pages would "
                                           "not have been sent; 0 incidents that lasted longer than 120 s")
    rules = tmp_path / "proposal.json"
    rules.write_text(json.dumps(suggestion["backtest"]))
    with time_machine.travel(START + 12 * 3600, tick=True):
        replayed = json.loads(flapjack("backtest", "--rules", str(rules), "--since", "24h", "--json").output)
    assert replayed["current"] - replayed["proposed"] == suggestion["pages_before"] - suggestion["pages_after"]
    assert (replayed["current"], replayed["proposed"]) == (12, 2)
    with time_machine.travel(START + 12 * 3600, tick=False):
        api = create_app(redis=real_r).test_client().get("/api/analytics/suggestions?since=24h")
    assert api.status_code == 200 and api.get_json(force=True)["suggestions"] == [suggestion]


def test_report_refuses_a_bad_period(flapjack: Callable[..., Result]) -> None:
    result = flapjack("report", "--since", "next blursday")
    assert result.exit_code == 2 and "since: could not read the time 'next blursday'" in result.output


def archive_parent_and_child(client: StrRedis) -> None:
    """ada (email) is told about switch and web; switch:PING goes down three times for 600 s, an hour apart, and
    web:HTTP fails 10 s after it each time and recovers 5 s before it (events with initial_failure_delay 0:
    both page at once)."""
    contact_store.create_contact(client, {"id": "ada", "first_name": "Ada", "last_name": "L",
                                          "media": {"email": "ada@example.com"}})
    for name in ("switch", "web"):
        entity_store.save_entity(client, f"id-{name}", name)
        entity_store.add_entity_contacts(client, f"id-{name}", ["ada"])
    executive = Executive(client, {"executive": {"archive_events": True, "events_archive_maxage": 86400 * 2,
                                                 "new_check_scheduled_maintenance_duration": 0}})
    steps = [(0, "switch", "PING", "ok"), (0, "web", "HTTP", "ok")]
    for n in range(3):
        base = 3600 * (n + 1)
        steps += [(base, "switch", "PING", "critical"), (base + 10, "web", "HTTP", "critical"),
                  (base + 595, "web", "HTTP", "ok"), (base + 600, "switch", "PING", "ok")]
    for offset, entity, check, state in steps:
        with time_machine.travel(START + offset, tick=False):
            client.lpush("events", json.dumps({"type": "service", "entity": entity, "check": check, "state": state,
                                               "time": START + offset, "initial_failure_delay": 0}))
            executive.drain()


def test_a_check_failing_with_another_is_proposed_a_dependency_proved_by_backtest(
        flapjack: Callable[..., Result], real_s: StrRedis, real_r: redis.Redis, tmp_path: Path) -> None:
    archive_parent_and_child(real_s)
    with time_machine.travel(START + 12 * 3600, tick=True):
        result = flapjack("report", "--since", "24h", "--json", "--suggest")
    assert result.exit_code == 0, result.output
    [suggestion] = json.loads(result.output)["suggestions"]
    assert suggestion["check"] == "web:HTTP" and suggestion["change"] == {"depends_on": "switch:PING"}
    assert (suggestion["pages_before"], suggestion["pages_after"], suggestion["missed_problems"]) == (6, 0, 0)
    assert suggestion["reason"] == (
        "make web:HTTP depend on switch:PING: 6 of 6 pages would not have been sent; 0 incidents that began outside "
        "its failures would have been missed (3 of its 3 paged problems began while switch:PING was failing)")
    assert suggestion["backtest"] == {"dependencies": [{"parent": "switch:PING", "child": {"check": "web:HTTP"}}]}
    rules = tmp_path / "proposal.json"
    rules.write_text(json.dumps(suggestion["backtest"]))
    with time_machine.travel(START + 12 * 3600, tick=True):
        replayed = json.loads(flapjack("backtest", "--rules", str(rules), "--since", "24h", "--json").output)
    assert replayed["current"] - replayed["proposed"] == suggestion["pages_before"] - suggestion["pages_after"]
    with time_machine.travel(START + 12 * 3600, tick=False):  # the analytics page offers to apply it (admins)
        page = create_app(redis=real_r).test_client().get("/analytics?since=24h&suggest=1").get_data(as_text=True)
    assert 'name="parent" value="switch:PING"' in page and 'name="value" value="web:HTTP"' in page
    assert "Apply: make web:HTTP depend on switch:PING" in page
