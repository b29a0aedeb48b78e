"""Configuration: YAML overlaid on the defaults, validated by typed models, returned frozen.

Every default lives here (the settings of each gateway in its module's settings model, found through
config/media.py; receivers' in config/receivers.py); config.example.yml lists the same keys (a test keeps the
two in step). A bad setting raises ConfigError naming the dotted key and the problem. Strings of the form
`${ENV_VAR}` are replaced by that environment variable. Sections are frozen pydantic models with unknown keys
refused; each gateway's settings are validated by its model and kept as a plain mapping (Config.gateway(medium)).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import yaml
from pydantic import AfterValidator, BeforeValidator, Field, model_validator

from flapjack_py.config.analytics import AnalyticsConfig
from flapjack_py.config.media import declaration, validate_gateways
from flapjack_py.config.receivers import ReceiversConfig
from flapjack_py.config.sso import LdapConfig, OidcConfig
from flapjack_py.config.types import Bool, Port, Seconds, Section, Text, TextOrTexts, Texts, validated
from flapjack_py.errors import ConfigError

MAX_BATCH_SIZE = 100_000
MAX_EVENT_BYTES = 64 * 1024 * 1024
"""Largest `executive.max_event_bytes` allowed (64 MiB)."""

_ENV_REF = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
_REDIS_SCHEMES = ("redis://", "rediss://", "unix://")


def _time_zone(name: str) -> str:
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        raise ValueError(f"unknown time zone {name!r}") from None
    return name


def _redis_url(url: str) -> str:
    if not url.startswith(_REDIS_SCHEMES):
        raise ValueError(f"expected a URL starting with {', '.join(_REDIS_SCHEMES)}")
    return url


def _rate_limit(text: str) -> str:
    from limits import parse_many  # Flask-Limiter's notation, checked at startup rather than at the first login

    try:
        parse_many(text)
    except ValueError:
        raise ValueError(f"expected a rate such as '10 per 15 minutes', got {text!r}") from None
    return text

def _http_url(url: str) -> str:
    if not url.startswith(("http://", "https://")):
        raise ValueError("expected an http:// or https:// URL")
    return url


def _upper(value: Any) -> Any:
    return value.upper() if isinstance(value, str) else value


def _host_port(entry: str) -> str:
    host, _, port = entry.rpartition(":")
    if not host or not port.isdigit() or not 1 <= int(port) <= 65535:
        raise ValueError(f"expected host:port, got {entry!r}")
    return entry


class RedisConfig(Section):
    """Where Redis is; with no url and no sentinels flapjack starts the embedded server."""

    url: Annotated[Text, AfterValidator(_redis_url)] | None = None
    """redis://, rediss:// (TLS) or unix://; with sentinels only its scheme and db number are used."""
    sentinels: Annotated[tuple[Annotated[Text, AfterValidator(_host_port)], ...],
                         BeforeValidator(lambda v: () if v is None else v)] = ()
    """`host:port` of each Sentinel; when set, the primary of master_name is asked of them."""
    master_name: Annotated[Text, Field(max_length=200)] = "mymaster"
    username: Text | None = None
    """ACL user (overrides the URL's)."""
    password: Text | None = None
    """Password (overrides the URL's); write it as ${ENV_VAR}."""
    sentinel_password: Text | None = None
    """Password of the sentinels themselves, when they need one."""
    ssl_ca_certs: Text | None = None
    """CA bundle (PEM) that signed the server's certificate, for rediss:// URLs."""
    data_dir: Text | None = None
    """Embedded server's data directory; None = the user data dir."""
    embedded_binary: Text | None = None
    """Path to a redis/valkey server binary; None = find one."""


class ExecutiveConfig(Section):
    """The event processor and notifier."""

    queue: Annotated[Text, Field(max_length=200)] = "events"
    archive_events: Bool = False
    events_archive_maxage: Seconds = 10800
    new_check_scheduled_maintenance_duration: Seconds = 3_155_760_000  # "100 years"
    new_check_scheduled_maintenance_ignore_tags: Texts = ()
    default_contact_timezone: Annotated[Text, AfterValidator(_time_zone)] = "UTC"
    initial_failure_delay: Seconds = 30
    repeat_failure_delay: Seconds = 60
    batch_size: Annotated[int, Field(ge=1, le=MAX_BATCH_SIZE, strict=True)] = 1000
    """Most events taken per round trip when the queue is deep."""
    max_event_bytes: Annotated[int, Field(ge=1024, le=MAX_EVENT_BYTES, strict=True)] = 64 * 1024
    """Longest event (bytes of JSON) accepted; longer ones are rejected unparsed."""
    alert_retention: Seconds = 30 * 86400
    """Seconds alert history is kept."""
    notification_log_file: Text | None = None
    """File for "E:C | TYPE | CID | MEDIUM | ADDRESS" lines."""
    stale_after: Seconds | None = None
    """Seconds without a result before a check is stale; null: 3 x the interval learned from its events
    (at least 60 s); 0: checks are never stale."""
    stale_state: Literal["none", "unknown"] = "none"
    """"unknown": a check going stale gets an unknown result, a problem that notifies like any other."""
    flap_detection: Bool = False
    """Hold back the notifications of a flapping check (Nagios percent state change over its last 21 results)."""
    flap_low_threshold: Annotated[float, Field(ge=0, le=100)] = 5.0
    """Percent state change below which a flapping check is stable again."""
    flap_high_threshold: Annotated[float, Field(ge=0, le=100)] = 20.0
    """Percent state change above which a check flaps."""
    decision_trace_length: Annotated[int, Field(ge=0, le=10_000, strict=True)] = 50
    """Decision traces kept per check (why each contact/medium was or was not alerted); 0 keeps none."""
    ack_code_ttl: Annotated[Seconds, Field(ge=60)] = 86400
    """Seconds a problem alert's ack code (reply `ACK CODE`) acknowledges its check, unless it recovers first."""

    @model_validator(mode="after")
    def _flap_thresholds_in_order(self) -> ExecutiveConfig:
        if self.flap_low_threshold >= self.flap_high_threshold:
            raise ValueError("flap_low_threshold must be below flap_high_threshold")
        return self


class WebConfig(Section):
    """The JSON API and web UI."""

    bind: Text = "127.0.0.1"
    port: Port = 3080
    api_token: TextOrTexts = ()
    api_base_url: Text | None = None
    threads: Annotated[int, Field(ge=1, le=256, strict=True)] = 8
    allow_anonymous: Bool = False
    """With no user and no token, listen beyond loopback anyway (the app is then open to anyone)."""
    secure_cookies: Bool = False
    """Mark the session cookie Secure even when requests do not arrive over https."""
    cors_origins: Texts = ()
    """Origins (scheme://host[:port]) whose web pages may call /api from a browser."""
    session_idle_timeout: Annotated[Seconds, Field(ge=60)] = 3600
    """Seconds without a request before a UI login ends."""
    max_content_length: Annotated[int, Field(ge=1024, le=1024 ** 3, strict=True)] = 1_048_576
    """Largest request body in bytes; larger ones are refused with 413 before they are read."""
    login_rate_limit: Annotated[Text, AfterValidator(_rate_limit)] = "10 per 15 minutes"
    """Failed logins allowed per user name and per client address (Flask-Limiter notation)."""
    audit_retention: Annotated[Seconds, Field(ge=86400)] = 400 * 86400
    """Seconds audit trail entries are kept (trimmed by age as entries are written)."""
    unowned_checks: Literal["everyone", "admins"] = "everyone"
    """Who may act on a check no team owns: every responder, or admins only."""
    ldap: LdapConfig | None = None
    """Log users in against an LDAP directory (flapjack_py.config.sso)."""
    oidc: OidcConfig | None = None
    """Single sign-on with an OpenID Connect provider (flapjack_py.config.sso)."""
    password_login: Bool = True
    """Offer the user name and password form (false: single sign-on only)."""


class WatchdogConfig(Section):
    """Health thresholds and the watchdog that pages when monitoring itself is down."""

    after: Seconds = 60
    """Seconds health must be failing before the "monitoring is down" alert."""
    max_queue_age: Seconds = 60
    """Seconds the oldest queued event may wait."""
    heartbeat_timeout: Annotated[Seconds, Field(ge=10)] = 30
    """Seconds since an executive's / gateway worker's last beat (they beat every 5 s)."""
    failure_window: Annotated[Seconds, Field(ge=1)] = 300
    """Seconds over which failed alerts are counted."""
    max_failures: Annotated[int, Field(ge=1, strict=True)] = 3
    """Alerts a gateway may fail for good within failure_window."""
    contacts: Texts = ()
    """Contact ids paged through their media."""
    interval: Annotated[Seconds, Field(ge=1, le=3600)] = 5
    """Seconds between two health checks of one watchdog."""
    ping_url: Annotated[Text, AfterValidator(_http_url)] | None = None
    """Requested every ping_interval while healthy (dead man's switch)."""
    ping_interval: Annotated[Seconds, Field(ge=1)] = 60


class SchedulesConfig(Section):
    """On-call schedules (the web app fetches the calendars of layers that name an `ical_url`)."""

    allow_private_urls: Bool = False
    """Let an `ical_url` reach loopback, private, link-local and other internal addresses (refused by default:
    the fetch comes from the server, inside the network)."""


def _group_by(value: str) -> str:
    if value in ("entity", "check", "none") or (value.startswith("tag:") and len(value) > 4):
        return value
    raise ValueError("must be entity, check, none or tag:NAME")


class IncidentsConfig(Section):
    """Incidents: problems grouped into one page per group (flapjack_py.model.incidents)."""

    group_by: Annotated[Text, Field(max_length=200), AfterValidator(_group_by)] = "entity"
    """`entity`, `tag:NAME` (the checks with tag NAME), `check`, or `none` (no incidents)."""
    window: Seconds = 300
    """A problem joins its group's incident until this long after the incident's last new problem."""
    update_interval: Seconds = 300
    """At most one "incident updated" message per contact and medium this often."""
    retention: Seconds = 90 * 86400
    """A resolved incident (its record and timeline) is kept this long."""


class LoggingConfig(Section):
    """Log level, destination and format for the command line tools."""

    level: Annotated[Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"], BeforeValidator(_upper)] = "INFO"
    file: Text | None = None
    format: Text = "%(asctime)s %(levelname)s %(name)s: %(message)s"


class _Sections(Section):
    """The sections every Config has, as typed models."""

    redis: RedisConfig = RedisConfig()
    executive: ExecutiveConfig = ExecutiveConfig()
    web: WebConfig = WebConfig()
    logging: LoggingConfig = LoggingConfig()
    receivers: ReceiversConfig = ReceiversConfig()
    watchdog: WatchdogConfig = WatchdogConfig()
    schedules: SchedulesConfig = SchedulesConfig()
    analytics: AnalyticsConfig = AnalyticsConfig()
    incidents: IncidentsConfig = IncidentsConfig()


class _Document(_Sections):
    """A whole config file as validated; its `gateways` section is validated next, per medium (validate_gateways)."""

    gateways: Any = None


class Config(_Sections):
    """The whole configuration. `gateways` maps medium -> its validated settings (see gateways.base)."""

    gateways: Mapping[str, Mapping[str, Any]] = Field(default_factory=dict)

    def gateway(self, medium: str) -> Mapping[str, Any]:
        """Settings of one gateway ({} when not configured)."""
        return self.gateways.get(medium) or {}

    def gateway_enabled(self, medium: str) -> bool:
        """True when `gateways.<medium>.enabled` is true."""
        return bool(self.gateway(medium).get("enabled", False))


def load_config(source: Config | Mapping[str, Any] | None = None) -> Config:
    """Return a Config from parsed YAML (`None` = all defaults); raise ConfigError when bad."""
    if isinstance(source, Config):
        return source
    if source is None:
        source = {}
    if not isinstance(source, Mapping):
        raise ConfigError(f"config: expected a mapping of sections, got {type(source).__name__}")
    document = validated(_Document, {key: {} if value is None else value for key, value in expand_env(source).items()})
    sections = {name: getattr(document, name) for name in _Sections.model_fields}
    gateways = _with_api_base_url(validate_gateways(document.gateways), document.web.api_base_url)
    return Config(**sections, gateways=gateways)


def _with_api_base_url(gateways: dict[str, dict[str, Any]], base: str | None) -> dict[str, dict[str, Any]]:
    """Gateways whose settings have `api_base_url` (the API's public URL, for callbacks such as a call's
    keys) take `web.api_base_url` when they leave it unset."""
    if not base:
        return gateways
    return {medium: {**found, "api_base_url": base}
            if "api_base_url" in declaration(medium).settings.model_fields and not found.get("api_base_url")
            else found for medium, found in gateways.items()}


def read_config_file(path: str | os.PathLike[str] | None) -> Config:
    """Load and validate a YAML config file; None reads `FLAPJACK_CONFIG`, else the defaults."""
    path = path or os.environ.get("FLAPJACK_CONFIG")
    if not path:
        return _with_env_overrides(load_config(None))
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read config file: {exc.strerror}") from exc
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: not valid YAML: {exc}") from exc
    return _with_env_overrides(load_config(data))


def expand_env(value: Any) -> Any:
    """Replace `${VAR}` in every string of a nested structure; an unset variable is an error."""
    if isinstance(value, str):
        def repl(match: re.Match[str]) -> str:
            name = match.group(1)
            if name not in os.environ:
                raise ConfigError(f"environment variable {name} is not set (referenced as ${{{name}}})")
            return os.environ[name]
        return _ENV_REF.sub(repl, value)
    if isinstance(value, Mapping):
        return {k: expand_env(v) for k, v in value.items()}
    if isinstance(value, list):
        return [expand_env(v) for v in value]
    return value


def _with_env_overrides(config: Config) -> Config:
    url = os.environ.get("FLAPJACK_REDIS_URL")
    if not url:
        return config
    try:
        redis = validated(RedisConfig, {**config.redis.model_dump(), "url": url})
    except ConfigError as exc:
        raise ConfigError(f"FLAPJACK_REDIS_URL: {str(exc).partition(': ')[2]}") from None
    return config.model_copy(update={"redis": redis})
