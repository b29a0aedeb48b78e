"""Maintenance durations at the edges, on the real Redis server (api-v1.md 10.1, 10.3): durations too
long for Redis expiry times are refused (scheduled) or clamped (unscheduled), never a 500, and never a
stored window that breaks later writes.
"""

from __future__ import annotations

import json

import pytest
import redis
from flask.testing import FlaskClient

from flapjack_py.executive import Executive
from flapjack_py.store.events import push_event
from flapjack_py.store.plumbing.client import StrRedis
from web import create_app
from web.api.maintenance import MAX_DURATION

pytestmark = pytest.mark.real
CONFIG = {"executive": {"new_check_scheduled_maintenance_duration": 0}}
URL = "/api/scheduled_maintenances/checks/www.example.com:SSH"


@pytest.fixture
def api(real_r: redis.Redis, real_s: StrRedis) -> FlaskClient:
    push_event(real_s, {"type": "service", "entity": "www.example.com", "check": "SSH", "state": "critical"})
    Executive(real_r, CONFIG).drain()
    return create_app(redis=real_r, config=CONFIG).test_client()


def windows(api: FlaskClient) -> list[dict[str, int]]:
    body = api.get("/api/scheduled_maintenance_report/checks/www.example.com:SSH").get_json(force=True)
    return body["scheduled_maintenance_reports"][0]["scheduled_maintenances"]


def schedule(api: FlaskClient, start: str, duration: object) -> tuple[int, object]:
    response = api.post(URL, json={"scheduled_maintenances": [{"start_time": start, "duration": duration}]})
    return response.status_code, response.get_json(force=True, silent=True)


@pytest.mark.parametrize("duration", [MAX_DURATION + 1, 10**30, "99999999999999999999999", 2**63])
def test_too_long_scheduled_maintenance_is_403_and_not_stored(api: FlaskClient, duration: object) -> None:
    assert schedule(api, "2023-11-14T00:00:00Z", duration) == (403, {"errors": [
        "duration in seconds must be provided"]})
    assert windows(api) == []
    assert schedule(api, "2023-11-14T00:00:00Z", 3600) == (204, None)  # the check still takes maintenance


def test_the_longest_accepted_duration_works_on_real_redis(api: FlaskClient) -> None:
    assert schedule(api, "2023-11-14T00:00:00Z", MAX_DURATION) == (204, None)
    [window] = windows(api)
    assert window["duration"] == MAX_DURATION
    status = api.get("/api/status_report/checks/www.example.com:SSH").get_json(force=True)["status_reports"][0]
    assert status["in_scheduled_maintenance"] is True


@pytest.mark.parametrize("start", ["9999-12-31T23:59:59Z", "0001-01-01T00:00:00Z", "1970-01-01T00:00:00Z"])
def test_extreme_start_times(api: FlaskClient, start: str) -> None:
    assert schedule(api, start, 100) == (204, None)
    assert len(windows(api)) == 1


def test_too_long_acknowledgements_are_clamped(api: FlaskClient, real_r: redis.Redis) -> None:
    url = "/api/unscheduled_maintenances/checks/www.example.com:SSH"
    assert api.post(url, json={"unscheduled_maintenances": [{"duration": 10**30}]}).status_code == 204
    [queued] = real_r.lrange("events", 0, -1)
    assert json.loads(queued)["duration"] == MAX_DURATION
    Executive(real_r, CONFIG).drain()
    status = api.get("/api/status_report/checks/www.example.com:SSH").get_json(force=True)["status_reports"][0]
    assert status["in_unscheduled_maintenance"] is True
