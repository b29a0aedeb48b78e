"""Phone calls through Twilio (`voice_twilio`, issue 30): a problem alert places a call that says the alert
and asks "press 1 to acknowledge, 2 to escalate".

The call is one POST to Twilio's Calls API (`{api_url}/2010-04-01/Accounts/SID/Calls.json`, basic auth
account_sid:auth_token) carrying its TwiML (flapjack_py.model.twiml): a `<Gather>` whose key is posted to
`{web.api_base_url}/receivers/voice/twilio?alert=ID` and a status callback to `.../voice/twilio/status`
(web/api/replies.py handles both, signature checked). Other alerts (recovery, acknowledgement, test) are
said without a question. Delivery status and retries as for every medium (gateways/base.py): `delivered`
means Twilio accepted the call; whether it was answered is the alert's `call_status`.
"""

from __future__ import annotations

import logging
from urllib.parse import quote

from pydantic import Field

from flapjack_py.config.gateways import GatewaySettings
from flapjack_py.config.types import Text
from flapjack_py.model import twiml
from flapjack_py.model.alert import Alert

from .base import Declaration, Gateway, PermanentError

log = logging.getLogger(__name__)

TWILIO_API = "https://api.twilio.com"
CALLS_PATH = "/2010-04-01/Accounts/{sid}/Calls.json"


class VoiceSettings(GatewaySettings):
    """`gateways.voice_twilio`."""

    required = ("account_sid", "auth_token", "from_")
    account_sid: Text | None = None
    auth_token: Text | None = None
    from_: Text | None = Field(default=None, validation_alias="from", serialization_alias="from")
    api_url: Text = TWILIO_API
    api_base_url: Text | None = None
    """The public `.../api` URL Twilio posts the key pressed to; default `web.api_base_url`."""


class VoiceGateway(Gateway):
    """Twilio Calls API: POST form To, From, Twiml, StatusCallback with basic auth."""

    medium = "voice_twilio"
    server = "Twilio"
    required = ("account_sid", "auth_token", "from", "api_base_url")

    def send(self, alert: Alert) -> None:
        sid = str(self.settings["account_sid"])
        base = str(self.settings.get("api_base_url") or "").rstrip("/")
        if not base.startswith(("https://", "http://")):
            raise PermanentError("gateways.voice_twilio needs web.api_base_url (the public .../api URL)")
        alert_id = quote(alert["id"])
        text = str(alert.get("body") or "")
        if alert.get("type") == "problem" and not alert.get("rollup"):
            script = twiml.gather(text, f"{base}/receivers/voice/twilio?alert={alert_id}")
        else:
            script = twiml.say(text)
        data = {"To": alert["address"], "From": self.settings["from"], "Twiml": script,
                "StatusCallback": f"{base}/receivers/voice/twilio/status?alert={alert_id}",
                "StatusCallbackMethod": "POST"}
        url = str(self.settings.get("api_url") or TWILIO_API).rstrip("/") + CALLS_PATH.format(sid=quote(sid))
        self.post(url, data=data, auth=(sid, str(self.settings["auth_token"])))


GATEWAY = Declaration.of(VoiceGateway, VoiceSettings)
"""The `voice_twilio` medium (registered in pyproject.toml's `flapjack_py.gateways` entry points)."""
