"""API resource: replies from phones (issue 30). Routes on web.api.bp, SIGNED in web/policy.py.

- POST /api/receivers/sms/twilio: Twilio's inbound-SMS webhook (form `From`, `Body`), signed with
  `gateways.sms_twilio.auth_token`; answered with TwiML (the SMS sent back).
- GET /api/receivers/sms/kannel?token=&from=&text=: a Kannel sms-service (`receivers.sms_kannel.token`);
  answered with plain text (Kannel sends it back).
- POST /api/receivers/voice/twilio?alert=ID: the key pressed on a call placed by the `voice_twilio`
  gateway (form `Digits`), signed with `gateways.voice_twilio.auth_token`: 1 acknowledges, 2 escalates,
  anything else says the alert again. POST /api/receivers/voice/twilio/status?alert=ID: the call's status
  (`CallStatus`), recorded on the alert (no-answer, busy: not acknowledged; escalation carries on).

What a reply does is decided in flapjack_py.replies (through flapjack_py.actions); a request that is not
signed as its provider signs is refused by the gate (web/signatures.py) before it gets here.
"""

from __future__ import annotations

import logging
import re
import time
from typing import Any

from flask import Response, request

from flapjack_py import actions, replies
from flapjack_py.model import twiml
from flapjack_py.model.actors import Actor
from flapjack_py.store import ack_codes as code_store
from flapjack_py.store import alerts as alert_store

from ..errors import ApiError
from ..signatures import public_url, token_check, twilio_check, verified_by
from . import bp
from .common import ctx
from .schemas import NO_CONTENT, operation, query

log = logging.getLogger(__name__)

MAX_ADDRESS = 64
MAX_TEXT = 1600
"""Longest SMS body read (Twilio's concatenated-message limit)."""
CALL_STATUSES = ("queued", "initiated", "ringing", "in-progress", "completed", "busy", "no-answer", "failed",
                 "canceled")
_ALERT_ID = re.compile(r"[0-9a-f]{32}")


def _gateway_token(medium: str) -> str | None:
    return ctx().config.gateway(medium).get("auth_token") or None


@bp.route("/receivers/sms/twilio", methods=["POST"])
@verified_by(twilio_check(lambda: _gateway_token("sms_twilio")))
def twilio_sms_reply() -> Response:
    """An SMS sent to our Twilio number: act on it, answer with TwiML."""
    sender, text = _field(request.form, "From", MAX_ADDRESS), _field(request.form, "Body", MAX_TEXT)
    outcome = replies.reply(ctx().client, ctx().config, channel="sms", address=sender, text=text)
    return Response(twiml.message(outcome.answer), content_type=twiml.CONTENT_TYPE)


@bp.route("/receivers/sms/kannel", methods=["GET"])
@verified_by(token_check(lambda: ctx().config.receivers.sms_kannel.token))
def kannel_sms_reply() -> Response:
    """An SMS Kannel received (its sms-service get-url): act on it, answer with the text to send back."""
    sender, text = _field(request.args, "from", MAX_ADDRESS), _field(request.args, "text", MAX_TEXT)
    outcome = replies.reply(ctx().client, ctx().config, channel="sms", address=sender, text=text)
    return Response(outcome.answer, content_type="text/plain; charset=utf-8")


@bp.route("/receivers/voice/twilio", methods=["POST"])
@verified_by(twilio_check(lambda: _gateway_token("voice_twilio")))
def twilio_voice_reply() -> Response:
    """The key pressed on a paging call: 1 acknowledges, 2 escalates, anything else repeats the alert."""
    alert = _alert()
    digits = _field(request.form, "Digits", 8, required=False)
    check_id, address = alert.get("check", ""), alert.get("address", "")
    opened = code_store.resolve(ctx().client, alert.get("ack_code", ""))
    if opened is None or opened.check_id != check_id:
        return _twiml(twiml.say("This alert is no longer open. Nothing was done. Goodbye."))
    if digits == "1":
        replies.acknowledge_check(ctx().client, ctx().config, check_id, channel="voice", address=address,
                                  message="acknowledged on a call")
        return _twiml(twiml.say(f"Acknowledged {_spoken(check_id)}. Goodbye."))
    if digits == "2":
        entity, _, check = check_id.partition(":")
        actor = Actor(f"voice:{address}", "voice", address)
        if actions.escalate(ctx().client, entity, check, actor=actor, now=int(time.time())):
            return _twiml(twiml.say("Escalated to the next level. Goodbye."))
        return _twiml(twiml.say("There is no further level to escalate to. Nothing was done. Goodbye."))
    return _twiml(twiml.gather(alert.get("body", ""), public_url()))


@bp.route("/receivers/voice/twilio/status", methods=["POST"])
@verified_by(twilio_check(lambda: _gateway_token("voice_twilio")))
def twilio_voice_status() -> Response:
    """A paging call's status: recorded on its alert (`call_status`); unanswered counts as not acknowledged."""
    alert = _alert()
    status = _field(request.form, "CallStatus", 20)
    if status not in CALL_STATUSES:
        raise ApiError(400, f"CallStatus must be one of {', '.join(CALL_STATUSES)}")
    alert_store.set_call_status(ctx().client, alert["id"], status)
    if status in ("busy", "no-answer", "failed", "canceled"):
        log.info("alert %s: call %s: not acknowledged", alert["id"], status)
    return Response(status=204)


def _alert() -> dict[str, str]:
    alert_id = request.args.get("alert", "")
    if not _ALERT_ID.fullmatch(alert_id):
        raise ApiError(400, "alert must be an alert id (32 hex digits)")
    found = alert_store.load_alert(ctx().client, alert_id)
    if found is None or found.get("media") != "voice_twilio":
        raise ApiError(404, f"no call alert {alert_id}")
    return found


def _field(form: Any, name: str, most: int, required: bool = True) -> str:
    value = form.get(name)
    if value is None or value == "":
        if required:
            raise ApiError(400, f"{name} is required")
        return ""
    if len(value) > most:
        raise ApiError(400, f"{name} is longer than {most} characters")
    return str(value)


def _twiml(text: str) -> Response:
    return Response(text, content_type=twiml.CONTENT_TYPE)


def _spoken(check_id: str) -> str:
    entity, _, check = check_id.partition(":")
    return f"{check} on {entity}"


_SIGNED_ERRORS = ("400", "403")
_TEXT = {"200": {"description": "TwiML (text/xml): the answer Twilio sends or says",
                 "content": {"text/xml": {"schema": {"type": "string"}}}}}
_FORM = {"type": "object", "additionalProperties": {"type": "string"}}

PATHS: dict[str, Any] = {
    "/receivers/sms/twilio": {"post": operation(
        "Twilio inbound SMS (From, Body; X-Twilio-Signature): `ACK CODE [DURATION]` acknowledges",
        _TEXT, _SIGNED_ERRORS, body=_FORM, body_types=("application/x-www-form-urlencoded",), tag="receivers", signed=True)},
    "/receivers/sms/kannel": {"get": operation(
        "Kannel inbound SMS (token, from, text): `ACK CODE [DURATION]` acknowledges; answers the text sent back",
        {"200": {"description": "the answer (text/plain)", "content": {"text/plain": {"schema": {"type": "string"}}}}},
        _SIGNED_ERRORS, params=[query("token", "receivers.sms_kannel.token"), query("from", "the sender's number"),
                                query("text", "the message")], tag="receivers", signed=True)},
    "/receivers/voice/twilio": {"post": operation(
        "Key pressed on a paging call (Digits; X-Twilio-Signature): 1 acknowledges, 2 escalates",
        _TEXT, (*_SIGNED_ERRORS, "404"), params=[query("alert", "the call's alert id")], body=_FORM,
        body_types=("application/x-www-form-urlencoded",), tag="receivers", signed=True)},
    "/receivers/voice/twilio/status": {"post": operation(
        "Status of a paging call (CallStatus; X-Twilio-Signature), recorded on its alert",
        NO_CONTENT, (*_SIGNED_ERRORS, "404"), params=[query("alert", "the call's alert id")], body=_FORM,
        body_types=("application/x-www-form-urlencoded",), tag="receivers", signed=True)},
}
