"""The settings every gateway takes (`gateways.<medium>`), and the base of each gateway's own settings model.

A gateway reads its section as a plain mapping (Config.gateway(medium)); its model, a subclass of
GatewaySettings declared in its module in gateways/ (config.media finds it), decides what that mapping may
hold: every key typed and ranged, unknown keys refused, and the settings a medium cannot work without
required as soon as it is enabled. Defaults documented in config.example.yml live in those models.
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar

from pydantic import Field, field_validator, model_validator
from pydantic_core import PydanticCustomError

from flapjack_py.config.template_files import check_templates
from flapjack_py.config.types import Bool, Seconds, Section, Text, Timeout, Wait

MAX_RETRIES = 100
MAX_WORKERS = 64
MAX_CONCURRENCY = 64
MAX_RETRY_AGE = 7 * 86400
"""Longest `retry_max_age`: a week (as long as rq keeps a failed job)."""


Concurrency = Annotated[int, Field(ge=1, le=MAX_CONCURRENCY, strict=True)]
"""The type of `concurrency` (GatewaySettings; media with another default declare it again)."""


class GatewaySettings(Section):
    """Settings every gateway takes."""

    required: ClassVar[tuple[str, ...]] = ()
    """Settings (dotted inside the section) that must be set when the gateway is enabled."""

    enabled: Bool = False
    retries: Annotated[int, Field(ge=0, le=MAX_RETRIES, strict=True)] = 3
    retry_intervals: tuple[Seconds, ...] | None = Field(default=None, min_length=1)
    retry_max_age: Annotated[Seconds, Field(ge=1, le=MAX_RETRY_AGE)] | None = None
    """Seconds after it was queued that an alert's failed tries are no longer retried: it fails with its last error
    (unset: flapjack_py.model.delivery's RETRY_MAX_AGE, 3600)."""
    templates: Text | dict[Text, Text] | None = None
    timeout: Timeout | None = None
    burst_wait: Wait | None = None
    workers: Annotated[int, Field(ge=1, le=MAX_WORKERS, strict=True)] = 1
    concurrency: Concurrency | None = None
    """Alerts each worker sends at once, each over its own connection (unset: gateways/batch.py's CONCURRENCY,
    1; email and pagerduty: 4). A kill still duplicates at most one alert: between a send's point of no return
    and its recorded status the senders take turns (gateways/base.py Gateway.commit), except for idempotent
    far ends (PagerDuty's dedup_key), where a duplicate is one incident."""

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
