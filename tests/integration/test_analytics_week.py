"""On-call analytics over a scripted week (issue 32): events at their own times through the real executive and
notifier (time moved by the clock), acknowledgements at known times, then the figures read back from Redis.

Ada (email) lives in New York, which leaves summer time on Sunday 2024-11-03 (UTC-4 -> UTC-5): 13:30 UTC is
09:30 (working) on Friday and 08:30 (off hours) on Monday. Bob (sms) has no time zone: UTC.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from notifier_world import World

from flapjack_py import keys
from flapjack_py.analysis import analytics
from flapjack_py.model.teams import Team
from flapjack_py.store.analytics import read_facts
from flapjack_py.store.tags import add_check_tags
from flapjack_py.store.teams import save_team

pytestmark = pytest.mark.real

SINCE = int(datetime(2024, 10, 31, tzinfo=UTC).timestamp())  # Thursday
UNTIL = SINCE + 7 * 86400 - 1


def utc(*parts: int) -> int:
    return int(datetime(*parts, tzinfo=UTC).timestamp())


def incident(world: World, entity: str, check: str, start: int, recover_after: int,
             ack_after_page: int | None = None) -> None:
    """`entity:check` fails at `start` (paged 30 s later), is acknowledged `ack_after_page` s after the page by
    ada, and recovers `recover_after` s after `start`."""
    world.advance_to(start)
    world.fail("critical", check=check, entity=entity)
    if ack_after_page is not None:
        world.advance_to(start + 30 + ack_after_page)
        world.ack(check=check, entity=entity, actor="ada", channel="api", duration=7200)
    world.advance_to(start + recover_after)
    world.event("ok", check=check, entity=entity)


@pytest.fixture
def week(world: World) -> World:
    world.contact("ada", {"email": "ada@example.org"}, timezone="America/New_York", entities=("web", "db"))
    world.contact("bob", {"sms": "+15550100"}, entities=("web", "db"))
    add_check_tags(world.s, "db", "PG", ["database"])
    incident(world, "web", "HTTP", utc(2024, 10, 31, 14, 0), 600, ack_after_page=120)  # A: Thu, working hours
    incident(world, "db", "PG", utc(2024, 11, 1, 3, 0), 3600, ack_after_page=600)  # B: 23:00 in New York
    incident(world, "web", "HTTP", utc(2024, 11, 1, 13, 29, 30), 200)  # E: Fri 09:30 EDT, gone by itself
    incident(world, "web", "HTTP", utc(2024, 11, 2, 12, 0), 120)  # C: Saturday, gone by itself
    incident(world, "db", "PG", utc(2024, 11, 4, 13, 29, 30), 1800, ack_after_page=300)  # D: Mon 08:30 EST
    incident(world, "web", "HTTP", utc(2024, 11, 5, 20, 0), 1230)  # G: Tue, nobody acts
    world.advance_to(UNTIL + 3600)
    return world


def figures(world: World, kind: str) -> Any:
    facts = read_facts(world.s, SINCE, UNTIL)
    settings = analytics.Settings.of()
    return getattr(analytics, kind)(facts, settings)


def test_the_summary_of_a_scripted_week(week: World) -> None:
    summary = figures(week, "summary")

    # 6 incidents x (problem + recovery) + 3 acknowledgements, each to ada by email and bob by sms
    assert summary["pages"] == {"total": 30, "by_medium": {"email": 15, "sms": 15}}
    assert (summary["problems"], summary["recoveries"], summary["acknowledgements"]) == (12, 12, 6)
    assert summary["mtta_seconds"] == {"median": 300, "p90": 600, "count": 3}
    assert summary["mttr_seconds"] == {"median": 915, "p90": 3600, "count": 6}  # 120 200 600 1230 1800 3600
    assert summary["never_acknowledged"] == 3
    assert summary["self_resolved"] == 2
    assert (summary["off_hours_pages"], summary["sleep_hours_pages"]) == (15, 6)


def test_people_off_hours_follow_the_contacts_zone_across_the_dst_change(week: World) -> None:
    assert figures(week, "people") == [
        {"contact": "ada", "pages": 15, "off_hours_pages": 8, "sleep_hours_pages": 3},
        {"contact": "bob", "pages": 15, "off_hours_pages": 7, "sleep_hours_pages": 3},
    ]


def test_checks_sorted_by_pages_with_noise_and_response_times(week: World) -> None:
    rows = figures(week, "checks")
    assert [r["check"] for r in rows] == ["web:HTTP", "db:PG"]
    web, db = rows
    assert (web["pages"], web["problems"], web["self_resolved"], web["acted_on"]) == (18, 8, 2, 1)
    assert web["mtta_seconds"] == {"median": 120, "p90": 120, "count": 1}
    assert web["mttr_seconds"] == {"median": 400, "p90": 1230, "count": 4}  # 120 200 600 1230
    assert web["not_acted_share"] == 0.75
    assert (db["pages"], db["problems"], db["self_resolved"], db["acted_on"]) == (12, 4, 0, 2)
    assert db["mttr_seconds"] == {"median": 2700, "p90": 3600, "count": 2}


def test_checks_flapping_in_the_period_are_counted(week: World) -> None:
    week.s.zadd(keys.flapping_checks(), {"web:HTTP": utc(2024, 11, 2, 12, 0)})  # as flap detection marks it
    assert [(r["check"], r["flapping"]) for r in figures(week, "checks")] == [("web:HTTP", True), ("db:PG", False)]
    assert figures(week, "summary")["flapping_checks"] == 1
    week.s.zadd(keys.flapping_checks(), {"web:HTTP": UNTIL + 60})  # flapping only since after the period
    assert figures(week, "summary")["flapping_checks"] == 0


def test_a_period_that_excludes_the_week_is_empty(week: World) -> None:
    facts = read_facts(week.s, UNTIL + 1, UNTIL + 3600)
    summary = analytics.summary(facts, analytics.Settings.of())
    assert summary["pages"] == {"total": 0, "by_medium": {}}
    assert summary["mtta_seconds"] == {"median": None, "p90": None, "count": 0}


def test_the_api_gives_the_same_figures_with_the_times_people_type(week: World) -> None:
    from web import create_app

    client = create_app(redis=week.r).test_client()
    period = "since=2024-10-31T00:00:00Z&until=2024-11-06T23:59:59Z"
    summary = client.get(f"/api/analytics/summary?{period}")
    assert summary.status_code == 200, summary.get_data(as_text=True)
    assert summary.get_json(force=True) == figures(week, "summary")
    people = client.get("/api/analytics/people?until=2024-11-07T00:00:00Z&since=7d").get_json(force=True)
    assert people == {"since": SINCE, "until": UNTIL + 1, "people": figures(week, "people")}
    checks = client.get(f"/api/analytics/checks?{period}&entity=db").get_json(force=True)["checks"]
    assert [(r["check"], r["pages"]) for r in checks] == [("db:PG", 12)]
    ada = client.get(f"/api/analytics/summary?{period}&contact=ada").get_json(force=True)
    assert (ada["pages"]["total"], ada["off_hours_pages"]) == (15, 8)
    database = client.get(f"/api/analytics/checks?{period}&tag=database").get_json(force=True)["checks"]
    assert [(r["check"], r["pages"]) for r in database] == [("db:PG", 12)]
    nobody = client.get(f"/api/analytics/summary?{period}&escalation_policy=night").get_json(force=True)
    assert nobody["pages"]["total"] == 0
    save_team(week.s, Team("dba", "DBA", entities=("db",)))
    owned = client.get(f"/api/analytics/people?{period}&team=dba").get_json(force=True)["people"]
    assert [(r["contact"], r["pages"]) for r in owned] == [("ada", 6), ("bob", 6)]
    unknown = client.get(f"/api/analytics/summary?{period}&team=nope")
    assert unknown.status_code == 404 and unknown.get_json(force=True)["errors"] == ["could not find team 'nope'"]


@pytest.mark.parametrize(("query", "problem"), [
    ("since=someday", "since: could not read the time 'someday'"),
    ("since=2024-11-06&until=2024-10-31", "since (2024-11-06 00:00:00 UTC) is after until"),
    ("since=400d", "the period is longer than 92 days"),
    ("check=nocolon", "Malformed check ID"),
    ("contact=" + "x" * 101, "query parameter 'contact' is longer than 100 characters"),
])
def test_the_api_names_a_bad_period_or_filter(week: World, query: str, problem: str) -> None:
    from web import create_app

    response = create_app(redis=week.r).test_client().get(f"/api/analytics/summary?{query}")
    assert response.status_code == 400
    assert problem in response.get_json(force=True)["errors"][0]
