"""Slack gateway: the alert's body to an incoming webhook (engine.md 6.5).

Settings `gateways.slack`: `endpoint` (the webhook URL), `account_sid` (the
bot's user name) [flapjack], `icon_emoji` [:ghost:]. The address is the channel
(without `#`); empty = `#general`.
"""

from __future__ import annotations

import json
import logging

from flapjack_py.config.gateways import GatewaySettings
from flapjack_py.config.types import Text
from flapjack_py.model.alert import Alert

from .base import Declaration, Gateway

log = logging.getLogger(__name__)

ICON_EMOJI = ":ghost:"


class SlackSettings(GatewaySettings):
    """`gateways.slack`."""

    required = ("endpoint",)
    endpoint: Text | None = None
    account_sid: Text = "flapjack"
    icon_emoji: Text = ICON_EMOJI


class SlackGateway(Gateway):
    """POSTs form field `payload` = {channel, username, text, icon_emoji}; no truncation."""

    medium = "slack"
    required = ("endpoint",)

    def send(self, alert: Alert) -> None:
        address = str(alert.get("address") or "").lstrip("#")
        payload = {"channel": f"#{address or 'general'}",
                   "username": str(self.settings.get("account_sid") or "flapjack"),
                   "text": str(alert.get("body") or ""),
                   "icon_emoji": str(self.settings.get("icon_emoji") or ICON_EMOJI)}
        self.post(str(self.settings["endpoint"]), data={"payload": json.dumps(payload)})


GATEWAY = Declaration.of(SlackGateway, SlackSettings)
"""The slack medium (registered in pyproject.toml's `flapjack_py.gateways` entry points)."""
