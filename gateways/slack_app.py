"""Slack app mode of the slack gateway (`gateways.slack.bot_token` set): alerts through Slack's Web API.

A contact's address is a channel (name or id), or a Slack user id: their alerts then go to `channel`,
mentioning them (without `channel`, to their direct messages with the app), and they may press the buttons.
A problem alert is posted with chat.postMessage and Block Kit buttons ("Acknowledge", "Acknowledge 4h", a link
to the check page); its channel and ts are remembered with the alert (flapjack_py.store.chat). An
acknowledgement or recovery of that check updates the message with chat.update (buttons replaced by who
acknowledged, or "Recovered"); anything else, or when no message is known, is posted as plain text. Button
presses come back to the web app (web/api/chat.py), which acknowledges through flapjack_py.actions.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Mapping
from typing import Any, TypeVar
from urllib.parse import quote

from flapjack_py.chat.slack import API_URL, SlackApi, SlackApiError, alert_blocks, settled_blocks, who
from flapjack_py.model.alert import Alert
from flapjack_py.store import chat
from flapjack_py.store.chat import ChatMessage

from .base import Gateway, PermanentError, TransientError

log = logging.getLogger(__name__)

MEDIUM = "slack"
USER_ID = re.compile(r"[UW][A-Z0-9]{2,}")
"""A Slack user id (a contact's address that names a person, not a channel)."""
T = TypeVar("T")


def send(gateway: Gateway, alert: Alert) -> None:
    """Post or update the alert's message; TransientError/PermanentError as Slack answers."""
    settings = gateway.settings
    api = SlackApi(str(settings["bot_token"]), str(settings.get("api_url") or API_URL), gateway.timeout)
    address = alert["address"].strip()
    target = _target(address, settings)
    text = str(alert.get("body") or alert.get("subject") or alert["check"])
    if target != address.lstrip("#"):
        text = f"<@{address}> {text}"
    if alert["type"] == "problem" and not alert["rollup"]:
        blocks = alert_blocks(text, alert["check"], check_url(settings, alert["check"]))
        channel, ts = _sent(lambda: api.post_message(gateway.session, target, text, blocks))
        if gateway.store is not None and ts:
            chat.remember(gateway.store, ChatMessage(MEDIUM, channel, ts, alert["check"], alert["id"]),
                          thread_of=address)
        return
    posted = _thread(gateway, alert, address)
    if posted is not None and alert["type"] in ("acknowledgement", "recovery"):
        note = _note(alert)
        _sent(lambda: api.update(gateway.session, posted.room, posted.message_id, f"{text}\n{note}",
                                 settled_blocks(text, note)))
        return
    _sent(lambda: api.post_message(gateway.session, target, text))


def _target(address: str, settings: Mapping[str, Any]) -> str:
    """Where an alert to `address` goes: a channel (name or id) itself; a Slack user id to `channel` (mentioning
    them) when it is set, else to the user's direct messages with the app."""
    if USER_ID.fullmatch(address) and settings.get("channel"):
        return str(settings["channel"]).lstrip("#")
    return address.lstrip("#")


def check_url(settings: Mapping[str, Any], check: str) -> str | None:
    """The check page's URL under `web_url`, or None when it is not set."""
    base = settings.get("web_url")
    if not base:
        return None
    entity, _, name = check.partition(":")
    return f"{str(base).rstrip('/')}/checks/{quote(entity, safe='')}/{quote(name, safe='')}"


def _thread(gateway: Gateway, alert: Alert, address: str) -> ChatMessage | None:
    if gateway.store is None:
        return None
    return chat.thread(gateway.store, MEDIUM, alert["check"], address)


def _note(alert: Alert) -> str:
    """What replaces the buttons: `Acknowledged by <@U1>: MESSAGE`, or `Recovered`."""
    if alert["type"] == "recovery":
        return ":white_check_mark: Recovered"
    summary = str(alert.get("summary") or "")
    return f"Acknowledged by {who(alert.get('actor'))}" + (f": {summary}" if summary else "")


def _sent(call: Callable[[], T]) -> T:
    """The Web API call's answer; its failure as the gateway's TransientError or PermanentError."""
    try:
        return call()
    except SlackApiError as exc:
        if exc.transient:
            raise TransientError(f"Slack {exc}", exc.retry_after) from None
        raise PermanentError(f"Slack {exc}") from None
