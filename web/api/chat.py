"""API resource: chat buttons pressed on alert messages (Slack app interactions, Mattermost message actions).

Both routes are open in web/policy.py (Slack and Mattermost do not log in): each view authenticates the call
itself before reading anything else, and refuses it with 401 (nothing queued) when the proof is missing or
wrong: Slack's request signature (`gateways.slack.signing_secret`, timestamp at most 5 minutes off), or the
`context.token` Mattermost echoes from the button (`gateways.mattermost.action_token`). A press by a user not
in the gateway's `allowed_users` (nor a contact's address on that medium) is 403. A valid press acknowledges the
check through flapjack_py.actions with the actor `slack:USER_ID` / `mattermost:USER_ID`.
"""

from __future__ import annotations

import hmac
import json
import logging
import time
from collections.abc import Mapping
from typing import Any
from urllib.parse import parse_qs

import requests
from flask import Response, request

from flapjack_py import actions
from flapjack_py.chat import slack
from flapjack_py.chat.mattermost import ACTIONS as MATTERMOST_ACTIONS
from flapjack_py.model.actors import Actor
from flapjack_py.model.teams import NotOwned
from flapjack_py.store import chat

from ..errors import ApiError
from . import bp
from .common import ctx, json_body, split_check_id
from .schemas import ok, operation

log = logging.getLogger(__name__)

MAX_BODY = 256 * 1024
"""Largest interaction body read, in bytes."""
MAX_ID = 128
"""Longest user, channel or message id taken."""


@bp.route("/receivers/slack/interactions", methods=["POST"])
def slack_interactions() -> Response:
    """A Slack button press (signed): acknowledge the message's check, then replace its buttons."""
    settings = _configured("slack", "signing_secret")
    body = request.get_data(cache=True)
    if len(body) > MAX_BODY:
        raise ApiError(413, f"interaction body larger than {MAX_BODY} bytes")
    problem = slack.signature_problem(str(settings["signing_secret"]), request.headers.get("X-Slack-Request-Timestamp"),
                                      request.headers.get("X-Slack-Signature"), body, time.time())
    if problem:
        log.warning("slack interaction from %s refused: %s", request.remote_addr, problem)
        raise ApiError(401, problem)
    payload = _slack_payload(body)
    action = next((a for a in payload.get("actions") or [] if isinstance(a, dict)
                   and a.get("action_id") in slack.ACTION_DURATIONS), None)
    if payload.get("type") != "block_actions" or action is None:
        return _json({"ignored": "not a flapjack button"})
    user = _text(_dict(payload.get("user")).get("id"), "user.id")
    container = _dict(payload.get("container"))
    channel = _text(container.get("channel_id") or _dict(payload.get("channel")).get("id"), "container.channel_id")
    ts = _text(container.get("message_ts") or _dict(payload.get("message")).get("ts"), "container.message_ts")
    posted = chat.find(ctx().client, "slack", channel, ts)
    check = posted.check if posted else _text(action.get("value"), "actions[0].value", 2000)
    _refuse_stranger("slack", settings, user)
    seconds = _acknowledge(check, slack.ACTION_DURATIONS[str(action["action_id"])], Actor(f"slack:{user}", "slack"))
    text = slack.message_text(payload.get("message")) or check
    note = f"Acknowledged by <@{user}>"
    api = slack.SlackApi(str(settings.get("bot_token") or ""), str(settings.get("api_url") or slack.API_URL))
    try:
        with requests.Session() as session:
            api.update(session, channel, ts, f"{text}\n{note}", slack.settled_blocks(text, note))
    except slack.SlackApiError as exc:
        log.warning("slack: acknowledged %s but could not update the message: %s", check, exc)
    return _json({"acknowledged": check, "duration": seconds})


@bp.route("/receivers/mattermost/actions", methods=["POST"])
def mattermost_actions() -> Response:
    """A Mattermost message button press (context.token checked): acknowledge, answer the post's update."""
    settings = _configured("mattermost", "action_token")
    payload = json_body()
    context = _dict(payload.get("context")) if isinstance(payload, dict) else {}
    token = context.get("token")
    if not isinstance(token, str) or not hmac.compare_digest(token.encode(), str(settings["action_token"]).encode()):
        log.warning("mattermost action from %s refused: wrong or missing context.token", request.remote_addr)
        raise ApiError(401, "context.token does not match gateways.mattermost.action_token")
    action = context.get("action")
    if action not in MATTERMOST_ACTIONS:
        raise ApiError(422, f"context.action must be one of {', '.join(MATTERMOST_ACTIONS)}")
    user = _text(payload.get("user_id"), "user_id")
    name = str(payload.get("user_name") or "")[:MAX_ID]
    check = _text(context.get("check"), "context.check", 2000)
    _refuse_stranger("mattermost", settings, user, name)
    _acknowledge(check, MATTERMOST_ACTIONS[str(action)], Actor(f"mattermost:{user}", "mattermost"))
    who = f"@{name}" if name else user
    return _json({"update": {"message": f"{check}: acknowledged by {who}", "props": {}},
                  "ephemeral_text": f"acknowledged {check}"})


def _configured(medium: str, secret: str) -> Mapping[str, Any]:
    """The gateway's settings; 404 when it does not take button presses (no `secret` set)."""
    settings: Mapping[str, Any] = ctx().config.gateway(medium)
    if not settings.get(secret):
        raise ApiError(404, f"{medium} buttons are not configured: set gateways.{medium}.{secret}")
    return settings


def _refuse_stranger(medium: str, settings: Mapping[str, Any], *names: str) -> None:
    """403 unless one of the user's `names` is in `allowed_users` or a contact's address on `medium`."""
    allowed = set(settings.get("allowed_users") or ())
    if any(n in allowed for n in names if n) or any(chat.contact_with_address(ctx().client, medium, n)
                                                     for n in names if n):
        return
    log.warning("%s: button press by %s refused (not in gateways.%s.allowed_users nor a contact's address)",
                medium, names[0], medium)
    raise ApiError(403, f"{medium} user {names[0]} may not act: not in gateways.{medium}.allowed_users")


def _acknowledge(check: str, typed: str, actor: Actor) -> int:
    """Acknowledge for `actor` (403 when the teams of the contact whose address they are do not own the check)."""
    entity, name = split_check_id(check, 422)
    address = actor.address or actor.name.partition(":")[2]
    acting = actions.address_acting(ctx().client, actor.channel, address, actor, ctx().config.web.unowned_checks)
    try:
        return actions.acknowledge(ctx().client, ctx().config.executive.queue, [(entity, name)],
                                   duration=actions.ack_seconds(typed), message=f"acknowledged from {actor.channel}",
                                   actor=actor, now=int(time.time()), acting=acting)
    except NotOwned as exc:
        raise ApiError(403, str(exc)) from None


def _slack_payload(body: bytes) -> dict[str, Any]:
    """The JSON of the form field `payload`; 400 naming what is wrong."""
    try:
        fields = parse_qs(body.decode(), strict_parsing=True, max_num_fields=10)
        payload = json.loads(fields["payload"][0])
    except (UnicodeDecodeError, ValueError, KeyError, IndexError):
        raise ApiError(400, "the body must be a form with the field `payload` holding JSON") from None
    if not isinstance(payload, dict):
        raise ApiError(400, "`payload` must be a JSON object")
    return payload


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _text(value: Any, name: str, limit: int = MAX_ID) -> str:
    if not isinstance(value, str) or not value or len(value) > limit:
        raise ApiError(422, f"{name} must be a string of 1 to {limit} characters")
    return value


def _json(data: Any) -> Response:
    """Plain `application/json` (what Slack and Mattermost read)."""
    return Response(json.dumps(data, separators=(",", ":")), status=200, content_type="application/json")


_OK = ok({"type": "object"}, description="Handled")
PATHS: dict[str, Any] = {
    "/receivers/slack/interactions": {"post": operation(
        "A Slack app's button press, signed with the signing secret (X-Slack-Signature, X-Slack-Request-Timestamp): "
        "acknowledges the alert's check, updates the message", _OK, ("400", "403", "404", "413", "415", "422"),
        body={"type": "object", "required": ["payload"], "properties": {"payload": {"type": "string",
                                                                                   "maxLength": MAX_BODY}}},
        body_types=("application/x-www-form-urlencoded",), tag="receivers", signed=True)},
    "/receivers/mattermost/actions": {"post": operation(
        "A Mattermost message button press (context.token = gateways.mattermost.action_token): acknowledges the "
        "check, answers the post's update", _OK, ("400", "403", "404", "415", "422"),
        body={"type": "object", "required": ["context"], "properties": {
            "user_id": {"type": "string", "maxLength": MAX_ID}, "user_name": {"type": "string"},
            "context": {"type": "object", "required": ["token", "check", "action"], "properties": {
                "token": {"type": "string"}, "check": {"type": "string", "maxLength": 2000},
                "action": {"type": "string", "enum": list(MATTERMOST_ACTIONS)}}}}},
        body_types=("application/json",), tag="receivers", signed=True)},
}
