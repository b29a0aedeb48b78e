"""Paging by phone (issue 30): a problem alert on `voice_twilio` places a call through a local HTTP server standing
in for Twilio's Calls API; the key pressed (the Gather callback, signed as Twilio signs) acknowledges (1) or pages
the escalation policy's next level now (2); a bad signature is refused; an unanswered call is recorded.

Real Redis, the real executive and gateway worker, the web app's routes.
"""

from __future__ import annotations

import base64
import json
import re
from typing import Any
from urllib.parse import parse_qs, urlencode

import pytest
import redis
from flask.testing import FlaskClient
from notifier_world import ENTITY, World, rule
from pytest_httpserver import HTTPServer

from flapjack_py.config.settings import load_config
from flapjack_py.model.escalation import policy_from_json
from flapjack_py.store import escalation as escalation_store
from flapjack_py.store import maintenance as maint
from gateways.worker import run_gateway
from web import create_app
from web.signatures import twilio_signature

pytestmark = pytest.mark.real

TOKEN = "voice-auth-token-0123456789"
BASE = "https://flapjack.example.com/api"
ANN = "+61400000002"


@pytest.fixture
def config(redis_server: Any, httpserver: HTTPServer) -> dict[str, Any]:
    httpserver.expect_request("/2010-04-01/Accounts/AC9/Calls.json", method="POST").respond_with_json(
        {"sid": "CA1", "status": "queued"}, status=201)
    return {"redis": {"url": redis_server.url}, "web": {"api_base_url": BASE},
            "executive": {"new_check_scheduled_maintenance_duration": 0},
            "gateways": {"voice_twilio": {"enabled": True, "retries": 1, "retry_intervals": [0], "burst_wait": 5,
                                          "account_sid": "AC9", "auth_token": TOKEN, "from": "+15550001",
                                          "api_url": httpserver.url_for("/").rstrip("/")}}}


@pytest.fixture
def paged(real_r: redis.Redis, clock: Any, config: dict[str, Any], httpserver: HTTPServer) -> dict[str, Any]:
    """ann (voice) paged at level 1 of policy `ops` (bob by email 900 s later); the call placed; its alert."""
    world = World(real_r, clock, **{k: v for k, v in config.items() if k != "redis"})
    world.contact("ann", {"voice_twilio": ANN}, entities=(),  # a rule naming the medium (not in the general rule's)
                  rules=[rule(critical_media=["voice_twilio"])])
    world.contact("bob", {"email": "bob@example.com"}, entities=())
    world.entity(ENTITY)
    policy = {"levels": [{"delay": 0, "targets": [{"contact": "ann"}]},
                         {"delay": 900, "targets": [{"contact": "bob"}]}]}
    escalation_store.save_policy(world.s, policy_from_json(policy, "ops"))
    escalation_store.link(world.s, f"id-{ENTITY}", ["ops"])
    assert world.fail() == [("ann", "voice_twilio", "problem", "", "critical")]
    assert run_gateway("voice_twilio", load_config(config), burst=True) == 0
    [record] = world.alert_records()
    assert record["status"] == "delivered"
    return {"world": world, "alert": record, "web": create_app(redis=real_r, config=config).test_client()}


def _press(web: FlaskClient, alert_id: str, digits: str, token: str = TOKEN) -> Any:
    url = f"{BASE}/receivers/voice/twilio?alert={alert_id}"
    form = {"Digits": digits, "CallSid": "CA1", "To": ANN}
    signature = twilio_signature(token, url, form.items())
    return web.post(f"/api/receivers/voice/twilio?alert={alert_id}", data=form,
                    headers={"X-Twilio-Signature": signature})


def test_the_call_request_says_the_alert_and_asks_for_a_key(paged: dict[str, Any], httpserver: HTTPServer) -> None:
    [(request, _)] = httpserver.log
    assert request.headers["Authorization"] == "Basic " + base64.b64encode(f"AC9:{TOKEN}".encode()).decode()
    form = {k: v[0] for k, v in parse_qs(request.get_data(as_text=True)).items()}
    alert_id = paged["alert"]["id"]
    assert (form["To"], form["From"]) == (ANN, "+15550001")
    assert form["StatusCallback"] == f"{BASE}/receivers/voice/twilio/status?alert={alert_id}"
    twiml = form["Twiml"]
    assert re.search(rf'<Gather numDigits="1" method="POST" action="{re.escape(BASE)}/receivers/voice/twilio\?'
                     rf'alert={alert_id}">', twiml)
    assert "Press 1 to acknowledge. Press 2 to escalate." in twiml
    assert "PING" in twiml and "foo" in twiml


def test_pressing_1_acknowledges_as_the_called_number(paged: dict[str, Any], real_r: redis.Redis) -> None:
    response = _press(paged["web"], paged["alert"]["id"], "1")
    assert response.status_code == 200 and "Acknowledged PING on foo" in response.get_data(as_text=True)
    event = json.loads(real_r.lrange("events", 0, -1)[0])
    assert (event["state"], event["actor"], event["channel"]) == ("acknowledgement", f"voice:{ANN}", "voice")
    world: World = paged["world"]
    world.executive.drain()
    assert maint.in_force(world.s, "foo", "PING", maint.UNSCHEDULED) is not None
    world.advance(900)
    world.executive.drain()
    assert [a for a in world.new_alerts() if a[0] == "bob"] == []  # the acknowledgement ended the escalation


def test_pressing_2_pages_the_next_level_now(paged: dict[str, Any], real_r: redis.Redis) -> None:
    world: World = paged["world"]
    world.new_alerts()
    response = _press(paged["web"], paged["alert"]["id"], "2")
    assert "Escalated to the next level" in response.get_data(as_text=True)
    world.advance(1)
    world.executive.drain()  # housekeeping: the step is due now, not in 900 s
    assert ("bob", "email", "problem", "", "critical") in world.new_alerts()
    assert real_r.llen("events") == 0  # nothing acknowledged
    again = _press(paged["web"], paged["alert"]["id"], "2")
    assert "no further level" in again.get_data(as_text=True)


def test_another_key_says_the_alert_again(paged: dict[str, Any]) -> None:
    text = _press(paged["web"], paged["alert"]["id"], "7").get_data(as_text=True)
    assert "<Gather" in text and "Press 1 to acknowledge" in text


def test_a_bad_signature_is_refused(paged: dict[str, Any], real_r: redis.Redis) -> None:
    assert _press(paged["web"], paged["alert"]["id"], "1", token="not-the-token").status_code == 403
    unsigned = paged["web"].post(f"/api/receivers/voice/twilio?alert={paged['alert']['id']}", data={"Digits": "1"})
    assert unsigned.status_code == 403
    assert real_r.llen("events") == 0


def test_an_unanswered_call_is_recorded_and_escalation_goes_on(paged: dict[str, Any], real_r: redis.Redis) -> None:
    alert_id = paged["alert"]["id"]
    url = f"{BASE}/receivers/voice/twilio/status?alert={alert_id}"
    form = {"CallSid": "CA1", "CallStatus": "no-answer"}
    response = paged["web"].post(f"/api/receivers/voice/twilio/status?{urlencode({'alert': alert_id})}", data=form,
                                 headers={"X-Twilio-Signature": twilio_signature(TOKEN, url, form.items())})
    assert response.status_code == 204
    assert real_r.hget(f"alert:{alert_id}", "call_status") == b"no-answer"
    world: World = paged["world"]
    world.new_alerts()
    world.advance(900)
    world.executive.drain()
    assert ("bob", "email", "problem", "", "critical") in world.new_alerts()
