"""Shared plumbing of every delivery gateway: settings, errors, delivery bookkeeping, redaction, HTTP.

How a medium plugs in
---------------------
A medium is declared in one place, its module `gateways/<module>.py`: a
`Declaration` (its medium name, its settings model, a subclass of
flapjack_py.config.gateways.GatewaySettings, and its sender) named under the
`flapjack_py.gateways` entry points in pyproject.toml (`medium = "module:GATEWAY"`).
Config validation, the notifier, the web app and the worker all learn the media
from there (flapjack_py.config.media); alert wording, when a medium has its own,
is the engine's, in flapjack_py/templates/<medium>/.

* **A sender** (most media): a subclass of `Gateway`, the declaration's `sender`. It
  lists its `required` settings and implements `send(alert)` (an `Alert`,
  flapjack_py.model.alert: the job's payload, checked once by the worker), raising
  `TransientError` (worth retrying: network down, 429, 5xx) or `PermanentError`
  (retrying cannot help: 4xx, 5xx SMTP reply). Transports (an SMTP connection,
  a `requests.Session`, a boto3 client) are built in `__init__` or passed in, and
  live as long as the worker process. That is all a medium does: the worker
  (`gateways.worker`) takes jobs off the medium's rq queue and calls
  `deliver_alert`, which sends, records `delivered`/`failed`, logs with the alert
  id, redacts secrets and decides on retries.
* **A long-lived transport** (an XMPP client that must stay connected and also
  reads input): a module `gateways.<medium>` with `run(config, burst) -> int`, the
  declaration's `run`. `gateways.worker.run_gateway` hands the process to it
  (jabber). Such a module still uses this plumbing: `gateway_settings()` to
  validate its config, `deliver_alert()` (with any object having `medium` and
  `send(alert)`) or `record_delivered()`/`record_failed()` for the alert
  records, and `redact()` for log and error text. It may drain its rq queue with
  `gateways.worker.make_worker()` in a thread, or run its own loop.
"""

from __future__ import annotations

import logging
import os
import re
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any, ClassVar

import requests

from flapjack_py.config import media
from flapjack_py.config.gateways import GatewaySettings
from flapjack_py.config.redaction import SECRET_SETTING
from flapjack_py.config.settings import Config
from flapjack_py.errors import ConfigError, FlapjackError, InvalidAlert
from flapjack_py.model.alert import Alert, alert_from_json
from flapjack_py.store import alerts as alert_store
from flapjack_py.store.alerts import AlertStatus
from flapjack_py.store.plumbing.client import StrRedis

log = logging.getLogger(__name__)

SECRET_KEY = SECRET_SETTING
"""Setting names whose values are secrets (redacted everywhere)."""
HTTP_TIMEOUT = 10.0
"""Seconds an HTTP gateway waits for a connection or a reply (setting `timeout`)."""
MAX_RETRY_AFTER = 3600
"""Longest `Retry-After` honoured, in seconds."""
REDACTED = "[redacted]"


class GatewayError(FlapjackError):
    """Raised by a gateway's send() when an alert could not be delivered."""


class TransientError(GatewayError):
    """Raised when a later try may succeed (network, 429, 5xx); `retry_after` in seconds if known."""

    def __init__(self, message: str, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class PermanentError(GatewayError):
    """Raised when retrying cannot help (rejected request, bad address, 5xx SMTP reply)."""


class DeliveryFailed(GatewayError):
    """Raised by deliver_alert after a failed try that should be retried (message redacted)."""

    def __init__(self, message: str, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class Gateway:
    """A medium's sender: subclasses set `medium`, `required`, and implement send()."""

    medium: ClassVar[str] = ""
    required: ClassVar[tuple[str, ...]] = ()
    """Settings (dotted inside the gateway's section) that must be present."""
    server: ClassVar[str] = "server"
    """What it sends to, in the health warning while that refuses (`SMTP`, `PagerDuty`)."""
    store: StrRedis | None = None
    """The Redis client its deliveries are recorded through, set before each send (chat gateways remember the
    messages they post: flapjack_py.store.chat)."""
    idempotent: ClassVar[bool] = False
    """Whether the far end takes the same alert sent twice as one (PagerDuty: one dedup_key per check)."""
    commit: threading.Lock | None = None
    """Shared by the senders of one worker (gateways/batch.py Senders, concurrency > 1): held from a send's point
    of no return (no_return()) until its alert's status is recorded, so a kill finds at most one alert accepted
    by the server and not yet recorded, however many are being sent at once."""
    _holding = False

    def __init__(self, settings: Mapping[str, Any], session: requests.Session | None = None) -> None:
        self.settings = settings
        self.session = session or http_session()

    @property
    def poll_interval(self) -> float:
        """Seconds between poll() calls while the worker runs (0 = never); once per burst run."""
        return 0.0

    def send(self, alert: Alert) -> None:
        """Deliver one alert; raise TransientError or PermanentError on failure."""
        raise NotImplementedError

    def poll(self, client: StrRedis) -> int:
        """Periodic work besides delivery (PagerDuty ack sync); runs in its own thread with its own instance."""
        return 0

    def close(self) -> None:
        """Release the transport (called when the worker stops)."""
        self.session.close()

    def no_return(self) -> None:
        """Called by send() just before the step after which the server may have the alert (the end of an SMTP
        DATA, an HTTP request): waits for the worker's commit lock, released once the status is recorded
        (recorded())."""
        if self.commit is not None and not self._holding:
            self.commit.acquire()
            self._holding = True

    def recorded(self) -> None:
        """The try's status is recorded (or it failed before its point of no return): release the commit lock."""
        if self._holding and self.commit is not None:
            self._holding = False
            self.commit.release()

    def post(self, url: str, **kwargs: Any) -> requests.Response:
        """POST with this gateway's timeout; see http_request(). Its point of no return is the request, unless the
        far end is idempotent."""
        if not self.idempotent:
            self.no_return()
        return http_request(self.session, "POST", url, timeout=self.timeout, **kwargs)

    def get(self, url: str, **kwargs: Any) -> requests.Response:
        """GET with this gateway's timeout; see http_request()."""
        return http_request(self.session, "GET", url, timeout=self.timeout, **kwargs)

    @property
    def timeout(self) -> float:
        """Seconds to wait on the network (setting `timeout`)."""
        return float(self.settings.get("timeout", HTTP_TIMEOUT))


@dataclass(frozen=True)
class Declaration(media.GatewayDeclaration):
    """A gateway as its module declares it (`GATEWAY`, named in pyproject.toml's `flapjack_py.gateways` entry
    points): the engine's part (medium, settings model) and its sender class, or `run` for a medium that
    brings its own long-lived loop (jabber)."""

    sender: type[Gateway] | None = None
    run: Callable[[Config, bool], int] | None = None

    def __post_init__(self) -> None:
        if self.sender is not None and self.sender.medium != self.medium:
            raise ValueError(f"{self.sender.__name__} sends {self.sender.medium!r}, not {self.medium!r}")

    @classmethod
    def of(cls, sender: type[Gateway], settings: type[GatewaySettings]) -> Declaration:
        """The declaration of a sender's medium (named by the sender's `medium`)."""
        return cls(sender.medium, settings, sender=sender)


def declaration(medium: str) -> Declaration:
    """The declaration of a registered medium (flapjack_py.config.media); ConfigError naming it when none."""
    found = media.declaration(medium)
    if not isinstance(found, Declaration):
        raise ConfigError(f"gateways.{medium}: declared by a {type(found).__name__}, not a gateways.base.Declaration")
    return found


def gateway_class(medium: str) -> type[Gateway]:
    """The sender class of a medium; ConfigError when there is none."""
    sender = declaration(medium).sender
    if sender is None:
        raise ConfigError(f"gateways.{medium}: delivered by its own process (flapjack gateway {medium}), "
                          "not by an rq worker's sender")
    return sender


def gateway_settings(config: Config, medium: str, required: tuple[str, ...] = ()) -> Mapping[str, Any]:
    """The settings of an enabled gateway, every `required` (dotted) key present; else ConfigError naming it."""
    if medium not in config.gateways:
        raise ConfigError(f"gateways.{medium}: gateway not configured (add a gateways.{medium} section with "
                          "enabled: true; see config.example.yml)")
    settings = config.gateway(medium)
    if not settings.get("enabled", False):
        raise ConfigError(f"gateways.{medium}.enabled: gateway not enabled (set it to true)")
    for dotted in required:
        if _lookup(settings, dotted) in (None, ""):
            raise ConfigError(f"gateways.{medium}.{dotted}: required setting missing")
    return settings


def open_gateway(medium: str, config: Config, session: requests.Session | None = None) -> Gateway:
    """Validate a medium's settings and build its sender."""
    cls = gateway_class(medium)
    return cls(gateway_settings(config, medium, cls.required), session=session)


@dataclass(frozen=True)
class Outcome:
    """How one try at an alert went: its new status (`queued` = to be retried) and the (redacted) error."""

    status: str
    error: str | None = None
    retry_after: float | None = None
    skipped: bool = False
    """Already delivered (a retry after a crash): nothing to record."""
    gave_up: bool = False
    """`failed` after a failure that may pass, because it was the last try."""


def deliver_alert(gateway: Gateway, alert: Alert, client: StrRedis, *, last_try: bool) -> str:
    """Send one alert and record the outcome on `alert:ID`; return the status.

    Already-delivered alerts (a retry after a crash) are skipped. A permanent
    failure, or any failure on the last try, records `failed` with the
    (redacted) reason. Other failures record the reason, keep `queued`, and
    raise DeliveryFailed so the queue retries.
    """
    gateway.store = client
    previous = alert_store.load_statuses(client, [alert["id"]])[alert["id"]]
    outcome = attempt(gateway, alert, previous.status if previous else None, last_try=last_try)
    change = None if outcome.skipped else record_outcome(client, alert["id"], previous, outcome)
    if change is not None:
        alert_store.count_statuses_now(client, [change])
    if outcome.status == AlertStatus.QUEUED:
        raise DeliveryFailed(outcome.error or "", outcome.retry_after)
    return outcome.status


def attempt(gateway: Gateway, alert: Alert, status: str | None, *, last_try: bool) -> Outcome:
    """Send one alert whose record has `status` (None: no record) and log how it went; nothing is recorded.

    Failures are `failed` when permanent or on the last try, else `queued` (to be retried)."""
    alert_id = alert["id"]
    if status == AlertStatus.DELIVERED:
        log.info("alert %s: already delivered, skipped", alert_id)
        return Outcome(AlertStatus.DELIVERED, skipped=True)
    if not alert["address"]:
        return _failed(alert, "no address for this medium", gateway.settings)
    started = time.monotonic()
    try:
        gateway.send(alert)
    except PermanentError as exc:
        return _failed(alert, describe(exc), gateway.settings)
    except Exception as exc:  # noqa: BLE001 -- one gateway job is a loop boundary
        reason = redact(describe(exc), gateway.settings)
        if last_try:
            return replace(_failed(alert, reason, gateway.settings), gave_up=True)
        log.warning("alert %s (%s): delivery failed, will retry: %s", alert_id, gateway.medium, reason,
                    extra={"alert_id": alert_id, "check": alert["check"]})
        return Outcome(AlertStatus.QUEUED, reason, getattr(exc, "retry_after", None))
    _log_delivered(alert, time.monotonic() - started)
    return Outcome(AlertStatus.DELIVERED)


def record_outcome(client: StrRedis, alert_id: str, previous: alert_store.StatusFields | None,
                   outcome: Outcome) -> alert_store.StatusChange | None:
    """Record an attempt's outcome on `alert:ID` at once, in one command (`previous`: the record as it was read
    before the try); the change, whose metrics the caller counts (alert_store.count_statuses), or None when the
    record is gone."""
    if previous is None:
        log.warning("alert %s: no record (expired?); status %s not stored", alert_id, outcome.status)
        return None
    return alert_store.record_status(client, alert_id, previous, outcome.status, error=outcome.error)


def record_delivered(client: StrRedis, alert: Alert, elapsed: float = 0.0) -> str:
    """Set the alert's status to `delivered` (with `delivered_at`) and log it."""
    alert_store.set_status(client, alert["id"], AlertStatus.DELIVERED)
    _log_delivered(alert, elapsed)
    return AlertStatus.DELIVERED


def record_failed(client: StrRedis, alert: Alert, reason: str, settings: Mapping[str, Any] | None = None) -> str:
    """Set the alert's status to `failed` with the redacted reason as `error`, and log it."""
    outcome = _failed(alert, reason, settings or {})
    alert_store.set_status(client, alert["id"], AlertStatus.FAILED, error=outcome.error)
    return AlertStatus.FAILED


def _log_delivered(alert: Alert, elapsed: float) -> None:
    alert_id, check, contact = alert["id"], alert["check"], alert["contact"]
    # the address is not logged: for some media (apprise, webhooks) it holds a token
    log.info("alert %s: delivered by %s to contact %s for %s (%.0f ms)", alert_id, alert["media"], contact, check,
             elapsed * 1000, extra={"alert_id": alert_id, "check": check, "contact": contact})


def _failed(alert: Alert, reason: str, settings: Mapping[str, Any]) -> Outcome:
    """A failed outcome with the redacted reason, logged."""
    reason = redact(reason, settings)
    alert_id, check = alert["id"], alert["check"]
    log.error("alert %s: delivery by %s for %s failed: %s", alert_id, alert["media"], check, reason,
              extra={"alert_id": alert_id, "check": check})
    return Outcome(AlertStatus.FAILED, reason)


def record_failed_job(client: StrRedis, job_id: str, payload: object, reason: str) -> str:
    """Set the alert of a job that will not run again (its worker died) to `failed`: the alert its payload holds,
    or, when the payload is malformed, the record named by the job's id (an alert's job has its id)."""
    try:
        alert = alert_from_json(payload)
    except InvalidAlert as exc:
        log.error("alert %s: delivery failed: %s (%s)", job_id, reason, exc, extra={"alert_id": job_id})
        alert_store.set_status(client, job_id, AlertStatus.FAILED, error=reason)
        return AlertStatus.FAILED
    return record_failed(client, alert, reason)


def describe(exc: BaseException) -> str:
    """`ExceptionClass: message` (just the message for gateway errors)."""
    return str(exc) if isinstance(exc, GatewayError) else f"{type(exc).__name__}: {exc}"


def redact(text: str, settings: Mapping[str, Any]) -> str:
    """`text` with every secret setting's value (and URL passwords) replaced by [redacted]."""
    for secret in sorted(secrets(settings), key=len, reverse=True):
        text = text.replace(secret, REDACTED)
    return re.sub(r"(://[^/:@\s]+):[^/@\s]+@", rf"\1:{REDACTED}@", text)


def secrets(settings: Mapping[str, Any]) -> set[str]:
    """Values of the settings (at any depth) whose names look secret, 4+ characters long."""
    found: set[str] = set()
    for key, value in settings.items():
        if isinstance(value, Mapping):
            found |= secrets(value)
        elif SECRET_KEY.search(str(key)) and isinstance(value, (str, int)) and len(str(value)) >= 4:
            found.add(str(value))
    return found


PROXY_ENVIRONMENT = ("http_proxy", "https_proxy", "all_proxy", "no_proxy")
"""Environment variables (any case) requests reads for every request's proxy when its session trusts the
environment."""
CA_BUNDLE_ENVIRONMENT = ("REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE")
"""Environment variables requests takes the CA bundle from, in this order."""


def http_session() -> requests.Session:
    """A requests session for a gateway's keep-alive connections.

    requests reads the environment (proxy variables, ~/.netrc, CA bundle variables) again for every request:
    ~250 us of CPU per alert. When it names no proxy and there is no netrc file, the session does not look
    (`trust_env` off) and takes the CA bundle variable once, as requests would; else requests honours the
    environment as usual."""
    session = requests.Session()
    if not {name.lower() for name in os.environ} & set(PROXY_ENVIRONMENT) and not _netrc_exists():
        session.trust_env = False
        bundle = next((os.environ[name] for name in CA_BUNDLE_ENVIRONMENT if os.environ.get(name)), None)
        if bundle:
            session.verify = bundle
    return session


def _netrc_exists() -> bool:
    """Whether a netrc file requests would read exists (NETRC, ~/.netrc, ~/_netrc)."""
    candidates = [os.environ["NETRC"]] if os.environ.get("NETRC") else ["~/.netrc", "~/_netrc"]
    return any(os.path.exists(os.path.expanduser(path)) for path in candidates)


def http_request(session: requests.Session, method: str, url: str, *, timeout: float = HTTP_TIMEOUT,
                 ok: range = range(200, 300), **kwargs: Any) -> requests.Response:
    """Make an HTTP request; return the response when its status is in `ok`.

    Raises TransientError for network errors, 408, 429 and 5xx (with the
    `Retry-After` seconds when given) and PermanentError for other statuses.
    """
    try:
        response = session.request(method, url, timeout=timeout, **kwargs)
    except requests.RequestException as exc:
        raise TransientError(f"{method} {_origin(url)}: {type(exc).__name__}") from None
    if response.status_code in ok:
        return response
    reason = f"{method} {_origin(url)}: HTTP {response.status_code} {response.text[:200].strip()}"
    if response.status_code in (408, 429) or response.status_code >= 500:
        raise TransientError(reason, retry_after_seconds(response.headers.get("Retry-After")))
    raise PermanentError(reason)


def retry_after_seconds(value: str | None) -> float | None:
    """Seconds of a `Retry-After` header (delta-seconds or HTTP date), capped; None if absent/bad."""
    if not value:
        return None
    try:
        seconds = float(value)
    except ValueError:
        from email.utils import parsedate_to_datetime
        try:
            seconds = parsedate_to_datetime(value).timestamp() - time.time()
        except (TypeError, ValueError):
            return None
    return min(max(seconds, 0.0), MAX_RETRY_AFTER)


def _origin(url: str) -> str:
    """scheme://host[:port] of a URL: paths may hold tokens (webhooks), so only the origin is logged."""
    match = re.match(r"([a-z]+://)(?:[^@/]*@)?([^/?#]+)", url)
    return match.group(1) + match.group(2) if match else "?"


def _lookup(settings: Mapping[str, Any], dotted: str) -> Any:
    value: Any = settings
    for part in dotted.split("."):
        if not isinstance(value, Mapping):
            return None
        value = value.get(part)
    return value
