"""Mattermost's interactive messages: the attachment of an alert with its buttons, and what the buttons mean.

A button's `integration` names flapjack's `POST /api/receivers/mattermost/actions` (setting
`gateways.mattermost.actions_url`, as Mattermost's server reaches it) and a `context` Mattermost echoes back:
the `action_token` (proof the press comes through our message), the check, and the action.
https://developers.mattermost.com/integrate/plugins/interactive-messages/
"""

from __future__ import annotations

from typing import Any

ACTIONS = {"ack": "", "ack4h": "4h"}
"""Button action ids -> the acknowledgement's duration as typed ("" = the default)."""
LABELS = {"ack": "Acknowledge", "ack4h": "Acknowledge 4h"}
COLOURS = {"critical": "#d00000", "warning": "#e8a317", "unknown": "#7f7f7f", "ok": "#2eb886"}


def attachment(text: str, state: str, check: str, *, actions_url: str | None, token: str | None) -> dict[str, Any]:
    """A message attachment: the alert's text coloured by state, with the acknowledge buttons when both the
    actions URL and the token are known."""
    found: dict[str, Any] = {"fallback": text[:500], "text": text, "color": COLOURS.get(state, "#7f7f7f")}
    if actions_url and token:
        found["actions"] = [{"id": action, "name": LABELS[action], "type": "button", "integration": {
            "url": actions_url, "context": {"token": token, "check": check, "action": action}}} for action in ACTIONS]
    return found
