"""Editing a recurring-maintenance series in the UI (web/ui/series_forms.py): its page lists what it covers
and its next windows; a responder changes rule, zone, start, duration and summary; future windows follow the
new rule while the one in progress stays; a refused edit says why and changes nothing. Access and CSRF:
tests/web/test_oncall_editors_access.py."""

from __future__ import annotations

import pytest

from flapjack_py import actions
from flapjack_py.model.actors import Actor
from flapjack_py.store import maintenance as maint
from flapjack_py.store import maintenance_series as series_store

from .conftest import World

E, CHECK = "db-01.example.com", "DISK"
HOUR = 3600


@pytest.fixture
def nightly(world: World, clock) -> str:
    """Daily 22:00-23:00 UTC on E:DISK since 2023-11-10; clock: 2023-11-14 22:13:20 UTC, inside tonight's window."""
    world.event(E, CHECK, "ok")
    world.drain()
    made = actions.create_series(world.s, {"rrule": "FREQ=DAILY;BYHOUR=22;BYMINUTE=0", "timezone": "UTC",
                                            "start_time": "2023-11-10 22:00", "duration": "1h", "summary": "backup",
                                            "checks": [f"{E}:{CHECK}"]}, actor=Actor("ada", "ui"), now=clock.now)
    return made.id


def windows(world: World) -> dict[int, int]:
    return maint.load_windows(world.s, E, CHECK, maint.SCHEDULED)


def test_the_check_page_links_the_series_page(world: World, client, nightly: str) -> None:
    check_page = client.get(f"/checks/{E}/{CHECK}").get_data(as_text=True)
    assert f'href="/maintenance_series/{nightly}">Edit</a>' in check_page
    page = client.get(f"/maintenance_series/{nightly}").get_data(as_text=True)
    assert f'href="/checks/{E}/{CHECK}">{E}:{CHECK}</a>' in page
    assert 'value="FREQ=DAILY;BYHOUR=22;BYMINUTE=0"' in page and 'value="2023-11-10 22:00"' in page
    assert 'value="1h"' in page and "2023-11-15 22:00:00 UTC" in page


def test_an_edit_moves_future_windows_and_keeps_the_one_in_progress(world: World, client, nightly: str,
                                                                   clock) -> None:
    tonight = 1_699_999_200  # 2023-11-14 22:00 UTC, in progress
    assert windows(world)[tonight] == HOUR and tonight + 86400 in windows(world)
    response = client.post(f"/maintenance_series/{nightly}", data={
        "rrule": "FREQ=DAILY;BYHOUR=1;BYMINUTE=30", "timezone": "Europe/Berlin", "start": "2023-11-10 22:00",
        "duration": "30m", "summary": "backup (new disks)"})
    assert response.status_code == 303 and response.headers["Location"].endswith("?notice=series-saved")
    after = windows(world)
    assert after[tonight] == HOUR  # in progress: stays as it was
    later = sorted(start for start in after if start > clock.now)
    assert later[:2] == [1_700_008_200, 1_700_094_600]  # 01:30 Berlin (00:30 UTC) on Nov 15 and 16, 30 min each
    assert {after[s] for s in later} == {1800} and len(later) == 14
    edited = series_store.load_series(world.s, nightly)
    assert (edited.timezone, edited.duration, edited.summary) == ("Europe/Berlin", 1800, "backup (new disks)")
    page = client.get(response.headers["Location"]).get_data(as_text=True)
    assert "Recurring maintenance saved" in page and "2023-11-15 00:30:00 UTC" in page


def test_a_refused_edit_says_why_keeps_what_was_typed_and_changes_nothing(world: World, client,
                                                                         nightly: str) -> None:
    before = windows(world)
    response = client.post(f"/maintenance_series/{nightly}", data={
        "rrule": "FREQ=OFTEN", "timezone": "UTC", "start": "", "duration": "1h", "summary": "typed"})
    page = response.get_data(as_text=True)
    assert response.status_code == 422 and "FREQ must be one of" in page and 'value="FREQ=OFTEN"' in page
    assert windows(world) == before and series_store.load_series(world.s, nightly).rrule.endswith("BYHOUR=22;BYMINUTE=0")
    assert client.post("/maintenance_series/no-such-series", data={"rrule": "FREQ=DAILY"}).status_code == 404
