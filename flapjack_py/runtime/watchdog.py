"""The watchdog: pages `watchdog.contacts` once when monitoring is down, once when it is back.

Every `flapjack server` (as its `flapjack watchdog` child) and every gateway
worker runs one (gateways.watchdog). Each
checks health every `watchdog.interval` s and remembers since when it has
seen it failing. After `watchdog.after` s of failing (or at the first healthy
check after a "down" alert) it takes the Redis lock, reads what was last
announced, and only when that differs sends the alert and records it: several
watchdogs page once. When Redis itself is unreachable there is no lock to
share, so each watchdog pages on its own (once) and announces the recovery.
The alert goes out through `send`, which the gateway layer provides (it
delivers directly, without the executive or the rq queues).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum

import redis
import requests

from flapjack_py.config.settings import Config
from flapjack_py.runtime.health import Health, check_health
from flapjack_py.store import health as health_store
from flapjack_py.store.health import WatchdogState
from flapjack_py.store.plumbing.client import StrRedis

log = logging.getLogger(__name__)

PING_TIMEOUT = 10.0
"""Seconds to wait for the ping URL."""


class Announcement(StrEnum):
    """What the watchdog tells its contacts."""

    DOWN = "down"
    BACK = "back"


@dataclass(frozen=True)
class Notice:
    """One message for the watchdog contacts."""

    kind: Announcement
    reasons: tuple[str, ...]
    since: int  # unix time the failure (or the recovery) was first seen

    @property
    def subject(self) -> str:
        return "Flapjack: monitoring is down" if self.kind == Announcement.DOWN else "Flapjack: monitoring is back"

    @property
    def body(self) -> str:
        when = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(self.since))
        if self.kind == Announcement.BACK:
            return f"Monitoring is working again (healthy since {when})."
        lines = [f"Monitoring is down since {when}: alerts may not be sent.", ""]
        return "\n".join(lines + [f"- {reason}" for reason in self.reasons])


Sender = Callable[[Notice], None]
"""Delivers a Notice to every watchdog contact; raises when nothing could be delivered."""


def due(healthy: bool, failing_since: float | None, now: float, after: int) -> Announcement | None:
    """What this watchdog should announce, if the last announcement differs (pure)."""
    if healthy:
        return Announcement.BACK
    if failing_since is not None and now - failing_since >= after:
        return Announcement.DOWN
    return None


class Watchdog:
    """Checks health and announces changes; `tick()` is one round (gateways.watchdog loops it)."""

    def __init__(self, client: StrRedis, config: Config, send: Sender,
                 session: requests.Session | None = None) -> None:
        self.client = client
        self.config = config
        self.cfg = config.watchdog
        self.send = send
        self.session = session or requests.Session()
        self.failing_since: float | None = None
        self.paged_alone = False  # sent "down" while Redis was unreachable (no shared state recorded)

    def tick(self, now: float | None = None) -> Health:
        """One round: check health, announce a change when due, ping when healthy."""
        now = time.time() if now is None else now
        health = check_health(self.client, self.config, int(now))
        if health.ok:
            self.failing_since = None
        elif self.failing_since is None:
            self.failing_since = now
            log.warning("watchdog: health failing: %s", "; ".join(health.reasons))
        kind = due(health.ok, self.failing_since, now, self.cfg.after)
        if kind is not None:
            self._announce(kind, health, now)
        if health.ok and self.cfg.ping_url:
            self._ping()
        return health

    def _announce(self, kind: Announcement, health: Health, now: float) -> None:
        try:
            if not self._differs(kind, health_store.load_watchdog_state(self.client)):
                return  # already announced: no lock needed
            lock = health_store.watchdog_lock(self.client)
            if not lock.acquire():
                return  # another watchdog is deciding right now
        except redis.RedisError:
            self._announce_alone(kind, health, now)
            return
        try:
            self._announce_shared(kind, health, now)
        finally:
            try:
                lock.release()
            except redis.RedisError:
                log.warning("watchdog: could not release the lock (it expires by itself)")

    def _announce_shared(self, kind: Announcement, health: Health, now: float) -> None:
        if not self._differs(kind, health_store.load_watchdog_state(self.client)):
            return
        wanted = "down" if kind == Announcement.DOWN else "ok"
        since = int(self.failing_since or now) if kind == Announcement.DOWN else int(now)
        self._deliver(Notice(kind, health.reasons, since))
        self.paged_alone = False
        health_store.save_watchdog_state(self.client, WatchdogState(wanted, since, list(health.reasons)))

    def _differs(self, kind: Announcement, state: WatchdogState) -> bool:
        """True when `kind` is news: not what was last announced (or a recovery after paging alone)."""
        if kind == Announcement.BACK:
            return state.status != "ok" or self.paged_alone
        return state.status != "down"

    def _announce_alone(self, kind: Announcement, health: Health, now: float) -> None:
        """Redis is unreachable: page once from this process; the recovery is announced through Redis."""
        if kind == Announcement.DOWN and not self.paged_alone:
            self._deliver(Notice(kind, health.reasons, int(self.failing_since or now)))
            self.paged_alone = True

    def _deliver(self, notice: Notice) -> None:
        log.warning("watchdog: monitoring is %s; paging %s", notice.kind, ", ".join(self.cfg.contacts) or "nobody")
        self.send(notice)

    def _ping(self) -> None:
        try:
            if not health_store.claim_ping(self.client, self.cfg.ping_interval):
                return
        except redis.RedisError:
            return
        try:
            self.session.get(str(self.cfg.ping_url), timeout=PING_TIMEOUT).raise_for_status()
        except requests.RequestException as exc:
            log.warning("watchdog: ping failed: %s", type(exc).__name__)
