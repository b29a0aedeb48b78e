"""Render an alert's subject and body from gateways/templates/<medium>/ (engine.md section 6).

STUB: the gateways work (issue 6) replaces this with Jinja2 templates carrying
engine.md section 6 wording. The signature is the seam the notifier calls.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from flapjack_py.config import Config


def render_alert(alert: Mapping[str, Any], config: Config) -> tuple[str, str]:
    """Return (subject, body) for `alert` on its medium (`alert["media"]`)."""
    entity, _, check = str(alert.get("event_id", alert.get("check", ""))).partition(":")
    title = str(alert.get("notification_type", alert.get("type", ""))).title()
    text = f"{title}: '{check}' on {entity} is {str(alert.get('state', '')).title()}"
    return (text if alert.get("media") in ("email", "sns") else ""), text
