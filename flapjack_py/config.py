"""Configuration: YAML overlaid on the defaults, validated, returned as frozen dataclasses.

Every default lives here; config.example.yml lists the same keys (a test keeps
the two in step). A bad setting raises ConfigError naming the key and the problem.
Strings of the form `${ENV_VAR}` are replaced by that environment variable.
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from .durations import parse_duration
from .errors import ConfigError, InvalidDuration

KNOWN_MEDIA = ("email", "sms", "sms_twilio", "sms_nexmo", "jabber", "pagerduty", "slack", "sns", "apprise")
"""Media an alert may be addressed to; anything else is logged and skipped."""

_ENV_REF = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


@dataclass(frozen=True)
class RedisConfig:
    """Where Redis is; with no url flapjack starts the embedded server."""

    url: str | None = None
    data_dir: str | None = None  # embedded server's data directory; None = user data dir
    embedded_binary: str | None = None  # path to a redis/valkey server binary; None = find one


@dataclass(frozen=True)
class ExecutiveConfig:
    """The event processor and notifier."""

    queue: str = "events"
    archive_events: bool = False
    events_archive_maxage: int = 10800  # seconds
    new_check_scheduled_maintenance_duration: int = 3_155_760_000  # "100 years"
    new_check_scheduled_maintenance_ignore_tags: tuple[str, ...] = ()
    default_contact_timezone: str = "UTC"
    initial_failure_delay: int = 30  # seconds
    repeat_failure_delay: int = 60  # seconds
    batch_size: int = 1000  # most events taken per round trip when the queue is deep
    alert_retention: int = 30 * 86400  # seconds alert history is kept
    notification_log_file: str | None = None  # "E:C | TYPE | CID | MEDIUM | ADDRESS" lines


@dataclass(frozen=True)
class WebConfig:
    """The JSON API and web UI."""

    bind: str = "127.0.0.1"
    port: int = 3080
    api_token: tuple[str, ...] = ()
    api_base_url: str | None = None
    threads: int = 8


@dataclass(frozen=True)
class LoggingConfig:
    """Log level, destination and format for the command line tools."""

    level: str = "INFO"
    file: str | None = None
    format: str = "%(asctime)s %(levelname)s %(name)s: %(message)s"


@dataclass(frozen=True)
class Config:
    """The whole configuration. `gateways` maps medium -> its settings (see gateways.base)."""

    redis: RedisConfig = field(default_factory=RedisConfig)
    executive: ExecutiveConfig = field(default_factory=ExecutiveConfig)
    web: WebConfig = field(default_factory=WebConfig)
    logging: LoggingConfig = field(default_factory=LoggingConfig)
    gateways: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)

    def gateway(self, medium: str) -> Mapping[str, Any]:
        """Settings of one gateway ({} when not configured)."""
        return self.gateways.get(medium) or {}

    def gateway_enabled(self, medium: str) -> bool:
        """True when `gateways.<medium>.enabled` is true."""
        return bool(self.gateway(medium).get("enabled", False))


_DURATION_KEYS = {
    "executive.events_archive_maxage",
    "executive.new_check_scheduled_maintenance_duration",
    "executive.initial_failure_delay",
    "executive.repeat_failure_delay",
    "executive.alert_retention",
}
_SECTIONS = {"redis": RedisConfig, "executive": ExecutiveConfig, "web": WebConfig, "logging": LoggingConfig}


def load_config(source: Config | Mapping[str, Any] | None = None) -> Config:
    """Return a Config from parsed YAML (`None` = all defaults); raise ConfigError when bad."""
    if isinstance(source, Config):
        return source
    if source is None:
        source = {}
    if not isinstance(source, Mapping):
        raise ConfigError(f"config: expected a mapping of sections, got {type(source).__name__}")
    data = expand_env(source)
    unknown = sorted(set(data) - set(_SECTIONS) - {"gateways"})
    if unknown:
        raise ConfigError(f"{unknown[0]}: unknown section (known: redis, executive, gateways, web, logging)")
    sections = {name: _load_section(name, cls, data.get(name)) for name, cls in _SECTIONS.items()}
    return Config(**sections, gateways=_load_gateways(data.get("gateways")))


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
    if url:
        return dataclasses.replace(config, redis=dataclasses.replace(config.redis, url=url))
    return config


def _load_section(name: str, cls: type, raw: Any) -> Any:
    if raw is None:
        return cls()
    if not isinstance(raw, Mapping):
        raise ConfigError(f"{name}: expected a mapping, got {type(raw).__name__}")
    fields = {f.name: f for f in dataclasses.fields(cls)}
    values = {}
    for key, value in raw.items():
        dotted = f"{name}.{key}"
        if key not in fields:
            raise ConfigError(f"{dotted}: unknown setting")
        values[key] = _coerce(dotted, fields[key], value)
    return cls(**values)


def _coerce(dotted: str, fld: dataclasses.Field[Any], value: Any) -> Any:
    default = fld.default
    if dotted in _DURATION_KEYS:
        try:
            return parse_duration(value)
        except InvalidDuration as exc:
            raise ConfigError(f"{dotted}: {exc}") from exc
    if dotted == "web.api_token":
        return _string_tuple(dotted, [value] if isinstance(value, str) else value)
    if isinstance(default, tuple):
        return _string_tuple(dotted, value)
    if value is None:
        if default is None:
            return None
        raise ConfigError(f"{dotted}: must not be empty")
    if isinstance(default, bool):
        if not isinstance(value, bool):
            raise ConfigError(f"{dotted}: expected true or false, got {value!r}")
        return value
    if isinstance(default, int):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ConfigError(f"{dotted}: expected a non-negative integer, got {value!r}")
        return value
    if not isinstance(value, str):
        raise ConfigError(f"{dotted}: expected a string, got {value!r}")
    return value


def _string_tuple(dotted: str, value: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{dotted}: expected a list of strings, got {value!r}")
    return tuple(value)


def _load_gateways(raw: Any) -> dict[str, dict[str, Any]]:
    if raw is None:
        return {}
    if not isinstance(raw, Mapping):
        raise ConfigError(f"gateways: expected a mapping of medium -> settings, got {type(raw).__name__}")
    gateways = {}
    for medium, settings in raw.items():
        dotted = f"gateways.{medium}"
        if medium not in KNOWN_MEDIA:
            raise ConfigError(f"{dotted}: unknown gateway (known: {', '.join(KNOWN_MEDIA)})")
        settings = settings or {}
        if not isinstance(settings, Mapping):
            raise ConfigError(f"{dotted}: expected a mapping, got {type(settings).__name__}")
        if not isinstance(settings.get("enabled", False), bool):
            raise ConfigError(f"{dotted}.enabled: expected true or false, got {settings['enabled']!r}")
        retries = settings.get("retries", 3)
        if isinstance(retries, bool) or not isinstance(retries, int) or retries < 0:
            raise ConfigError(f"{dotted}.retries: expected a non-negative integer, got {retries!r}")
        workers = settings.get("workers", 1)
        if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
            raise ConfigError(f"{dotted}.workers: expected a positive integer, got {workers!r}")
        gateways[medium] = dict(settings)
    return gateways
