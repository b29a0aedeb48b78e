"""Slack's app protocol: request signing, the Block Kit messages of an alert, and Web API calls.

The gateway (gateways/slack_app.py) posts alerts with `chat.postMessage` and updates them with `chat.update`;
the web app's receiver (web/api/chat.py) checks a button press's signature here and updates the message it came
from. https://api.slack.com/authentication/verifying-requests-from-slack
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass
from typing import Any

import requests

API_URL = "https://slack.com/api"
"""Slack's Web API (setting `gateways.slack.api_url`)."""
MAX_SKEW = 300
"""Seconds a signed request's timestamp may be from now (older ones may be replays)."""
ACK = "flapjack_ack"
ACK_4H = "flapjack_ack_4h"
ACTION_DURATIONS = {ACK: "", ACK_4H: "4h"}
"""Button action ids -> the acknowledgement's duration as typed ("" = the default)."""
MAX_TEXT = 2900
"""Longest text of a section block (Slack's limit is 3000)."""
MAX_VALUE = 2000
"""Longest button value."""
RETRYABLE = frozenset({"ratelimited", "internal_error", "fatal_error", "service_unavailable", "request_timeout"})
"""Web API errors worth another try."""


class SlackApiError(Exception):
    """A Web API call failed: `transient` when another try may succeed (`retry_after` seconds if Slack said)."""

    def __init__(self, message: str, *, transient: bool, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.transient = transient
        self.retry_after = retry_after


def signature(secret: str, timestamp: str, body: bytes) -> str:
    """`v0=` + hex HMAC-SHA256 of `v0:TIMESTAMP:BODY` with the signing secret: Slack's X-Slack-Signature."""
    digest = hmac.new(secret.encode(), b"v0:" + timestamp.encode() + b":" + body, hashlib.sha256).hexdigest()
    return f"v0={digest}"


def signature_problem(secret: str, timestamp: str | None, sent: str | None, body: bytes, now: float) -> str | None:
    """Why a request claiming to be Slack's is refused (missing, stale or wrong signature), or None."""
    if not timestamp or not sent:
        return "X-Slack-Request-Timestamp and X-Slack-Signature are required"
    if not timestamp.isdigit() or len(timestamp) > 12:
        return "X-Slack-Request-Timestamp must be unix seconds"
    if abs(now - int(timestamp)) > MAX_SKEW:
        return f"X-Slack-Request-Timestamp is more than {MAX_SKEW // 60} minutes from now"
    if not hmac.compare_digest(signature(secret, timestamp, body), sent.strip()):
        return "X-Slack-Signature does not match"
    return None


# --- messages -----------------------------------------------------------------


def section(text: str) -> dict[str, Any]:
    """A mrkdwn section block."""
    return {"type": "section", "text": {"type": "mrkdwn", "text": text[:MAX_TEXT] or " "}}


def alert_blocks(text: str, check: str, check_url: str | None) -> list[dict[str, Any]]:
    """A problem alert: its text, then "Acknowledge", "Acknowledge 4h" and a link to the check page."""
    value = check[:MAX_VALUE]
    buttons: list[dict[str, Any]] = [
        {"type": "button", "action_id": ACK, "style": "primary", "value": value,
         "text": {"type": "plain_text", "text": "Acknowledge"}},
        {"type": "button", "action_id": ACK_4H, "value": value,
         "text": {"type": "plain_text", "text": "Acknowledge 4h"}}]
    if check_url:
        buttons.append({"type": "button", "action_id": "flapjack_open", "url": check_url,
                        "text": {"type": "plain_text", "text": "Open check"}})
    return [section(text), {"type": "actions", "block_id": "flapjack_actions", "elements": buttons}]


def settled_blocks(text: str, note: str) -> list[dict[str, Any]]:
    """A message whose buttons are gone: its text and a note (who acknowledged, recovered)."""
    return [section(text), {"type": "context", "elements": [{"type": "mrkdwn", "text": note[:MAX_TEXT]}]}]


def who(actor: str | None) -> str:
    """How an actor is named in Slack: `<@U123>` for a Slack user, else the actor's name."""
    if actor and actor.startswith("slack:"):
        return f"<@{actor.removeprefix('slack:')}>"
    return actor or "someone"


def message_text(message: Any) -> str:
    """The text of the first section of a message as an interaction payload carries it (else its `text`)."""
    if not isinstance(message, dict):
        return ""
    for block in message.get("blocks") or []:
        if isinstance(block, dict) and block.get("type") == "section":
            text = (block.get("text") or {}).get("text")
            if isinstance(text, str):
                return text
    return str(message.get("text") or "")


# --- Web API ------------------------------------------------------------------


@dataclass(frozen=True)
class SlackApi:
    """Calls to one Slack workspace's Web API with a bot token."""

    token: str
    api_url: str = API_URL
    timeout: float = 10.0

    def call(self, session: requests.Session, method: str, body: dict[str, Any]) -> dict[str, Any]:
        """POST `body` as JSON to METHOD; Slack's answer when `ok`, else SlackApiError."""
        url = f"{self.api_url.rstrip('/')}/{method}"
        try:
            response = session.post(url, json=body, timeout=self.timeout,
                                    headers={"Authorization": f"Bearer {self.token}"})
        except requests.RequestException as exc:
            raise SlackApiError(f"{method}: {type(exc).__name__}", transient=True) from None
        if response.status_code == 429 or response.status_code >= 500:
            retry = response.headers.get("Retry-After")
            raise SlackApiError(f"{method}: HTTP {response.status_code}", transient=True,
                                retry_after=float(retry) if retry and retry.isdigit() else None)
        try:
            answer = response.json()
        except ValueError:
            raise SlackApiError(f"{method}: HTTP {response.status_code}, not JSON", transient=False) from None
        if response.status_code != 200 or not isinstance(answer, dict) or not answer.get("ok"):
            error = str(answer.get("error") if isinstance(answer, dict) else "") or f"HTTP {response.status_code}"
            raise SlackApiError(f"{method}: {error[:200]}", transient=error in RETRYABLE)
        return answer

    def post_message(self, session: requests.Session, channel: str, text: str,
                     blocks: list[dict[str, Any]] | None = None) -> tuple[str, str]:
        """chat.postMessage; (channel id, ts) of the posted message."""
        body: dict[str, Any] = {"channel": channel, "text": text[:MAX_TEXT]}
        if blocks is not None:
            body["blocks"] = blocks
        answer = self.call(session, "chat.postMessage", body)
        return str(answer.get("channel") or channel), str(answer.get("ts") or "")

    def update(self, session: requests.Session, channel: str, ts: str, text: str,
               blocks: list[dict[str, Any]]) -> None:
        """chat.update: the message's text and blocks replaced."""
        self.call(session, "chat.update", {"channel": channel, "ts": ts, "text": text[:MAX_TEXT], "blocks": blocks})
