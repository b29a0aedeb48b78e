"""The entity page's recurring maintenance (every check of the entity) and the escalation policies it links to."""

from __future__ import annotations

from flapjack_py.model.escalation import policy_from_json
from flapjack_py.store import entities as entity_store
from flapjack_py.store import escalation as escalation_store
from flapjack_py.store import maintenance as maint

from .conftest import World

E = "db-01.example.com"
URL = f"/entities/{E}"
SUNDAY_2AM = "FREQ=WEEKLY;BYDAY=SU;BYHOUR=2;BYMINUTE=0"


def test_recurring_maintenance_of_an_entity_from_its_page(world: World, client, clock) -> None:
    """clock: Tuesday 2023-11-14 22:13:20 UTC; Sundays 02:00 in Berlin (CET) are 01:00 UTC."""
    for check in ("DISK", "LOAD"):
        world.event(E, check, "ok")
    world.drain()
    response = client.post(f"{URL}/maintenance_series", data={
        "rrule": SUNDAY_2AM, "timezone": "Europe/Berlin", "duration": "90m", "summary": "patching"})
    assert response.headers["Location"].endswith("notice=series-created")
    for check in ("DISK", "LOAD"):
        assert maint.load_windows(world.s, E, check, maint.SCHEDULED) == {1_700_355_600: 5400, 1_700_960_400: 5400}
    page = client.get(response.headers["Location"]).get_data(as_text=True)
    assert "Recurring maintenance created" in page and SUNDAY_2AM in page and "2023-11-19 01:00:00 UTC" in page
    series_id = page.split('name="id" value="')[1].split('"')[0]
    deleted = client.post(f"{URL}/maintenance_series/delete", data={"id": series_id})
    assert deleted.headers["Location"].endswith("notice=series-deleted")
    assert maint.load_windows(world.s, E, "DISK", maint.SCHEDULED) == {}
    bad = client.post(f"{URL}/maintenance_series", data={"duration": "1h", "rrule": "FREQ=OFTEN"})
    assert "error=bad-series" in bad.headers["Location"]
    assert "FREQ must be one of" in client.get(bad.headers["Location"]).get_data(as_text=True)


def test_an_unknown_entity_is_refused_and_nothing_made(world: World, client) -> None:
    client.get("/")  # the first UI request makes the app's secret key
    before = sorted(world.r.keys("*"))
    response = client.post("/entities/ghost.example.com/maintenance_series", data={"rrule": SUNDAY_2AM})
    assert response.status_code == 404 and "nothing was done" in response.get_data(as_text=True)
    assert sorted(world.r.keys("*")) == before


def test_the_entity_page_lists_its_escalation_policies(world: World, client) -> None:
    world.event(E, "DISK", "ok")
    world.drain()
    policy = {"name": "Databases", "levels": [{"delay": 0, "targets": [{"contact": "ann"}]}], "repeat": 2}
    escalation_store.save_policy(world.s, policy_from_json(policy, "dba"))
    escalation_store.link(world.s, entity_store.entity_id(world.s, E), ["dba"])
    page = client.get(URL).get_data(as_text=True)
    assert '<a href="/escalation_policies/dba"><strong>dba</strong> (Databases)</a>: 1 level, repeated 2 times' in page
