"""Settings of the receivers `flapjack server` runs and restarts (`receivers.<name>`).

Each `flapjack receiver ...` command takes its defaults from here, so the command
run by hand and the one the server runs read the same settings.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Literal, Self

from pydantic import AfterValidator, BeforeValidator, Field, StringConstraints, model_validator

from flapjack_py.config.types import Bool, Port, Section, Str, Text, Texts, Timeout
from flapjack_py.model.json_paths import parse_path, scalar_text

MAX_BUFFER = 10_000_000
"""Most events a receiver may be told to hold while Redis is unreachable."""


def _octal_mode(value: str) -> str:
    try:
        mode = int(value, 8)
    except ValueError:
        raise ValueError("expected an octal permission mode such as \"0666\"") from None
    if not 0 <= mode <= 0o777:
        raise ValueError("expected a permission mode between 0000 and 0777")
    return value


class PipeReceiver(Section):
    """A receiver reading a named pipe: created with `fifo_mode` when missing, held open read-write."""

    enabled: Bool = False
    fifo: Text = "/var/cache/flapjack/events.fifo"
    fifo_mode: Annotated[Str, AfterValidator(_octal_mode)] = "0666"
    """Permissions of the pipe when the receiver creates it (octal, as a string)."""
    buffer: Annotated[int, Field(ge=1, le=MAX_BUFFER, strict=True)] = 100_000
    """Events held while Redis is unreachable; when full the receiver stops reading the pipe."""

    def mode(self) -> int:
        """`fifo_mode` as a number."""
        return int(self.fifo_mode, 8)


class NagiosReceiver(PipeReceiver):
    """`receivers.nagios`: Nagios's perfdata pipe."""

    fifo: Text = "/var/cache/nagios3/event_stream.fifo"


class NscaReceiver(PipeReceiver):
    """`receivers.nsca`: the pipe nsca writes (its command_file)."""

    fifo: Text = "/var/lib/nagios3/rw/nagios.cmd"


class HttpBrokerReceiver(Section):
    """`receivers.httpbroker`: the HTTP cache of check states."""

    enabled: Bool = False
    bind: Str = ""
    """Address to listen on; empty = all."""
    port: Port = 3090
    interval: Timeout = 10.0
    """Seconds between sends of the cache."""


class AlertmanagerReceiver(Section):
    """`receivers.alertmanager`: which labels of an Alertmanager alert name the entity, check and state
    (POST /api/receivers/alertmanager; flapjack_py/intake/alertmanager.py documents the mapping)."""

    entity_labels: Annotated[Texts, Field(min_length=1, max_length=20)] = ("entity", "instance")
    """Labels tried in order for the entity (an `instance`-style `host:port` loses its port)."""
    check_label: Text = "alertname"
    job_label: Annotated[Str, Field(max_length=4096)] = "job"
    """Label prefixed to the check name as `JOB/`; empty: no prefix."""
    severity_label: Text = "severity"
    default_entity: Text = "prometheus"
    """Entity of an alert with none of entity_labels."""


class GrafanaReceiver(AlertmanagerReceiver):
    """`receivers.grafana`: the same label mapping for Grafana unified alerting's webhook
    (POST /api/receivers/grafana; flapjack_py/intake/grafana.py)."""

    default_entity: Text = "grafana"


MAX_WEBHOOKS = 100
MAX_STATE_VALUES = 500
MAX_STATE_PATHS = 5
WebhookState = Literal["ok", "warning", "critical", "unknown"]
WebhookName = Annotated[str, StringConstraints(strict=True, pattern=r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$")]
"""A webhook's name, the last segment of its URL: letters, digits, '_' and '-', at most 64."""


def _json_path(value: str) -> str:
    parse_path(value)
    return value


def _path_list(value: Any) -> Any:
    """One path stands for a one-path list; null for none."""
    return () if value is None else [value] if isinstance(value, str) else value


def _state_values(value: Any) -> Any:
    """The `states` keys as payload values read as text (YAML `0:` and `true:` are "0" and "true"),
    refusing two that differ only in case (values are matched ignoring case)."""
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        return value
    found: dict[str, Any] = {}
    for key, state in value.items():
        text = scalar_text(key)
        if text is None:
            raise ValueError(f"the payload value {key!r} is not text, a number or a boolean")
        same = [known for known in found if known.casefold() == text.casefold()]
        if same:
            raise ValueError(f"{same[0]!r} and {text!r} are the same value (matched ignoring case)")
        found[text] = state
    return found


JsonPath = Annotated[Text, AfterValidator(_json_path)]
"""A dotted path into the payload: `alert.host`, `items.0.name` (flapjack_py/model/json_paths.py)."""
StateValues = Annotated[dict[Annotated[str, Field(max_length=1024)], WebhookState],
                        BeforeValidator(_state_values), Field(max_length=MAX_STATE_VALUES)]


class WebhookReceiver(Section):
    """`receivers.webhooks.NAME`: how a JSON payload posted to /api/receivers/webhook/NAME becomes events
    (flapjack_py/intake/webhook.py documents the mapping)."""

    alerts: JsonPath | None = None
    """Path to a list of alerts, one event each; unset: the payload is one alert."""
    entity: JsonPath | None = None
    default_entity: Text | None = None
    """Entity when `entity` is unset or missing from an alert."""
    check: JsonPath | None = None
    default_check: Text | None = None
    state: Annotated[tuple[JsonPath, ...], BeforeValidator(_path_list), Field(max_length=MAX_STATE_PATHS)] = ()
    """Paths whose values `states` maps, tried in order; none: every alert is `default_state`."""
    states: StateValues = {}
    default_state: WebhookState = "critical"
    """State of a value `states` does not map (and that is not itself ok, warning, critical or unknown)."""
    summary: JsonPath | None = None
    default_summary: Text | None = None
    """Summary when `summary` is unset or missing; neither: the check name."""

    @model_validator(mode="after")
    def _names_come_from_somewhere(self) -> Self:
        for name in ("entity", "check"):
            if getattr(self, name) is None and getattr(self, f"default_{name}") is None:
                raise ValueError(f"set `{name}` (a path) or `default_{name}`")
        return self


def _no_webhooks(value: Any) -> Any:
    return {} if value is None else value


class SmsKannelReceiver(Section):
    """`receivers.sms_kannel`: SMS replies from a Kannel/SMPP gateway, GET /api/receivers/sms/kannel."""

    token: Annotated[Text, Field(min_length=16)] | None = None
    """The `token` query parameter Kannel's sms-service URL carries; unset: the route refuses every request."""


class ReceiversConfig(Section):
    """`receivers`: which receivers `flapjack server` runs, and their settings."""

    nagios: NagiosReceiver = NagiosReceiver()
    nsca: NscaReceiver = NscaReceiver()
    httpbroker: HttpBrokerReceiver = HttpBrokerReceiver()
    json_pipe: PipeReceiver = Field(default=PipeReceiver(), alias="json")
    """`receivers.json`: JSON events, one per line, from a named pipe."""
    alertmanager: AlertmanagerReceiver = AlertmanagerReceiver()
    grafana: GrafanaReceiver = GrafanaReceiver()
    webhooks: Annotated[dict[WebhookName, WebhookReceiver], BeforeValidator(_no_webhooks),
                        Field(max_length=MAX_WEBHOOKS)] = {}
    """`receivers.webhooks.NAME`: generic JSON webhooks, POST /api/receivers/webhook/NAME."""
    sms_kannel: SmsKannelReceiver = SmsKannelReceiver()

    def commands(self) -> list[tuple[str, list[str]]]:
        """(name, `flapjack` arguments) of every enabled receiver; the commands read the rest from here."""
        wanted: list[tuple[str, PipeReceiver | HttpBrokerReceiver, list[str]]] = [
                  ("nagios", self.nagios, ["receiver", "nagios", "start"]),
                  ("nsca", self.nsca, ["receiver", "nsca", "start"]),
                  ("httpbroker", self.httpbroker, ["receiver", "httpbroker"]),
                  ("json", self.json_pipe, ["receiver", "json", "--fifo", self.json_pipe.fifo])]
        return [(name, args) for name, settings, args in wanted if settings.enabled]
