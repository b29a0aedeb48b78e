"""Mattermost gateway: alerts as interactive messages with "Acknowledge" buttons.

Settings `gateways.mattermost`: `url` (an incoming webhook's URL, or with `bot_token` the server's base URL:
posts go through its API v4), `bot_token`, `channel` (API mode: the channel id for contacts without an
address), `username` [flapjack], `action_token` (a secret of your choosing the buttons carry and
/api/receivers/mattermost/actions checks), `actions_url` (that route's URL as Mattermost's server reaches it),
`allowed_users` (Mattermost user ids or names who may press them). A problem alert gets the buttons (when
`action_token` and `actions_url` are set); in API mode its post id is remembered (flapjack_py.store.chat) and
an acknowledgement or recovery of the check edits that post. The address is a channel (its name for a
webhook, its id for the API); empty = the webhook's own channel or `channel`.
"""

from __future__ import annotations

import logging
from typing import Any

from flapjack_py.chat.mattermost import attachment
from flapjack_py.config.gateways import GatewaySettings
from flapjack_py.config.types import Text, Texts
from flapjack_py.model.alert import Alert
from flapjack_py.store import chat
from flapjack_py.store.chat import ChatMessage

from .base import Declaration, Gateway, PermanentError, http_request

log = logging.getLogger(__name__)

MEDIUM = "mattermost"


class MattermostSettings(GatewaySettings):
    """`gateways.mattermost`."""

    required = ("url",)
    url: Text | None = None
    bot_token: Text | None = None
    channel: Text | None = None
    username: Text = "flapjack"
    action_token: Text | None = None
    actions_url: Text | None = None
    allowed_users: Texts = ()


class MattermostGateway(Gateway):
    """Posts to an incoming webhook, or through API v4 with a bot token (then edits the post on ack/recovery)."""

    medium = MEDIUM
    server = "Mattermost"
    required = ("url",)

    def send(self, alert: Alert) -> None:
        text = str(alert.get("body") or alert.get("subject") or alert["check"])
        problem = alert["type"] == "problem" and not alert["rollup"]
        attached = attachment(text, alert["state"], alert["check"],
                              actions_url=self.settings.get("actions_url") if problem else None,
                              token=self.settings.get("action_token") if problem else None)
        if self.settings.get("bot_token"):
            self._through_api(alert, text, attached, problem)
            return
        payload: dict[str, Any] = {"username": str(self.settings.get("username") or "flapjack"),
                                   "attachments": [attached]}
        if alert["address"]:
            payload["channel"] = alert["address"]
        self.post(str(self.settings["url"]), json=payload)

    def _through_api(self, alert: Alert, text: str, attached: dict[str, Any], problem: bool) -> None:
        base = str(self.settings["url"]).rstrip("/")
        headers = {"Authorization": f"Bearer {self.settings['bot_token']}"}
        address = alert["address"] or str(self.settings.get("channel") or "")
        if not address:
            raise PermanentError("no channel: the contact's mattermost address and gateways.mattermost.channel "
                                 "are empty")
        posted = chat.thread(self.store, MEDIUM, alert["check"], address) if self.store is not None else None
        if posted is not None and alert["type"] in ("acknowledgement", "recovery"):
            note = "recovered" if alert["type"] == "recovery" else f"acknowledged by {alert.get('actor') or 'someone'}"
            self._request("PUT", f"{base}/api/v4/posts/{posted.message_id}/patch", headers,
                          {"message": f"{alert['check']}: {note}", "props": {"attachments": [attached]}})
            return
        answer = self._request("POST", f"{base}/api/v4/posts", headers,
                               {"channel_id": address, "message": "", "props": {"attachments": [attached]}})
        post_id = str(answer.get("id") or "")
        if problem and post_id and self.store is not None:
            chat.remember(self.store, ChatMessage(MEDIUM, address, post_id, alert["check"], alert["id"]),
                          thread_of=address)

    def _request(self, method: str, url: str, headers: dict[str, str], body: dict[str, Any]) -> dict[str, Any]:
        response = http_request(self.session, method, url, timeout=self.timeout, headers=headers, json=body)
        try:
            found = response.json()
        except ValueError:
            return {}
        return found if isinstance(found, dict) else {}


GATEWAY = Declaration.of(MattermostGateway, MattermostSettings)
"""The mattermost medium (registered in pyproject.toml's `flapjack_py.gateways` entry points)."""
