"""Typed settings of each gateway (`gateways.<medium>`), checked when the config is loaded.

A gateway reads its section as a plain mapping (Config.gateway(medium)); these
models decide what that mapping may hold: every key typed and ranged, unknown
keys refused, and the settings a medium cannot work without required as soon as
it is enabled. Defaults documented in config.example.yml live here.
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal

from pydantic import Field, field_validator, model_validator
from pydantic_core import PydanticCustomError

from flapjack_py.config.template_files import check_templates
from flapjack_py.config.types import Bool, Port, Seconds, Section, Text, Texts, Timeout, Wait

MAX_RETRIES = 100
MAX_WORKERS = 64


class GatewaySettings(Section):
    """Settings every gateway takes."""

    required: ClassVar[tuple[str, ...]] = ()
    """Settings (dotted inside the section) that must be set when the gateway is enabled."""

    enabled: Bool = False
    retries: Annotated[int, Field(ge=0, le=MAX_RETRIES, strict=True)] = 3
    retry_intervals: tuple[Seconds, ...] | None = Field(default=None, min_length=1)
    templates: Text | dict[Text, Text] | None = None
    timeout: Timeout | None = None
    burst_wait: Wait | None = None
    workers: Annotated[int, Field(ge=1, le=MAX_WORKERS, strict=True)] = 1

    @field_validator("templates")
    @classmethod
    def _templates_exist_and_parse(cls, value: str | dict[str, str] | None) -> str | dict[str, str] | None:
        if value is not None:
            check_templates(value)
        return value

    @model_validator(mode="after")
    def _required_when_enabled(self) -> GatewaySettings:
        if self.enabled:
            for dotted in self.required:
                value: Any = self
                for part in dotted.split("."):
                    value = getattr(value, part, None)
                if value in (None, ""):
                    raise PydanticCustomError("required_setting", "required setting missing (the gateway is enabled)",
                                              {"key": dotted.replace("from_", "from")})
        return self


class SmtpAuth(Section):
    """`gateways.email.smtp_config.auth`."""

    type: Literal["plain", "login", "cram_md5"] = "plain"
    username: Text | None = None
    password: Text | None = None


class SmtpConfig(Section):
    """`gateways.email.smtp_config`."""

    host: Text = "localhost"
    port: Port = 25
    starttls: Bool = False
    ssl: Bool = False
    from_: Text | None = Field(default=None, validation_alias="from", serialization_alias="from")
    reply_to: Text | None = None
    timeout: Timeout = 30.0
    ca_file: Text | None = None
    verify: Bool = True
    auth: SmtpAuth = SmtpAuth()


class EmailSettings(GatewaySettings):
    """`gateways.email`."""

    smtp_config: SmtpConfig = Field(default_factory=SmtpConfig)


class JabberSettings(GatewaySettings):
    """`gateways.jabber`; `allowed_jids` empty means nobody may give commands."""

    required = ("jabberid", "password")
    server: Text | None = None
    port: Port = 5222
    jabberid: Text | None = None
    password: Text | None = None
    alias: Text = "flapjack"
    identifiers: Texts = ()
    rooms: Texts = ()
    allowed_jids: Texts = ()
    allowed_rooms: Texts = ()
    ca_file: Text | None = None


class PagerDutySettings(GatewaySettings):
    """`gateways.pagerduty`."""

    events_api: Literal["v1", "v2"] = "v2"
    events_url: Text = "https://events.pagerduty.com"
    api_url: Text = "https://api.pagerduty.com"
    ack_poll_interval: Wait = 10.0


class MessageNetSettings(GatewaySettings):
    """`gateways.sms` (MessageNet)."""

    required = ("username", "password")
    endpoint: Text = "https://www.messagenet.com.au/dotnet/Lodge.asmx/LodgeSMSMessage"
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
    endpoint: Text = "https://rest.nexmo.com/sms/json"


class SlackSettings(GatewaySettings):
    """`gateways.slack`."""

    required = ("endpoint",)
    endpoint: Text | None = None
    account_sid: Text = "flapjack"
    icon_emoji: Text = ":ghost:"


class SnsSettings(GatewaySettings):
    """`gateways.sns`."""

    required = ("access_key", "secret_key")
    access_key: Text | None = None
    secret_key: Text | None = None
    region_name: Text = "us-east-1"
    endpoint_url: Text | None = None


class GatewaysSection(Section):
    """`gateways`: one optional section per medium."""

    email: EmailSettings | None = None
    jabber: JabberSettings | None = None
    pagerduty: PagerDutySettings | None = None
    sms: MessageNetSettings | None = None
    sms_twilio: TwilioSettings | None = None
    sms_nexmo: NexmoSettings | None = None
    slack: SlackSettings | None = None
    sns: SnsSettings | None = None
    apprise: GatewaySettings | None = None

    @model_validator(mode="before")
    @classmethod
    def _empty_section_is_defaults(cls, data: Any) -> Any:
        """`email:` with nothing under it configures the gateway with its defaults."""
        if isinstance(data, dict):
            return {medium: {} if settings is None else settings for medium, settings in data.items()}
        return data

    def as_mappings(self) -> dict[str, dict[str, Any]]:
        """Medium -> its settings as the plain mapping gateways read (YAML key names, unset values left out)."""
        return {medium: settings.model_dump(by_alias=True, exclude_none=True)
                for medium in type(self).model_fields
                if (settings := getattr(self, medium)) is not None}
