"""The watchdog's delivery: "monitoring is down/back" straight to `watchdog.contacts` through their media.

`ContactSender` sends through this process's own gateway senders (built from
the gateway settings), never through the rq queues or the executive, which
may be what is down. The contacts' media are read from Redis and kept, so a
page still goes out while Redis is unreachable. `flapjack watchdog` runs
`run_watchdog`; gateway workers call `start_watchdog` (a daemon thread).
"""

from __future__ import annotations

import logging
import threading
import time
import uuid

import redis

from flapjack_py.config.settings import Config
from flapjack_py.errors import ConfigError
from flapjack_py.model.alert import Alert
from flapjack_py.runtime.connection import open_clients
from flapjack_py.runtime.watchdog import Announcement, Notice, Watchdog
from flapjack_py.store import media as media_store
from flapjack_py.store.plumbing.client import StrRedis

from . import base

log = logging.getLogger(__name__)

WATCHDOG_CHECK = "flapjack:watchdog"
"""The `check` the watchdog's alerts are about (entity `flapjack`)."""


class ContactSender:
    """Sends a Notice to every medium of every watchdog contact; raises when none could be reached."""

    def __init__(self, client: StrRedis, config: Config) -> None:
        self.client = client
        self.config = config
        self.targets: list[tuple[str, str, str]] = []  # (contact id, medium, address), last read from Redis
        self._gateways: dict[str, base.Gateway | None] = {}
        self.refresh()

    def refresh(self) -> None:
        """Re-read the contacts' media (kept as they were when Redis cannot be read)."""
        try:
            self.targets = [(cid, medium.type, medium.address)
                            for cid in self.config.watchdog.contacts
                            for medium in media_store.load_media(self.client, cid, include_pagerduty=False).values()
                            if medium.address]
        except redis.RedisError as exc:
            log.warning("watchdog: cannot read the contacts' media (%s); using the last known", type(exc).__name__)

    def __call__(self, notice: Notice) -> None:
        if not self.targets:
            log.error("watchdog: no medium to page (watchdog.contacts: %s)", list(self.config.watchdog.contacts))
            return
        sent = 0
        for contact_id, medium, address in self.targets:
            gateway = self._gateway(medium)
            if gateway is None:
                continue
            try:
                gateway.send(self._alert(notice, contact_id, medium, address))
                sent += 1
                log.info("watchdog: '%s' sent to contact %s by %s", notice.subject, contact_id, medium)
            except Exception as exc:  # noqa: BLE001 -- one medium failing must not stop the others
                log.error("watchdog: sending to contact %s by %s failed: %s", contact_id, medium,
                          base.redact(base.describe(exc), gateway.settings))
        if not sent:
            raise base.GatewayError("watchdog: the alert reached no contact; trying again next round")

    def close(self) -> None:
        for gateway in self._gateways.values():
            if gateway is not None:
                gateway.close()

    def _gateway(self, medium: str) -> base.Gateway | None:
        if medium not in self._gateways:
            try:
                self._gateways[medium] = base.open_gateway(medium, self.config)
            except ConfigError as exc:
                log.warning("watchdog: cannot page by %s: %s", medium, exc)
                self._gateways[medium] = None
        return self._gateways[medium]

    @staticmethod
    def _alert(notice: Notice, contact_id: str, medium: str, address: str) -> Alert:
        down = notice.kind == Announcement.DOWN
        return {"id": f"watchdog-{uuid.uuid4().hex}", "timestamp": int(time.time()), "time": notice.since,
                "contact": contact_id, "media": medium, "address": address, "check": WATCHDOG_CHECK,
                "type": "problem" if down else "recovery", "rollup": "", "state": "critical" if down else "ok",
                "summary": notice.subject, "details": notice.body, "subject": notice.subject, "body": notice.body}


def start_watchdog(client: StrRedis, config: Config, stop: threading.Event) -> threading.Thread:
    """Run a watchdog in a daemon thread of this process until `stop` is set."""
    thread = threading.Thread(target=_loop, args=(client, config, stop), name="watchdog", daemon=True)
    thread.start()
    return thread


def run_watchdog(config: Config) -> int:
    """`flapjack watchdog`: run until SIGTERM/SIGINT; exit code."""
    import signal

    stop = threading.Event()
    previous = {sig: signal.signal(sig, lambda *_: stop.set()) for sig in (signal.SIGTERM, signal.SIGINT)}
    clients, embedded = open_clients(config)
    try:
        _loop(clients.text, config, stop)
        return 0
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        if embedded:
            embedded.stop()


def _loop(client: StrRedis, config: Config, stop: threading.Event) -> None:
    sender = ContactSender(client, config)
    watchdog = Watchdog(client, config, sender)
    try:
        while not stop.is_set():
            try:
                if watchdog.tick().ok:
                    sender.refresh()
            except Exception:  # noqa: BLE001 -- one round is a loop boundary
                log.exception("watchdog: round failed")
            stop.wait(config.watchdog.interval)
    finally:
        sender.close()
