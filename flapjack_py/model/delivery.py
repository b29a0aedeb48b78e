"""How long a gateway keeps trying an alert, and its circuit breaker's backoff and words (pure).

An alert whose try fails for a reason that may pass (network, 4xx SMTP reply, HTTP 429/5xx) is tried again,
at the medium's `retry_intervals` (the last repeating), until it is `retry_max_age` old, counted from when it
was queued; then it fails with its last error. `retries: 0` turns retrying off (a failed try fails the alert).

While a medium's server refuses every try of a batch, its workers hold the alerts (no try spent) and send one
probe per backoff step: FIRST_STEP, doubling, at most MAX_STEP seconds (a `Retry-After` stretches a step).
gateways/breaker.py runs it; its state (BreakerState) lives in Redis (flapjack_py/store/breaker.py) for
/api/health and the status page (refusing_text).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

RETRY_MAX_AGE = 3600
"""Seconds after it was queued that an alert is no longer retried (setting `retry_max_age`)."""
FALLBACK_INTERVAL = 60
"""Seconds between tries of a job written without retry intervals (queued while its medium had `retries: 0`)."""
FIRST_STEP = 1.0
"""Seconds from the breaker opening to its first probe."""
MAX_STEP = 60.0
"""Longest step between two probes."""
DAY = 86400


@dataclass(frozen=True)
class RetryPolicy:
    """Whether a medium retries (`retries` > 0) and for how long (`retry_max_age`)."""

    retries: bool = True
    max_age: int = RETRY_MAX_AGE

    @classmethod
    def of(cls, settings: Mapping[str, Any]) -> RetryPolicy:
        """The policy of a gateway's settings (`gateways.<medium>`; defaults when unset)."""
        return cls(int(settings.get("retries", 3)) > 0, int(settings.get("retry_max_age") or RETRY_MAX_AGE))

    def keep_trying(self, queued_at: float | None, now: float) -> bool:
        """Whether an alert queued at `queued_at` (unknown: as young as can be) is tried again after a failure."""
        return self.retries and (queued_at is None or now - queued_at < self.max_age)

    def expired(self, queued_at: float | None, now: float) -> bool:
        """Whether a retried alert queued at `queued_at` is past `retry_max_age` (it fails with its last error)."""
        return self.retries and queued_at is not None and now - queued_at >= self.max_age


def next_step(step: float) -> float:
    """The backoff step after a failed probe: doubled, FIRST_STEP .. MAX_STEP."""
    return min(max(step * 2, FIRST_STEP), MAX_STEP)


def probe_delay(step: float, retry_after: float | None) -> float:
    """Seconds to the next probe: the step, or the server's `Retry-After` when longer."""
    return max(step, retry_after or 0.0)


@dataclass(frozen=True)
class BreakerState:
    """An open breaker: since when (unix time) the server refuses, the backoff step and next probe (unix time),
    the kind of server (`SMTP`, `PagerDuty`) and its last error (redacted)."""

    since: float
    step: float
    next_probe: float
    server: str = "server"
    error: str = ""


def parse_breaker(fields: Mapping[str, str]) -> BreakerState | None:
    """The state a breaker hash holds; None when empty (closed) or unreadable."""
    try:
        return BreakerState(float(fields["since"]), float(fields["step"]), float(fields["next_probe"]),
                            fields.get("server") or "server", fields.get("error") or "")
    except (KeyError, ValueError):
        return None


def refusing_text(medium: str, state: BreakerState, waiting: int, now: float) -> str:
    """`email: SMTP refusing since 03:12 UTC, 412 alerts waiting` (no address, no error text)."""
    alerts = "1 alert" if waiting == 1 else f"{waiting} alerts"
    return f"{medium}: {state.server} refusing since {clock(state.since, now)}, {alerts} waiting"


def clock(at: float, now: float) -> str:
    """`03:12 UTC`, or with the date when more than a day ago."""
    shape = "%H:%M UTC" if now - at < DAY else "%Y-%m-%d %H:%M UTC"
    return time.strftime(shape, time.gmtime(at))
