"""SMS gateways: MessageNet (`sms`), Twilio (`sms_twilio`), Nexmo/Vonage (`sms_nexmo`) (engine.md 6.5).

Each sends the alert's body, cut to 159 characters, to the address (a phone number).
"""

from __future__ import annotations

import logging

from pydantic import Field

from flapjack_py.config.gateways import GatewaySettings
from flapjack_py.config.types import Text
from flapjack_py.model.alert import Alert
from flapjack_py.notify import render

from .base import Declaration, Gateway, PermanentError, TransientError

log = logging.getLogger(__name__)

SMS_MAX = 159
MESSAGENET_URL = "https://www.messagenet.com.au/dotnet/Lodge.asmx/LodgeSMSMessage"
TWILIO_URL = "https://api.twilio.com/2010-04-01/Accounts/{sid}/Messages.json"
NEXMO_URL = "https://rest.nexmo.com/sms/json"
NEXMO_THROTTLED = "1"


class MessageNetSettings(GatewaySettings):
    """`gateways.sms` (MessageNet)."""

    required = ("username", "password")
    endpoint: Text = MESSAGENET_URL
    username: Text | None = None
    password: Text | None = None


class TwilioSettings(GatewaySettings):
    """`gateways.sms_twilio`."""

    required = ("account_sid", "auth_token", "from_")
    account_sid: Text | None = None
    auth_token: Text | None = None
    from_: Text | None = Field(default=None, validation_alias="from", serialization_alias="from")
    endpoint: Text | None = None


class NexmoSettings(GatewaySettings):
    """`gateways.sms_nexmo`."""

    required = ("api_key", "secret", "from_")
    api_key: Text | None = None
    secret: Text | None = None
    from_: Text | None = Field(default=None, validation_alias="from", serialization_alias="from")
    endpoint: Text = NEXMO_URL


def sms_text(alert: Alert) -> str:
    """The alert's body truncated to 159 characters."""
    return render.truncate(str(alert.get("body") or ""), SMS_MAX)


class MessageNetGateway(Gateway):
    """MessageNet: GET Username, Pwd, PhoneNumber, PhoneMessage; 200-206 = success."""

    medium = "sms"
    server = "MessageNet"
    required = ("username", "password")

    def send(self, alert: Alert) -> None:
        params = {"Username": self.settings["username"], "Pwd": self.settings["password"],
                  "PhoneNumber": alert["address"], "PhoneMessage": sms_text(alert)}
        self.get(str(self.settings.get("endpoint", MESSAGENET_URL)), params=params, ok=range(200, 207))


class TwilioGateway(Gateway):
    """Twilio: POST form To, From, Body with basic auth account_sid:auth_token."""

    medium = "sms_twilio"
    server = "Twilio"
    required = ("account_sid", "auth_token", "from")

    def send(self, alert: Alert) -> None:
        sid = str(self.settings["account_sid"])
        url = str(self.settings.get("endpoint") or TWILIO_URL.format(sid=sid))
        data = {"To": alert["address"], "From": self.settings["from"], "Body": sms_text(alert)}
        self.post(url, data=data, auth=(sid, str(self.settings["auth_token"])))


class NexmoGateway(Gateway):
    """Nexmo/Vonage SMS API: POST form api_key, api_secret, from, to, text; every message status must be 0."""

    medium = "sms_nexmo"
    server = "Nexmo"
    required = ("api_key", "secret", "from")

    def send(self, alert: Alert) -> None:
        data = {"api_key": self.settings["api_key"], "api_secret": self.settings["secret"],
                "from": self.settings["from"], "to": alert["address"], "text": sms_text(alert)}
        reply = self.post(str(self.settings.get("endpoint", NEXMO_URL)), data=data).json()
        for message in reply.get("messages") or [{"status": "?", "error-text": "no messages in reply"}]:
            status = str(message.get("status"))
            if status == "0":
                continue
            reason = f"Nexmo status {status}: {message.get('error-text', '')}"
            raise TransientError(reason) if status == NEXMO_THROTTLED else PermanentError(reason)


MESSAGENET = Declaration.of(MessageNetGateway, MessageNetSettings)
TWILIO = Declaration.of(TwilioGateway, TwilioSettings)
NEXMO = Declaration.of(NexmoGateway, NexmoSettings)
"""The three SMS media (registered in pyproject.toml's `flapjack_py.gateways` entry points)."""
