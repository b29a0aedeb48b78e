"""Apprise gateway (beyond Flapjack): the address is an Apprise URL (Teams, Telegram, Discord, Matrix, ...).

The alert's subject (email-style) is the title and its body the message. Named
apprise_gw so that it does not shadow the `apprise` library.
"""

from __future__ import annotations

import logging

import apprise

from flapjack_py.config.gateways import GatewaySettings
from flapjack_py.model.alert import Alert

from .base import Declaration, Gateway, PermanentError, TransientError

log = logging.getLogger(__name__)


class AppriseGateway(Gateway):
    """Notifies the alert's Apprise URL; Apprise reports only success or failure, so failures are retried."""

    medium = "apprise"

    def send(self, alert: Alert) -> None:
        notifier = apprise.Apprise()
        if not notifier.add(alert["address"]):
            raise PermanentError("not a valid Apprise URL for any installed service")
        ok = notifier.notify(title=str(alert.get("subject") or ""), body=str(alert.get("body") or ""),
                             body_format=apprise.NotifyFormat.TEXT)
        if not ok:
            raise TransientError("Apprise could not deliver to the service")


GATEWAY = Declaration.of(AppriseGateway, GatewaySettings)
"""The apprise medium, with only the settings every gateway takes (registered in pyproject.toml's
`flapjack_py.gateways` entry points)."""
