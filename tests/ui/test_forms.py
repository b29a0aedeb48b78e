"""The check page's forms: each POST has its effect and redirects back to the check."""

from __future__ import annotations

import json

import pytest

from flapjack_py import keys
from flapjack_py.store import checks as check_store
from flapjack_py.store import maintenance as maint

from .conftest import World

E, C = "web-01.example.com", "HTTP: port 80 / tls"
URL = f"/checks/{E}/{C}"


@pytest.fixture
def critical(world: World, clock) -> World:
    """E:C is critical (problem alerted), the queue is empty."""
    world.event(E, C, "ok")
    world.drain()
    clock.advance(10)
    world.event(E, C, "critical", "down", initial_failure_delay=0)
    world.drain()
    return world


def queued(world: World) -> list[dict]:
    return [json.loads(raw) for raw in world.r.lrange(keys.events(), 0, -1)]


def test_acknowledge_queues_an_ack_event_that_the_executive_applies(critical: World, client, clock) -> None:
    response = client.post(f"{URL}/acknowledge", data={"duration": "2 hours", "comment": "Ann is on it"})
    assert response.status_code == 303
    assert response.headers["Location"].endswith("notice=ack-queued")
    [event] = queued(critical)
    assert event["type"] == "action" and event["state"] == "acknowledgement"
    assert (event["entity"], event["check"], event["summary"], event["duration"]) == (E, C, "Ann is on it", 7200)
    critical.drain()
    assert maint.in_force(critical.s, E, C, maint.UNSCHEDULED) == clock.now
    page = client.get(response.headers["Location"]).get_data(as_text=True)
    assert "Acknowledgement queued" in page and "End unscheduled maintenance" in page and "Ann is on it" in page


def test_acknowledge_needs_post(critical: World, client) -> None:
    assert client.get(f"{URL}/acknowledge").status_code in (404, 405)
    assert queued(critical) == []


def test_acknowledge_with_a_bad_duration_queues_nothing(critical: World, client) -> None:
    response = client.post(f"{URL}/acknowledge", data={"duration": "soonish", "comment": "x"})
    assert "error=bad-duration" in response.headers["Location"]
    assert queued(critical) == []
    page = client.get(response.headers["Location"]).get_data(as_text=True)
    assert "Could not read the duration" in page and "could not read the duration &#39;soonish&#39;" in page


def test_end_unscheduled_maintenance(critical: World, client, clock) -> None:
    client.post(f"{URL}/acknowledge", data={"duration": "1 hour", "comment": "x"})
    critical.drain()
    clock.advance(60)
    response = client.post(f"{URL}/unscheduled_maintenance/end")
    assert response.headers["Location"].endswith("notice=unscheduled-ended")
    assert maint.in_force(critical.s, E, C, maint.UNSCHEDULED) is None
    assert maint.load_windows(critical.s, E, C, maint.UNSCHEDULED) == {clock.now - 60: 60}


def test_create_and_end_scheduled_maintenance(critical: World, client, clock) -> None:
    response = client.post(f"{URL}/scheduled_maintenance", data={"start": "", "duration": "2 hours",
                                                                 "summary": "kernel upgrade"})
    assert response.headers["Location"].endswith("notice=scheduled-created")
    start = clock.now
    assert maint.in_force(critical.s, E, C, maint.SCHEDULED) == start
    assert "kernel upgrade" in client.get(URL).get_data(as_text=True)
    clock.advance(600)
    client.post(f"{URL}/scheduled_maintenance/end", data={"start": str(start)})
    assert maint.in_force(critical.s, E, C, maint.SCHEDULED) is None
    assert maint.load_windows(critical.s, E, C, maint.SCHEDULED) == {start: 600}


def test_schedule_maintenance_in_the_future_by_utc_date(critical: World, client, clock) -> None:
    client.post(f"{URL}/scheduled_maintenance", data={"start": "2023-11-15 02:00", "duration": "30 minutes"})
    assert maint.load_windows(critical.s, E, C, maint.SCHEDULED) == {1_700_013_600: 1800}
    assert maint.in_force(critical.s, E, C, maint.SCHEDULED) is None
    bad = client.post(f"{URL}/scheduled_maintenance", data={"start": "whenever", "duration": "1 hour"})
    assert "error=bad-start" in bad.headers["Location"]


def test_schedule_maintenance_by_words_in_a_zone(critical: World, client, clock) -> None:
    """clock: Tuesday 2023-11-14 22:13:20 UTC; tomorrow 02:00 in Berlin (CET, +1) is 01:00 UTC."""
    client.post(f"{URL}/scheduled_maintenance", data={"start": "tomorrow 02:00", "timezone": "Europe/Berlin",
                                                      "duration": "1h30m"})
    assert maint.load_windows(critical.s, E, C, maint.SCHEDULED) == {1_700_010_000: 5400}
    ambiguous = client.post(f"{URL}/scheduled_maintenance", data={"start": "01/02/2024", "duration": "1 hour"})
    page = client.get(ambiguous.headers["Location"]).get_data(as_text=True)
    assert "Could not read the start time" in page and "ambiguous" in page


def test_test_notifications_queues_a_test_event(critical: World, client) -> None:
    response = client.post(f"{URL}/test_notifications")
    assert response.headers["Location"].endswith("notice=test-queued")
    [event] = queued(critical)
    assert (event["type"], event["state"], event["entity"], event["check"]) == ("action", "test_notifications", E, C)


def test_disable_and_enable(critical: World, client) -> None:
    client.post(f"{URL}/enabled", data={"enabled": "false"})
    assert not check_store.is_enabled(critical.s, E, C)
    assert critical.r.zscore(keys.current_entities(), E) is None
    assert "Enable check" in client.get(URL).get_data(as_text=True)
    client.post(f"{URL}/enabled", data={"enabled": "true"})
    assert check_store.is_enabled(critical.s, E, C)
    assert critical.r.zscore(keys.current_entities(), E) is not None


def test_recurring_maintenance_from_the_form_listed_and_deleted(critical: World, client, clock) -> None:
    """clock: Tuesday 2023-11-14 22:13:20 UTC; Sundays 02:00 in Berlin (CET) are 01:00 UTC."""
    response = client.post(f"{URL}/scheduled_maintenance", data={
        "start": "", "timezone": "Europe/Berlin", "duration": "90m", "summary": "patching",
        "rrule": "FREQ=WEEKLY;BYDAY=SU;BYHOUR=2;BYMINUTE=0"})
    assert response.headers["Location"].endswith("notice=series-created")
    assert maint.load_windows(critical.s, E, C, maint.SCHEDULED) == {1_700_355_600: 5400, 1_700_960_400: 5400}
    page = client.get(URL).get_data(as_text=True)
    assert "Recurring maintenance" in page and "FREQ=WEEKLY;BYDAY=SU;BYHOUR=2;BYMINUTE=0" in page
    assert "2023-11-19 01:00:00 UTC" in page
    series_id = page.split('name="id" value="')[1].split('"')[0]
    deleted = client.post(f"{URL}/maintenance_series/delete", data={"id": series_id})
    assert deleted.headers["Location"].endswith("notice=series-deleted")
    assert maint.load_windows(critical.s, E, C, maint.SCHEDULED) == {}
    bad = client.post(f"{URL}/scheduled_maintenance", data={"duration": "1h", "rrule": "FREQ=OFTEN"})
    assert "error=bad-series" in bad.headers["Location"]
    assert "FREQ must be one of" in client.get(bad.headers["Location"]).get_data(as_text=True)


@pytest.mark.parametrize(("action", "data"), [
    ("acknowledge", {"duration": "1h", "comment": "x"}), ("test_notifications", {}),
    ("scheduled_maintenance", {"duration": "1h"}), ("unscheduled_maintenance/end", {}),
    ("enabled", {"enabled": "true"}), ("enabled", {"enabled": "false"}),
])
def test_an_action_on_an_unknown_check_is_refused_and_creates_nothing(critical: World, client, action: str,
                                                                      data: dict) -> None:
    client.get("/")  # the first UI request makes the app's secret key
    before = sorted(critical.r.keys("*"))
    for url in (f"/checks/ghost.example.com/{C}", f"/checks/{E}/no such check"):
        response = client.post(f"{url}/{action}", data=data)
        page = response.get_data(as_text=True)
        assert response.status_code == 404 and "nothing was done" in page and "<nav" in page
    assert queued(critical) == []
    assert sorted(critical.r.keys("*")) == before  # no phantom entity, check, window or event
    assert client.get("/entities/ghost.example.com").status_code == 404
