"""Slack gateway: the alert's body to an incoming webhook (engine.md 6.5), or, in app mode, a Slack app's message
with buttons (gateways/slack_app.py).

Webhook mode, settings `gateways.slack`: `endpoint` (the webhook URL), `account_sid` (the bot's user name)
[flapjack], `icon_emoji` [:ghost:]. The address is the channel (without `#`); empty = `#general`.

App mode (`bot_token` set): `bot_token`, `signing_secret` (checks the button presses Slack posts to
/api/receivers/slack/interactions), `channel` (where the alerts of contacts whose address is a Slack user id
go, mentioning them), `api_url` [Slack's], `allowed_users` (Slack user ids who may press the buttons; contacts
whose `slack` address is their id may too), `web_url` (the flapjack web UI's base URL, for the check page
link). The address is a channel id or name, or a Slack user id.
"""

from __future__ import annotations

import json
import logging

from pydantic import model_validator
from pydantic_core import PydanticCustomError

from flapjack_py.chat.slack import API_URL
from flapjack_py.config.gateways import GatewaySettings
from flapjack_py.config.types import Text, Texts
from flapjack_py.model.alert import Alert

from .base import Declaration, Gateway, PermanentError
from .slack_app import send as send_app

log = logging.getLogger(__name__)

ICON_EMOJI = ":ghost:"


class SlackSettings(GatewaySettings):
    """`gateways.slack`."""

    endpoint: Text | None = None
    account_sid: Text = "flapjack"
    icon_emoji: Text = ICON_EMOJI
    bot_token: Text | None = None
    signing_secret: Text | None = None
    channel: Text | None = None
    api_url: Text = API_URL
    allowed_users: Texts = ()
    web_url: Text | None = None

    @model_validator(mode="after")
    def _endpoint_or_bot_token(self) -> SlackSettings:
        if self.enabled and not (self.endpoint or self.bot_token):
            raise PydanticCustomError("required_setting", "required setting missing (the gateway is enabled): "
                                      "endpoint (webhook mode) or bot_token (app mode)", {"key": "endpoint"})
        return self


class SlackGateway(Gateway):
    """Webhook mode: POSTs form field `payload` = {channel, username, text, icon_emoji}; no truncation.
    App mode (`bot_token`): chat.postMessage / chat.update (gateways/slack_app.py)."""

    medium = "slack"
    server = "Slack"

    def send(self, alert: Alert) -> None:
        if self.settings.get("bot_token"):
            send_app(self, alert)
            return
        if not self.settings.get("endpoint"):
            raise PermanentError("gateways.slack.endpoint: required setting missing (or set bot_token)")
        address = str(alert.get("address") or "").lstrip("#")
        payload = {"channel": f"#{address or 'general'}",
                   "username": str(self.settings.get("account_sid") or "flapjack"),
                   "text": str(alert.get("body") or ""),
                   "icon_emoji": str(self.settings.get("icon_emoji") or ICON_EMOJI)}
        self.post(str(self.settings["endpoint"]), data={"payload": json.dumps(payload)})


GATEWAY = Declaration.of(SlackGateway, SlackSettings)
"""The slack medium (registered in pyproject.toml's `flapjack_py.gateways` entry points)."""
