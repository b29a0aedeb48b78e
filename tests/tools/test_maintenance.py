"""flapjack maintenance create|show|delete against a real Redis, time frozen at START (UTC)."""

from __future__ import annotations

import pytest

from flapjack_py import keys
from flapjack_py.store import maintenance as store

START = 1_700_000_000  # 2023-11-14 22:13:20 UTC
HOUR = 3600
WOULD = "The following maintenances would be deleted.  Run this command again with --apply true to remove them."


def windows(client, entity, check, kind="scheduled"):
    return [(w.start, w.duration, w.summary) for w in store.list_windows(client, entity, check, kind)]


def create(flapjack, *extra, entity="web-1", check="HTTP", start="in 1 hour", duration="2 hours"):
    return flapjack("maintenance", "create", "-e", entity, "-c", check, "-r", "upgrade", "-s", start,
                    "-d", duration, *extra)


def test_create_scheduled_on_every_entity_and_check(flapjack, real_r, clock, real_s):
    result = create(flapjack, entity="web-1,web-2", check="HTTP,PING")
    assert result.exit_code == 0, result.output
    assert result.stdout == "The maintenances specified have been created\n"
    for entity in ("web-1", "web-2"):
        assert real_r.hget(keys.entity_ids_by_name(), entity) is not None
        for check in ("HTTP", "PING"):
            assert windows(real_s, entity, check) == [(START + HOUR, 2 * HOUR, "upgrade")]
            assert store.in_force(real_s, entity, check, "scheduled") is None  # future window


def test_create_now_is_in_force_and_keeps_known_entity_id(flapjack, real_r, clock, real_s):
    real_r.hset(keys.entity_ids_by_name(), "web-1", "42")
    assert create(flapjack, start="now", duration="30 minutes").exit_code == 0
    assert store.in_force(real_s, "web-1", "HTTP", "scheduled") == START
    assert real_r.ttl(keys.maintenance("web-1", "HTTP", "scheduled")) == 1800
    assert real_r.hget(keys.entity_ids_by_name(), "web-1") == b"42"


def test_create_unscheduled(flapjack, real_r, clock, real_s):
    assert create(flapjack, "-t", "unscheduled", start="now", duration="4 hours").exit_code == 0
    assert windows(real_s, "web-1", "HTTP", "unscheduled") == [(START, 4 * HOUR, "upgrade")]
    assert store.in_force(real_s, "web-1", "HTTP", "unscheduled") == START


def test_create_tomorrow_at_nine(flapjack, real_r, clock, real_s):
    assert create(flapjack, start="tomorrow 9am", duration="1 hour").exit_code == 0
    assert windows(real_s, "web-1", "HTTP") == [(1_700_038_800, HOUR, "upgrade")]  # 2023-11-15 09:00 UTC


def test_create_next_sunday_in_a_named_zone(flapjack, real_r, clock, real_s):
    assert create(flapjack, start="next sunday 01:30 Europe/Berlin", duration="1h30m").exit_code == 0
    assert windows(real_s, "web-1", "HTTP") == [(1_700_353_800, 5400, "upgrade")]  # 2023-11-19 00:30 UTC


@pytest.mark.parametrize(("start", "duration", "message"), [
    ("whenever", "1 hour", "Failed to parse start time 'whenever'"),
    ("now", "a while", "Failed to parse duration 'a while'"),
    ("now", "0", "Failed to parse duration '0'"),
    ("01/02/2024", "1 hour", "ambiguous"),
    ("tomorrow at lunch", "1 hour", "understood 'tomorrow at' as"),
])
def test_create_rejects_unparseable_start_or_duration(flapjack, real_r, clock, start, duration, message, real_s):
    result = create(flapjack, start=start, duration=duration)
    assert result.exit_code == 2
    assert message in result.output
    assert windows(real_s, "web-1", "HTTP") == []


def test_create_needs_its_options(flapjack, real_r):
    result = flapjack("maintenance", "create", "-e", "web-1", "-c", "HTTP")
    assert result.exit_code == 2
    assert "Missing option '-r' / '--reason'" in result.output


def test_show_prints_a_table_of_ongoing_and_future_windows(flapjack, real_r, clock, real_s):
    create(flapjack, entity="web-1", check="HTTP", start="now", duration="1 hour")
    create(flapjack, entity="db-1", check="PING", start="in 1 day", duration="90 minutes")
    store.create_scheduled(real_s, "old-1", "SSH", START - 10 * HOUR, HOUR, "long gone", START)
    real_r.hset(keys.check("web-1", "HTTP"), "state", "critical")
    result = flapjack("maintenance", "show")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == [
        "+--------+-------+----------+---------------------------+--------------+---------+---------------------------+",
        "| Entity | Check | State    | Start                     | Duration (s) | Reason  | End                       |",
        "+--------+-------+----------+---------------------------+--------------+---------+---------------------------+",
        "| db-1   | PING  |          | 2023-11-15 22:13:20 +0000 | 5400         | upgrade | 2023-11-15 23:43:20 +0000 |",
        "| web-1  | HTTP  | critical | 2023-11-14 22:13:20 +0000 | 3600         | upgrade | 2023-11-14 23:13:20 +0000 |",
        "+--------+-------+----------+---------------------------+--------------+---------+---------------------------+",
    ]


@pytest.fixture
def three_windows(flapjack, real_r, clock, real_s):
    """web-1:HTTP now for 1 h (critical), web-2:HTTP in 2 h for 3 h, db-1:PING 3 h ago for 1 h (over)."""
    create(flapjack, entity="web-1", check="HTTP", start="now", duration="1 hour")
    create(flapjack, entity="web-2", check="HTTP", start="in 2 hours", duration="3 hours")
    store.create_scheduled(real_s, "db-1", "PING", START - 3 * HOUR, HOUR, "backup", START)
    real_r.hset(keys.check("web-1", "HTTP"), "state", "critical")


def shown(flapjack, *args):
    result = flapjack("maintenance", "show", *args)
    assert result.exit_code == 0, result.output
    return [line.split("|")[1].strip() for line in result.stdout.splitlines()[3:-1]]


@pytest.mark.parametrize(("args", "entities"), [
    ((), ["web-1", "web-2"]),
    (("-e", "^web-2$"), ["web-2"]),
    (("-c", "PING"), []),
    (("-c", "PING", "-f", "after 1 day ago"), ["db-1"]),
    (("--state", "critical"), ["web-1"]),
    (("-r", "back"), []),
    (("-d", "more than 2 hours"), ["web-2"]),
    (("-d", "1 hour"), ["web-1"]),
    (("-d", "between 30 minutes and 2 hours"), ["web-1"]),
    (("-s", "after now"), ["web-2"]),
    (("-s", "less than 1 hour from now"), ["web-1"]),
    (("-s", "more than 1 hour from now"), ["web-2"]),
    (("-s", "more than 2 hours ago", "-f", "before now"), ["db-1"]),
    (("-s", "between 1 and 3 hours from now"), ["web-2"]),
    (("-s", "on today", "-f", "after 1 day ago"), ["db-1", "web-1"]),
    (("-s", "on tomorrow"), ["web-2"]),  # 2023-11-15 00:13:20 UTC
    (("-t", "unscheduled"), []),
])
def test_show_filters(flapjack, three_windows, args, entities):
    assert shown(flapjack, *args) == entities


@pytest.mark.parametrize(("args", "message"), [
    (("-s", "yesterday"), "Start time must start with 'more than', 'less than', 'on', 'before', 'after' or 'between'"),
    (("-f", "soonish"), "Finish time must start with"),
    (("-d", "about an hour"), "Failed to parse"),
    (("-t", "sometimes"), "Invalid value for '-t' / '--type'"),
])
def test_show_rejects_bad_filters(flapjack, real_r, clock, args, message):
    result = flapjack("maintenance", "show", *args)
    assert result.exit_code == 2
    assert message in result.output


def test_delete_without_apply_only_shows(flapjack, real_r, three_windows, real_s):
    result = flapjack("maintenance", "delete", "-e", "web")
    assert result.exit_code == 1
    assert result.stderr == WOULD + "\n"
    assert len(result.stdout.splitlines()) == 6  # the table with two rows
    assert store.in_force(real_s, "web-1", "HTTP", "scheduled") == START


def test_delete_with_apply_ends_current_and_removes_future(flapjack, real_r, three_windows, clock, real_s):
    clock.advance(600)
    result = flapjack("maintenance", "delete", "-e", "web", "--apply", "true")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[-1] == "The maintenances above have been deleted"
    assert windows(real_s, "web-1", "HTTP") == [(START, 600, "upgrade")]
    assert store.in_force(real_s, "web-1", "HTTP", "scheduled") is None
    assert windows(real_s, "web-2", "HTTP") == []
    assert real_r.get(keys.maintenance_summary("web-2", "HTTP", "scheduled", START + 2 * HOUR)) is None


def test_delete_refuses_finished_windows(flapjack, real_r, three_windows, real_s):
    result = flapjack("maintenance", "delete", "-c", "PING", "-f", "before now", "--apply")
    assert result.exit_code == 1
    assert f"db-1:PING:{START - 3 * HOUR}: Maintenance can't be deleted as it finished in the past" in result.stdout
    assert "Failed to delete maintenances" in result.stderr
    assert windows(real_s, "db-1", "PING") == [(START - 3 * HOUR, HOUR, "backup")]


def test_delete_unscheduled_ends_it(flapjack, real_r, clock, real_s):
    create(flapjack, "-t", "unscheduled", start="now", duration="1 hour")
    result = flapjack("maintenance", "delete", "-t", "unscheduled", "--apply")
    assert result.exit_code == 0, result.output
    assert store.in_force(real_s, "web-1", "HTTP", "unscheduled") is None


def test_create_with_rrule_makes_a_series_listed_and_deleted(flapjack, real_r, clock, real_s):
    rule = "FREQ=WEEKLY;BYDAY=SU;BYHOUR=2;BYMINUTE=0"
    result = create(flapjack, "--rrule", rule, "--tz", "Europe/Berlin", start="now", duration="90m")
    assert result.exit_code == 0, result.output
    assert "next window starts" in result.stdout
    sundays = {1_700_355_600: 5400, 1_700_960_400: 5400}  # 2023-11-19 and 26, 02:00 CET
    assert store.load_windows(real_s, "web-1", "HTTP", "scheduled") == sundays
    listed = flapjack("maintenance", "series", "list")
    assert rule in listed.stdout and "Europe/Berlin" in listed.stdout and "web-1:HTTP" in listed.stdout
    series_id = result.stdout.split("maintenance ")[1].split(" ")[0]
    deleted = flapjack("maintenance", "series", "delete", series_id)
    assert deleted.exit_code == 0 and "2 future windows" in deleted.stdout
    assert store.load_windows(real_s, "web-1", "HTTP", "scheduled") == {}
    bad = create(flapjack, "--rrule", "FREQ=SOMETIMES")
    assert bad.exit_code == 2 and "FREQ must be one of" in bad.output
