"""Every `<time>` on every UI page carries an ISO 8601 `datetime`, a moment or a duration (static/localtime.js
shows moments in the viewer's zone); those of class `local` keep the UTC time in their title, shown on hover."""

from __future__ import annotations

import re
from datetime import datetime

from .conftest import World

ISO_8601 = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$"  # a moment
                      r"|^P(?=\d|T\d)(\d+W)?(\d+D)?(T(?=\d)(\d+H)?(\d+M)?(\d+(\.\d+)?S)?)?$")  # a duration
TIME = re.compile(r"<time\b([^>]*)>")
E, C = "web-01.example.com", "HTTP"


def times(page: str) -> list[dict[str, str]]:
    return [dict(re.findall(r'([\w-]+)="([^"]*)"', attributes)) for attributes in TIME.findall(page)]


def test_every_time_element_of_every_page_is_iso_8601(world: World, client, clock) -> None:
    world.contact("ann", "Ann", "Oncall", E)
    world.event(E, C, "ok")
    world.drain()
    clock.advance(60)
    world.event(E, C, "critical", "down", initial_failure_delay=0)
    world.drain()
    client.post(f"/checks/{E}/{C}/scheduled_maintenance", data={"start": "tomorrow 02:00", "duration": "1h"})
    client.post(f"/entities/{E}/maintenance_series", data={"rrule": "FREQ=WEEKLY;BYDAY=SU;BYHOUR=2",
                                                            "timezone": "Europe/Berlin", "duration": "1h"})
    seen = 0
    for url in ("/", f"/checks/{E}/{C}", "/entities", f"/entities/{E}", "/contacts", "/contacts/ann", "/alerts",
                "/status"):
        response = client.get(url)
        assert response.status_code == 200, url
        for element in times(response.get_data(as_text=True)):
            seen += 1
            assert ISO_8601.match(element.get("datetime", "")), (url, element)
            if "local" in element.get("class", "").split():
                moment = datetime.fromisoformat(element["datetime"].replace("Z", "+00:00"))
                assert element["title"] == moment.strftime("%Y-%m-%d %H:%M:%S UTC"), (url, element)
    assert seen > 10
