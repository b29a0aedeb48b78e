"""A schedule layer's `ical_url` through the API (issue 35): a loopback address is not fetched at all unless
`schedules.allow_private_urls`, and every failure, refused or not, gets one answer that echoes nothing:
neither what the server sent nor why it failed (an open port looks like a closed one)."""

from __future__ import annotations

import logging
import socket
from collections.abc import Iterator
from typing import Any

import pytest
from flask.testing import FlaskClient

from tests.calendar_server import CalendarServer, reply, serving
from web import create_app
from web.api.schedules import FETCH_FAILED

from .helpers import body_of, errors, post

pytestmark = pytest.mark.real
CALENDAR = b"""BEGIN:VCALENDAR\r
VERSION:2.0\r
PRODID:-//test//EN\r
BEGIN:VEVENT\r
UID:nights@test\r
DTSTART:20231113T170000Z\r
DTEND:20231114T070000Z\r
SUMMARY:cat@example.com\r
END:VEVENT\r
END:VCALENDAR\r
"""
SECRET = b"SECRET_INTERNAL_TOKEN=hunter2"
LEAKS = ("SECRET_INTERNAL_TOKEN", "hunter2", "Errno", "Error", "onnection", "loopback", "127.0.0.1", "HTTP 404",
         "iCalendar")
"""What no answer may hold: the server's content, exception text, the address or the reason."""


@pytest.fixture
def server() -> Iterator[CalendarServer]:
    with serving() as found:
        found.route("/cal.ics", reply(CALENDAR))
        found.route("/secret", reply(SECRET, content_type="text/plain"))
        found.route("/missing.ics", reply(SECRET, 404))
        yield found


def layered(client: FlaskClient, url: str, schedule_id: str = "ops") -> Any:
    """POST a schedule whose one layer is the calendar at `url`."""
    return post(client, "/api/schedules", {"schedules": [{"id": schedule_id, "name": "Ops", "layers": [{"ical_url": url}]}]})


def refused_quietly(response: Any) -> None:
    assert errors(response, 422) == [FETCH_FAILED]
    text = response.get_data(as_text=True)
    assert not [leak for leak in LEAKS if leak in text]


def test_a_loopback_ical_url_is_not_fetched(real_r: Any, server: CalendarServer) -> None:
    client = create_app(redis=real_r).test_client()
    for path in ("/cal.ics", "/secret"):
        refused_quietly(layered(client, server.url(path)))
        refused_quietly(layered(client, server.url(path, host="localhost")))
    assert server.seen == []
    assert errors(client.get("/api/schedules/ops"), 404)


def test_private_urls_allowed_by_config_are_fetched(real_r: Any, server: CalendarServer) -> None:
    client = create_app(redis=real_r, config={"schedules": {"allow_private_urls": True}}).test_client()
    assert layered(client, server.url("/cal.ics?token=abc")).status_code == 201
    assert [seen.path for seen in server.seen] == ["/cal.ics?token=abc"]
    [stored] = body_of(client.get("/api/schedules/ops"))["schedules"]
    assert stored["layers"] == [{"ical": CALENDAR.decode(), "ical_url": server.url("/cal.ics?token=abc")}]


def test_every_failure_gets_the_same_answer_echoing_nothing(real_r: Any, server: CalendarServer,
                                                            caplog: pytest.LogCaptureFixture) -> None:
    client = create_app(redis=real_r, config={"schedules": {"allow_private_urls": True}}).test_client()
    with socket.socket() as unused:
        unused.bind(("127.0.0.1", 0))
        closed = unused.getsockname()[1]
    with caplog.at_level(logging.INFO, logger="web.api.schedules"):
        for url in (server.url("/secret?token=abc"), server.url("/missing.ics?token=abc"),
                    f"http://127.0.0.1:{closed}/cal.ics?token=abc"):
            refused_quietly(layered(client, url))
    assert len(server.seen) == 2
    logged = [r.getMessage() for r in caplog.records if r.name == "web.api.schedules"]
    assert len(logged) == 3 and all("ical_url" in line and "127.0.0.1" in line for line in logged)
    assert not [line for line in logged if "token" in line or "hunter2" in line or "/secret" in line]
