"""GET /api/alerts: alert history, filtered, newest first (api-v1.md 14)."""

from __future__ import annotations

import pytest

from flapjack_py.store.alerts import add_alert
from web.api.common import iso

from .helpers import body_of, errors

pytestmark = pytest.mark.real


def alert(n, contact="21", media="email", check="www:SSH", type_="problem"):
    return {"id": f"a{n}", "timestamp": 1000 + n, "contact": contact, "media": media, "address": "a@x",
            "check": check, "type": type_, "rollup": "", "state": "critical", "subject": f"s{n}", "body": "b",
            "status": "queued"}


@pytest.fixture
def alerts(real_r):
    with real_r.pipeline() as pipe:
        add_alert(pipe, alert(1), 86400)
        add_alert(pipe, alert(2, media="sms"), 86400)
        add_alert(pipe, alert(3, contact="22", check="db:PING", type_="recovery"), 86400)
        pipe.execute()


def ids(client, query=""):
    return [a["id"] for a in body_of(client.get(f"/api/alerts{query}"))["alerts"]]


def test_newest_first_with_fields(client, alerts):
    body = body_of(client.get("/api/alerts"))
    assert body["alerts"][0] == {"id": "a3", "timestamp": 1003, "contact": "22", "media": "email", "address": "a@x",
                                 "check": "db:PING", "type": "recovery", "rollup": "", "state": "critical",
                                 "subject": "s3", "body": "b"}
    assert [a["id"] for a in body["alerts"]] == ["a3", "a2", "a1"]


def test_filters(client, alerts):
    assert ids(client, "?contact_id=21") == ["a2", "a1"]
    assert ids(client, "?contact_id=21&media=email") == ["a1"]
    assert ids(client, "?media=email") == ["a3", "a1"]
    assert ids(client, "?check=www:SSH&type=problem") == ["a2", "a1"]
    assert ids(client, f"?start_time={iso(1002)}&end_time={iso(1003)}") == ["a3", "a2"]
    assert ids(client, "?limit=1") == ["a3"]
    assert ids(client, "?limit=zero") == ["a3", "a2", "a1"]


def test_pagination_and_errors(client, alerts):
    body = body_of(client.get("/api/alerts?per_page=2&page=2"))
    assert [a["id"] for a in body["alerts"]] == ["a1"]
    assert body["meta"]["pagination"] == {"page": 2, "per_page": 2, "total_pages": 2, "total_count": 3}
    assert errors(client.get("/api/alerts?check=nocolon"), 400) == ["Malformed check ID"]
