"""What each role sees of a schedule's calendar feed (issue 35): below admin, as for media credentials, a
layer's `ical_url` shows only where it points (no userinfo, path or query: they hold private feeds' tokens)
and the fetched `ical` text is left out; admins see both."""

from __future__ import annotations

from typing import Any

import pytest

from flapjack_py.access import MASK, Role
from flapjack_py.oncall.schedule_data import schedule_from_json
from flapjack_py.store import schedules as schedule_store

from .conftest import People

pytestmark = pytest.mark.real
FEED = "https://ann:feed-password@calendar.example:8443/private-f33d/basic.ics?token=feed-token-123"
CALENDAR = """BEGIN:VCALENDAR
VERSION:2.0
PRODID:-//test//EN
BEGIN:VEVENT
UID:only-admins-read-this@test
DTSTART:20231113T170000Z
DTEND:20231114T070000Z
SUMMARY:ann@example.com
END:VEVENT
END:VCALENDAR
"""
SECRETS = ("feed-password", "private-f33d", "feed-token-123", "ann:", "only-admins-read-this", "BEGIN:VCALENDAR")


@pytest.fixture
def feed(people: People) -> None:
    """Schedule `ops`: a rotation layer and a layer from FEED (stored as the API stores a fetched one)."""
    layers = [{"start": "2023-11-13T09:00Z", "rotation": "P1W", "contacts": ["ann"]},
              {"ical": CALENDAR, "ical_url": FEED}]
    schedule_store.save_schedule(people.s, schedule_from_json({"name": "Ops", "layers": layers}, 1_700_000_000, "ops"))


def shown_layers(client: Any, people: People, role: Role, path: str) -> list[dict[str, Any]]:
    response = client.get(path, headers=people.bearer(role))
    assert response.status_code == 200
    text = response.get_data(as_text=True)
    if role != Role.ADMIN:
        assert not [secret for secret in SECRETS if secret in text]
    [schedule] = response.get_json()["schedules"]
    return list(schedule["layers"])


@pytest.mark.parametrize("role", [Role.VIEWER, Role.RESPONDER])
def test_below_admin_the_feed_shows_only_where_it_points(client: Any, people: People, feed: None, role: Role) -> None:
    for path in ("/api/schedules", "/api/schedules/ops"):
        rotation, calendar = shown_layers(client, people, role, path)
        assert calendar == {"ical_url": f"https://calendar.example:8443/{MASK}"}
        assert rotation["contacts"] == ["ann"]


def test_an_admin_sees_the_feed_and_its_calendar(client: Any, people: People, feed: None) -> None:
    _, calendar = shown_layers(client, people, Role.ADMIN, "/api/schedules/ops")
    assert calendar == {"ical": CALENDAR, "ical_url": FEED}
