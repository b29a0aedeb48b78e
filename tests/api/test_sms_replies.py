"""SMS replies (issue 30): Twilio's signed inbound-SMS webhook and Kannel's token URL acknowledge the check of an
open ack code for a contact's number; bad signatures, missing tokens and unknown numbers do nothing.

A real Redis, the real executive: a problem alert is made first, its code read from the alert record.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlencode

import pytest
import redis
from flask.testing import FlaskClient

from flapjack_py.executive import Executive
from flapjack_py.store import contacts as contact_store
from flapjack_py.store import entities as entity_store
from flapjack_py.store import maintenance as maint
from flapjack_py.store.plumbing.client import StrRedis
from web import create_app
from web.signatures import twilio_signature

pytestmark = pytest.mark.real

TOKEN = "twilio-auth-token-0123456789"
KANNEL = "kannel-token-0123456789abcdef"
NUMBER = "+61400000001"
CONFIG = {"executive": {"new_check_scheduled_maintenance_duration": 0},
          "gateways": {"sms_twilio": {"enabled": False, "account_sid": "AC1", "auth_token": TOKEN, "from": "+1555"}},
          "receivers": {"sms_kannel": {"token": KANNEL}}}
TWILIO_URL = "http://localhost/api/receivers/sms/twilio"


@pytest.fixture
def world(real_r: redis.Redis, real_s: StrRedis, clock: Any) -> dict[str, Any]:
    """A contact with an sms medium on entity foo, foo:PING failing with a problem alert; its code."""
    contact_store.create_contact(real_s, {"id": "ada", "first_name": "Ada", "last_name": "L",
                                          "media": {"sms": "+61 400 000 001", "email": "ada@example.com"}})
    entity_store.save_entity(real_s, "id-foo", "foo")
    entity_store.add_entity_contacts(real_s, "id-foo", ["ada"])
    executive = Executive(real_r, CONFIG)
    for _ in range(2):
        real_r.lpush("events", json.dumps({"type": "service", "entity": "foo", "check": "PING", "state": "critical"}))
        executive.drain()
        clock.advance(30)
    codes = {v.decode() for k in real_r.scan_iter("alert:*") if (v := real_r.hget(k, "ack_code"))}
    assert len(codes) == 1
    return {"code": codes.pop(), "executive": executive}


@pytest.fixture
def web(real_r: redis.Redis) -> FlaskClient:
    return create_app(redis=real_r, config=CONFIG).test_client()


def _twilio(web: FlaskClient, form: dict[str, str], token: str = TOKEN) -> Any:
    signature = twilio_signature(token, TWILIO_URL, form.items())
    return web.post("/api/receivers/sms/twilio", data=form, headers={"X-Twilio-Signature": signature})


def _acked(real_s: StrRedis) -> Any:
    return maint.in_force(real_s, "foo", "PING", maint.UNSCHEDULED)


def test_a_signed_twilio_reply_acknowledges_with_the_sms_actor(web: FlaskClient, world: dict[str, Any],
                                                                real_r: redis.Redis, real_s: StrRedis) -> None:
    response = _twilio(web, {"From": NUMBER, "Body": f"ack {world['code'].lower()} 2h", "To": "+1555"})
    assert response.status_code == 200
    assert response.content_type.startswith("text/xml")
    assert "acknowledged foo:PING for 2 h" in response.get_data(as_text=True)
    (raw,) = real_r.lrange("events", 0, -1)
    event = json.loads(raw)
    assert (event["state"], event["actor"], event["channel"], event["duration"]) == (
        "acknowledgement", f"sms:{NUMBER}", "sms", 7200)
    world["executive"].drain()
    assert _acked(real_s) is not None
    ack_alerts = [a for k in real_r.scan_iter("alert:*") if (a := real_r.hgetall(k))[b"type"] == b"acknowledgement"]
    assert ack_alerts and all(a[b"actor"] == f"sms:{NUMBER}".encode() and a[b"channel"] == b"sms" for a in ack_alerts)
    trace = json.loads(real_r.lindex("foo:PING:decisions", 0) or "{}")  # the decision trace says who, how
    assert (trace["type"], trace["actor"], trace["channel"]) == ("acknowledgement", f"sms:{NUMBER}", "sms")
    [window] = maint.list_windows(real_s, "foo", "PING", maint.UNSCHEDULED)  # what the check page shows
    assert window.actor is not None and (window.actor.name, window.actor.channel) == (f"sms:{NUMBER}", "sms")


def test_a_badly_signed_twilio_request_is_refused_and_queues_nothing(web: FlaskClient, world: dict[str, Any],
                                                                      real_r: redis.Redis) -> None:
    form = {"From": NUMBER, "Body": f"ACK {world['code']}"}
    assert _twilio(web, form, token="wrong-token").status_code == 403
    assert web.post("/api/receivers/sms/twilio", data=form).status_code == 403  # unsigned
    signature = twilio_signature(TOKEN, TWILIO_URL, form.items())
    tampered = web.post("/api/receivers/sms/twilio", data={**form, "From": "+61499999999"},
                        headers={"X-Twilio-Signature": signature})
    assert tampered.status_code == 403
    assert real_r.llen("events") == 0


def test_unknown_numbers_stop_words_and_closed_codes_do_nothing(web: FlaskClient, world: dict[str, Any],
                                                                real_r: redis.Redis) -> None:
    stranger = _twilio(web, {"From": "+61499999999", "Body": f"ACK {world['code']}"})
    assert stranger.status_code == 200 and "not a contact" in stranger.get_data(as_text=True)
    stop = _twilio(web, {"From": NUMBER, "Body": "STOP"})
    assert "no action" in stop.get_data(as_text=True)
    unknown = _twilio(web, {"From": NUMBER, "Body": "ACK ZZZZZ"})
    assert "not open" in unknown.get_data(as_text=True)
    chatter = _twilio(web, {"From": NUMBER, "Body": "who is this?"})
    assert "not understood" in chatter.get_data(as_text=True)
    assert real_r.llen("events") == 0


def test_a_recovered_checks_code_does_nothing(web: FlaskClient, world: dict[str, Any], real_r: redis.Redis) -> None:
    real_r.lpush("events", json.dumps({"type": "service", "entity": "foo", "check": "PING", "state": "ok"}))
    world["executive"].drain()
    answer = _twilio(web, {"From": NUMBER, "Body": world["code"]})
    assert "not open" in answer.get_data(as_text=True)
    assert real_r.llen("events") == 0


def test_kannel_needs_its_token(web: FlaskClient, world: dict[str, Any], real_r: redis.Redis) -> None:
    query = {"from": NUMBER, "text": f"ACK {world['code']}"}
    assert web.get(f"/api/receivers/sms/kannel?{urlencode(query)}").status_code == 403
    assert web.get(f"/api/receivers/sms/kannel?{urlencode({**query, 'token': 'nope'})}").status_code == 403
    assert real_r.llen("events") == 0
    ok = web.get(f"/api/receivers/sms/kannel?{urlencode({**query, 'token': KANNEL})}")
    assert ok.status_code == 200 and ok.content_type.startswith("text/plain")
    assert "acknowledged foo:PING for 4 h" in ok.get_data(as_text=True)
    assert json.loads(real_r.lrange("events", 0, -1)[0])["actor"] == f"sms:{NUMBER}"


def test_kannel_without_a_configured_token_refuses_everything(real_r: redis.Redis) -> None:
    app = create_app(redis=real_r, config={"receivers": {"sms_kannel": {}}})
    response = app.test_client().get("/api/receivers/sms/kannel?token=&from=%2B1&text=ACK")
    assert response.status_code == 403


def test_bad_input_is_named(web: FlaskClient) -> None:
    form = {"From": NUMBER, "Body": "x" * 1601}
    response = _twilio(web, form)
    assert response.status_code == 400
    assert "Body is longer than 1600 characters" in response.get_data(as_text=True)
    assert _twilio(web, {"Body": "ACK"}).status_code == 400
