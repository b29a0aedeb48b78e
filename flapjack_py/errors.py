"""The exception tree of flapjack-py."""

from __future__ import annotations


class FlapjackError(Exception):
    """Base class of every error flapjack-py raises on purpose."""


class ConfigError(FlapjackError):
    """Raised when a config file is unreadable or a setting is unknown, mistyped or out of range."""


class InvalidEvent(FlapjackError):
    """Raised when an event fails parsing or validation; `errors` lists every reason."""

    def __init__(self, errors: list[str]) -> None:
        super().__init__("; ".join(errors))
        self.errors = errors


class InvalidDuration(FlapjackError):
    """Raised when a human duration ("4 hours") cannot be parsed."""


class NotFound(FlapjackError):
    """Raised when a named contact, entity, check, rule or alert does not exist."""


class AlreadyExists(FlapjackError):
    """Raised when creating something whose id is already taken."""


class ValidationError(FlapjackError):
    """Raised when data handed to the data layer or API is malformed."""


class RedisUnavailable(FlapjackError):
    """Raised when the configured Redis cannot be reached (refused, unknown host, wrong password)."""


class EmbeddedRedisError(FlapjackError):
    """Raised when the embedded Redis server cannot be found or started."""


class BenchError(FlapjackError):
    """Raised when `flapjack bench` cannot set up or run (no server, a non-empty database, a child died)."""


class FetchError(FlapjackError):
    """Raised when a document at a URL a user gave cannot be fetched safely (an internal address, unreachable,
    too slow, too large, an HTTP error); the message names the origin and the reason, never the URL's path,
    query or credentials, nor anything the server sent."""


class InvalidAlert(FlapjackError):
    """Raised when an alert payload (a delivery job's argument) misses a required field or has a wrongly typed
    one; `errors` lists every fault, `alert_id` names the alert when the payload has an id."""

    def __init__(self, errors: list[str], alert_id: str | None = None) -> None:
        about = f"alert {alert_id}" if alert_id else "alert payload"
        super().__init__(f"malformed {about}: {'; '.join(errors)}")
        self.errors = errors
        self.alert_id = alert_id
