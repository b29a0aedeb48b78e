"""Is monitoring itself working? One answer for /api/health, the UI banner and the watchdog.

`check_health` reads (flapjack_py.store.health) and `assess` decides (pure):
failing when Redis is unreachable, no executive heartbeat is fresh, the oldest
queued event waited longer than `watchdog.max_queue_age`, or an enabled
gateway has no live worker or keeps failing alerts. A gateway whose server
refuses (its circuit breaker is open) is a warning: its alerts wait, held.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

import redis

from flapjack_py.config.settings import Config
from flapjack_py.model.delivery import refusing_text
from flapjack_py.model.heartbeat import Heartbeat
from flapjack_py.store.health import HealthInputs, load_health_inputs
from flapjack_py.store.plumbing.client import StrRedis
from flapjack_py.store.queues import FAILURE_TTL

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Health:
    """The verdict: `ok`, the reasons it is not, and the figures behind it."""

    ok: bool
    reasons: tuple[str, ...] = ()
    checks: int | None = None  # None when Redis could not be read
    executives: int = 0
    last_executive_age: int | None = None  # seconds since any executive's last beat
    queue_length: int = 0
    queue_age: int = 0
    gateways: dict[str, dict[str, int]] = field(default_factory=dict)
    warnings: tuple[str, ...] = ()  # degraded but working: a housekeeping chore overran, a gateway's server refuses

    @property
    def status(self) -> str:
        """`ok` or `failing`."""
        return "ok" if self.ok else "failing"

    def to_json(self) -> dict[str, Any]:
        """The /api/health body: no host names, addresses or settings."""
        return {"status": self.status, "reasons": list(self.reasons), "checks": self.checks,
                "executives": {"alive": self.executives, "last_heartbeat_age": self.last_executive_age},
                "queue": {"length": self.queue_length, "oldest_age": self.queue_age},
                "gateways": self.gateways, "warnings": list(self.warnings)}


def check_health(client: StrRedis, config: Config, now: int) -> Health:
    """Read Redis and assess; an unreachable Redis is itself a failing answer, never an exception."""
    wd = config.watchdog
    media = enabled_media(config)
    try:
        inputs = load_health_inputs(client, config.executive.queue, media, now, wd.failure_window, FAILURE_TTL)
    except redis.RedisError as exc:
        log.warning("health: Redis unreachable: %s", exc)
        return Health(ok=False, reasons=(f"Redis is unreachable ({type(exc).__name__}) "  # the message may name
                                         "— events are not being processed",))  # its address: logged only
    return assess(inputs, config, now)


def assess(inputs: HealthInputs, config: Config, now: int) -> Health:
    """The verdict on what was read (pure)."""
    wd = config.watchdog
    fresh = [b for b in inputs.executives if now - b.at <= wd.heartbeat_timeout]
    last_age = None if inputs.last_executive_beat is None else max(now - inputs.last_executive_beat, 0)
    reasons = []
    if not fresh:
        reasons.append(_no_executive(last_age))
    if inputs.queue_length and inputs.queue_age > wd.max_queue_age:
        reasons.append(f"The oldest queued event has waited {span(inputs.queue_age)} "
                       f"({inputs.queue_length} queued) — events are not being processed in time")
    gateways = {}
    refusing = []
    for medium in enabled_media(config):
        workers = [b for b in inputs.gateways.get(medium, []) if now - b.at <= wd.heartbeat_timeout]
        failed = inputs.recent_failures.get(medium, 0)
        gateways[medium] = {"workers": len(workers), "recent_failures": failed}
        if not workers:
            reasons.append(f"Gateway {medium} has no live worker — {medium} alerts are not being delivered")
        if failed >= wd.max_failures:
            reasons.append(f"Gateway {medium}: {failed} alerts failed in the last {span(wd.failure_window)}")
        breaker = inputs.breakers.get(medium)
        if breaker is not None:
            waiting = inputs.waiting.get(medium, 0)
            gateways[medium] |= {"refusing_since": int(breaker.since), "waiting": waiting}
            refusing.append(refusing_text(medium, breaker, waiting, now))
    return Health(ok=not reasons, reasons=tuple(reasons), checks=inputs.checks, executives=len(fresh),
                  last_executive_age=last_age, queue_length=inputs.queue_length, queue_age=inputs.queue_age,
                  gateways=gateways, warnings=(*_slow_chores(fresh, now), *refusing))


SLOW_CHORE_SHOWN = 600
"""Seconds an executive's overrun housekeeping chore is shown in the health answer's warnings."""


def _slow_chores(executives: list[Heartbeat], now: int) -> list[str]:
    return [f"An executive (pid {b.pid}): housekeeping chore {b.slow_chore} took {b.slow_chore_seconds:.1f} s "
            f"{span(max(now - b.slow_chore_at, 0))} ago — events waited meanwhile"
            for b in executives if b.slow_chore and now - b.slow_chore_at <= SLOW_CHORE_SHOWN]


def enabled_media(config: Config) -> list[str]:
    """The gateways configured as enabled, sorted."""
    return sorted(m for m in config.gateways if config.gateway_enabled(m))


def span(seconds: int) -> str:
    """A short duration: `45 s`, `3 min`, `2 h`, `3 days`."""
    if seconds < 120:
        return f"{seconds} s"
    if seconds < 2 * 3600:
        return f"{seconds // 60} min"
    if seconds < 2 * 86400:
        return f"{seconds // 3600} h"
    return f"{seconds // 86400} days"


def _no_executive(last_age: int | None) -> str:
    if last_age is None:
        return "No executive has run yet — events are not being processed and alerts are not being sent"
    return f"No executive has processed events for {span(last_age)} — alerts are not being sent"
