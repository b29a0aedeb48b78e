"""Incidents in the UI (issue 33): the overview lists open incidents above the unhandled problems, the list and
the incident page show its checks and timeline, a note and an acknowledgement are taken from the page, the check
page links its incident, and the postmortem draft downloads."""

from __future__ import annotations

import re

from flapjack_py import keys

from .conftest import World

SWITCH = "switch-3"


def text_of(html_text: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html_text))


def outage(world: World) -> str:
    world.contact("ann", "Ann", "Test", SWITCH)
    for check in ("PING", "HTTP", "SSH"):
        world.event(SWITCH, check, "ok")
    world.drain()
    for check in ("PING", "HTTP", "SSH"):
        world.event(SWITCH, check, "critical", initial_failure_delay=0)
    world.drain()
    [incident] = [i.decode() for i in world.r.zrange(keys.incidents(), 0, -1)]
    return incident


def test_the_overview_list_page_note_acknowledgement_and_postmortem(world: World, client) -> None:
    incident = outage(world)
    overview = client.get("/").get_data(as_text=True)
    assert 'id="incidents"' in overview and f"/incidents/{incident}" in overview
    assert overview.index('id="incidents"') < overview.index('id="unhandled"')
    listed = text_of(client.get("/incidents").get_data(as_text=True))
    assert f"entity {SWITCH}" in listed and "open" in listed
    page = client.get(f"/incidents/{incident}")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert all(f"{SWITCH}:{check}" in html for check in ("PING", "HTTP", "SSH"))
    assert "incident opened" in text_of(html) and 'id="acknowledge-incident"' in html

    noted = client.post(f"/incidents/{incident}/notes", data={"text": "power cut in rack 3"})
    assert noted.status_code == 303
    acked = client.post(f"/incidents/{incident}/acknowledge", data={"duration": "1h", "message": "on it"})
    assert acked.status_code == 303
    world.drain()
    html = client.get(f"/incidents/{incident}").get_data(as_text=True)
    assert "power cut in rack 3" in html and "acknowledged" in text_of(html)
    check_page = client.get(f"/checks/{SWITCH}/HTTP").get_data(as_text=True)
    assert f"/incidents/{incident}" in check_page
    download = client.get(f"/incidents/{incident}/postmortem.md")
    assert download.status_code == 200 and download.mimetype == "text/markdown"
    assert "power cut in rack 3" in download.get_data(as_text=True)


def test_an_unknown_incident_is_404(client) -> None:
    assert client.get("/incidents/0-00000000").status_code == 404
    assert client.get("/incidents/not-an-id").status_code == 404
