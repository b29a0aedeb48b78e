"""Alert history end to end (api-v1.md 14, contract 6): a contact, its media and its entity made through
the API, real events through the executive, and the alerts the notifier recorded read back through
GET /api/alerts and GET /api/contacts/{id}/alerts, with filters, time ranges and pagination.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import redis
from flask.testing import FlaskClient

from flapjack_py.executive import Executive
from flapjack_py.store.events import push_event
from flapjack_py.store.plumbing.client import StrRedis
from web import create_app
from web.api.common import iso

pytestmark = pytest.mark.real
JSONAPI = "application/vnd.api+json; charset=UTF-8"
CONFIG = {"executive": {"new_check_scheduled_maintenance_duration": 0}}
CHECK = "www.example.com:SSH"
FIELDS = ["id", "timestamp", "contact", "media", "address", "check", "type", "rollup", "state", "subject", "body"]


@pytest.fixture
def api(real_r: redis.Redis) -> FlaskClient:
    return create_app(redis=real_r, config=CONFIG).test_client()


@pytest.fixture
def send(real_r: redis.Redis, real_s: StrRedis) -> Callable[..., None]:
    """send(state, summary=None): a service event for www.example.com:SSH, processed by the executive."""
    executive = Executive(real_r, CONFIG)

    def _send(state: str, summary: str | None = None) -> None:
        event: dict[str, Any] = {"type": "service", "entity": "www.example.com", "check": "SSH", "state": state}
        if summary:
            event["summary"] = summary
        push_event(real_s, event)
        executive.drain()

    return _send


@pytest.fixture
def outage(api: FlaskClient, send: Callable[..., None], clock: Any) -> dict[str, int]:
    """Ada (email + sms) on www.example.com; SSH fails at T+0, alerts at T+40, recovers at T+140."""
    times = {"start": clock.now}
    send("ok")
    made = api.post("/api/contacts", json={"contacts": [{"id": "21", "first_name": "Ada", "media": {
        "email": {"address": "ada@example.com"}, "sms": {"address": "+61400000000"}}}]})
    assert made.status_code == 201
    entity_id = api.get("/api/entities").get_json(force=True)["entities"][0]["id"]
    link = [{"op": "add", "path": "/entities/0/links/contacts", "value": "21"}]
    assert api.patch(f"/api/entities/{entity_id}", json=link, content_type="application/json-patch+json"
                     ).status_code == 204
    send("critical", "refused")
    times["problem"] = clock.advance(40)
    send("critical", "refused")
    times["recovery"] = clock.advance(100)
    send("ok", "fine")
    return times


def alerts(api: FlaskClient, path: str) -> list[dict[str, Any]]:
    response = api.get(path)
    assert response.status_code == 200, response.get_data(as_text=True)
    assert response.headers["Content-Type"] == JSONAPI
    return response.get_json(force=True)["alerts"]


def test_every_alert_the_rules_chose_is_listed_newest_first(api: FlaskClient, outage: dict[str, int]) -> None:
    found = alerts(api, "/api/alerts")
    assert [a["type"] for a in found] == ["recovery", "recovery", "problem", "problem"]
    assert {a["media"] for a in found[:2]} == {a["media"] for a in found[2:]} == {"email", "sms"}
    assert [a["timestamp"] for a in found] == sorted((a["timestamp"] for a in found), reverse=True)
    assert all(list(a) == FIELDS for a in found)
    problem_email = next(a for a in found if a["type"] == "problem" and a["media"] == "email")
    assert problem_email["timestamp"] == outage["problem"]
    assert problem_email["contact"] == "21" and problem_email["address"] == "ada@example.com"
    assert problem_email["check"] == CHECK and problem_email["state"] == "critical"
    assert problem_email["rollup"] == "" and "refused" in problem_email["body"]
    assert "SSH" in problem_email["subject"]


def test_filters_and_time_ranges(api: FlaskClient, outage: dict[str, int]) -> None:
    assert {a["media"] for a in alerts(api, "/api/alerts?media=sms")} == {"sms"}
    assert {a["type"] for a in alerts(api, "/api/alerts?type=recovery")} == {"recovery"}
    assert len(alerts(api, f"/api/alerts?check={CHECK}&contact_id=21")) == 4
    assert alerts(api, "/api/alerts?contact_id=22") == []
    assert alerts(api, "/api/alerts?check=www.example.com:PING") == []
    before_recovery = alerts(api, f"/api/alerts?end_time={iso(outage['recovery'] - 1)}")
    assert {a["type"] for a in before_recovery} == {"problem"}
    window = f"?start_time={iso(outage['recovery'])}&end_time={iso(outage['recovery'])}"
    assert {a["type"] for a in alerts(api, "/api/alerts" + window)} == {"recovery"}
    assert len(alerts(api, "/api/alerts?limit=3")) == 3


def test_a_contacts_alerts(api: FlaskClient, outage: dict[str, int]) -> None:
    mine = alerts(api, "/api/contacts/21/alerts?media=email")
    assert [a["type"] for a in mine] == ["recovery", "problem"]
    response = api.get("/api/contacts/nobody/alerts")
    assert response.status_code == 404
    assert response.get_json(force=True) == {"errors": ["could not find contact 'nobody'"]}


def test_pagination(api: FlaskClient, outage: dict[str, int]) -> None:
    first = api.get("/api/alerts?per_page=3")
    body = first.get_json(force=True)
    assert len(body["alerts"]) == 3
    assert body["meta"]["pagination"] == {"page": 1, "per_page": 3, "total_pages": 2, "total_count": 4}
    assert 'rel="next"' in first.headers["Link"]
    second = api.get("/api/alerts?per_page=3&page=2").get_json(force=True)
    assert [a["id"] for a in body["alerts"] + second["alerts"]] == [a["id"] for a in alerts(api, "/api/alerts")]


def test_test_notifications_and_acknowledgements_become_alerts(api: FlaskClient, send: Callable[..., None],
                                                               outage: dict[str, int], clock: Any,
                                                               real_r: redis.Redis) -> None:
    executive = Executive(real_r, CONFIG)
    assert api.post(f"/api/test_notifications/checks/{CHECK}",
                    json={"test_notifications": [{"summary": "just testing"}]}).status_code == 204
    executive.drain()
    tests = alerts(api, "/api/alerts?type=test")
    assert {a["media"] for a in tests} == {"email", "sms"}
    assert all(a["state"] == "test_notifications" and "just testing" in a["body"] for a in tests)

    clock.advance(60)
    send("critical", "again")
    clock.advance(40)
    send("critical", "again")
    assert api.post(f"/api/unscheduled_maintenances/checks/{CHECK}",
                    json={"unscheduled_maintenances": [{"duration": 600, "summary": "on it"}]}).status_code == 204
    executive.drain()
    acks = alerts(api, "/api/alerts?type=acknowledgement")
    assert {a["media"] for a in acks} == {"email", "sms"}
    assert all(a["timestamp"] == clock.now for a in acks)


def test_a_huge_media_interval_does_not_stop_alerts(api: FlaskClient, send: Callable[..., None],
                                                    clock: Any) -> None:
    send("ok")
    media = {"email": {"address": "ada@example.com", "interval": 10**30}}
    assert api.post("/api/contacts", json={"contacts": [{"id": "21", "first_name": "Ada", "media": media}]}
                    ).status_code == 201
    entity_id = api.get("/api/entities").get_json(force=True)["entities"][0]["id"]
    link = [{"op": "add", "path": "/entities/0/links/contacts", "value": "21"}]
    api.patch(f"/api/entities/{entity_id}", json=link, content_type="application/json-patch+json")
    send("critical")
    clock.advance(40)
    send("critical")
    clock.advance(100)
    send("critical")  # within the (huge) interval: no repeat alert
    assert [a["type"] for a in alerts(api, "/api/alerts")] == ["problem"]
    status = api.get("/api/status_report/checks/www.example.com:SSH").get_json(force=True)["status_reports"][0]
    assert status["last_update"] == clock.now
