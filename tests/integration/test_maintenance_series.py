"""Recurring scheduled maintenance against a real Redis, time moved by time-machine: occurrences are
materialised into the seed's scheduled-maintenance keys by the executive's housekeeping, a weekly
window silences a problem inside it (in its zone, across DST) and not outside, and deleting the
series removes its future windows only."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from notifier_world import World

from flapjack_py import keys
from flapjack_py.oncall import recurrence
from flapjack_py.store import maintenance as maint
from flapjack_py.store import maintenance_series as series_store

pytestmark = pytest.mark.real
SUNDAY_2AM = "FREQ=WEEKLY;BYDAY=SU;BYHOUR=2;BYMINUTE=0"


def utc(*parts: int) -> int:
    return int(datetime(*parts, tzinfo=UTC).timestamp())


def make_series(world: World, checks: list[str], **over: object) -> recurrence.Series:
    fields = {"rrule": SUNDAY_2AM, "timezone": "Europe/Berlin", "duration": 3600, "checks": checks,
              "summary": "patch window", **over}
    made = recurrence.new_series("weekly", fields, world.clock.now)
    series_store.save_series(world.s, made)
    return made


def problem_at(world: World, moment: int, check: str) -> list[tuple[str, str, str, str, str]]:
    """A new check failing from moment-30 s, so its problem notification is due exactly at `moment`."""
    world.advance_to(moment - 30)
    return world.fail("critical", check=check)


# (UTC moment of the problem, Berlin local time, silenced?)
MOMENTS = [
    (utc(2023, 11, 19, 1, 30), "Sun 19 Nov 02:30 CET", True),
    (utc(2023, 11, 19, 2, 30), "Sun 19 Nov 03:30 CET", False),
    (utc(2023, 11, 26, 0, 30), "Sun 26 Nov 01:30 CET", False),
    (utc(2024, 4, 7, 0, 30), "Sun 7 Apr 02:30 CEST", True),  # a fixed UTC+1 window would miss this
    (utc(2024, 4, 7, 1, 30), "Sun 7 Apr 03:30 CEST", False),  # and silence this
]


@pytest.mark.parametrize(("moment", "local", "silenced"), MOMENTS, ids=[m[1] for m in MOMENTS])
def test_a_weekly_window_silences_a_problem_inside_it_only(world: World, moment, local, silenced):
    world.contact("ann", {"email": "ann@example.com"})
    make_series(world, ["foo:DISK"])
    alerts = problem_at(world, moment, "DISK")
    assert (alerts == []) == silenced, f"{local}: {alerts}"
    assert bool(maint.in_force(world.s, "foo", "DISK", maint.SCHEDULED)) == silenced


def test_housekeeping_materialises_ahead_into_the_seed_keys(world: World):
    made = make_series(world, ["foo:DISK", "foo:PING"])
    world.event("ok", check="PING")  # any drain runs the executive's housekeeping
    first, second = utc(2023, 11, 19, 1), utc(2023, 11, 26, 1)
    for check in ("DISK", "PING"):
        assert maint.load_windows(world.s, "foo", check, maint.SCHEDULED) == {first: 3600, second: 3600}
        assert world.r.get(keys.maintenance_summary("foo", check, "scheduled", first)) == b"patch window"
    world.advance(7 * 86400)
    world.event("ok", check="PING")
    assert utc(2023, 12, 3, 1) in maint.load_windows(world.s, "foo", "DISK", maint.SCHEDULED)
    assert series_store.materialise(world.s, made, world.clock.now) == 0  # already written: nothing twice


def test_entity_and_tag_targets_cover_their_checks(world: World):
    world.entity("foo")
    world.event("ok", check="HTTP")
    world.r.sadd(keys.check_tag("db"), "bar:MYSQL")
    make_series(world, [], entities=["id-foo"], tags=["db"])
    world.advance(120)
    world.event("ok", check="HTTP")
    assert utc(2023, 11, 19, 1) in maint.load_windows(world.s, "foo", "HTTP", maint.SCHEDULED)
    assert utc(2023, 11, 19, 1) in maint.load_windows(world.s, "bar", "MYSQL", maint.SCHEDULED)


def test_deleting_the_series_removes_future_windows_only(world: World):
    made = make_series(world, ["foo:DISK"], rrule="FREQ=DAILY;BYHOUR=2;BYMINUTE=0", timezone="UTC")
    world.event("ok", check="DISK")
    world.advance_to(utc(2023, 11, 16, 2, 30))  # the window of the 16th is in progress
    world.event("ok", check="DISK")
    windows = maint.load_windows(world.s, "foo", "DISK", maint.SCHEDULED)
    assert utc(2023, 11, 15, 2) in windows and utc(2023, 11, 20, 2) in windows
    removed = series_store.delete_series(world.s, made.id, world.clock.now)
    left = maint.load_windows(world.s, "foo", "DISK", maint.SCHEDULED)
    assert left == {utc(2023, 11, 15, 2): 3600, utc(2023, 11, 16, 2): 3600}  # past and in progress stay
    assert removed == len(windows) - 2
    assert maint.in_force(world.s, "foo", "DISK", maint.SCHEDULED) == utc(2023, 11, 16, 2)
    assert series_store.load_series(world.s, made.id) is None
    assert not world.r.exists(keys.maintenance_series_occurrences(made.id))
    world.advance(3 * 86400)
    world.event("ok", check="DISK")  # housekeeping no longer writes any
    assert maint.load_windows(world.s, "foo", "DISK", maint.SCHEDULED) == left
