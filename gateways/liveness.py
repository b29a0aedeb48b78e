"""What a long-running gateway worker does besides delivering: its heartbeat and a watchdog.

The heartbeat (gateway_heartbeat:MEDIUM:HOST:PID, flapjack_py.model.heartbeat) tells
/api/health that the medium has a live worker and how many alerts it handled;
the watchdog (gateways.watchdog) pages when monitoring is down.
"""

from __future__ import annotations

import contextlib
import logging
import os
import socket
import threading
import time
from collections.abc import Iterator

import redis

from flapjack_py.config.settings import Config
from flapjack_py.model.heartbeat import BEAT_EVERY, BEAT_TTL, Heartbeat
from flapjack_py.store import health as health_store
from flapjack_py.store.plumbing.client import StrRedis

from .watchdog import start_watchdog

log = logging.getLogger(__name__)


@contextlib.contextmanager
def alive(client: StrRedis, config: Config, medium: str) -> Iterator[Heartbeat]:
    """Beat every BEAT_EVERY s and run a watchdog while the block runs; yields the Heartbeat to count into."""
    beat = Heartbeat(role="gateway", host=socket.getfqdn(), pid=os.getpid(), started=int(time.time()), medium=medium)
    stop = threading.Event()
    _beat_once(client, beat)
    threading.Thread(target=_beat_until, args=(client, beat, stop), name=f"{medium}-heartbeat", daemon=True).start()
    start_watchdog(client, config, stop)
    try:
        yield beat
    finally:
        stop.set()
        with contextlib.suppress(redis.RedisError):
            health_store.remove_gateway_heartbeat(client, beat)


def _beat_until(client: StrRedis, beat: Heartbeat, stop: threading.Event) -> None:
    while not stop.wait(BEAT_EVERY):
        _beat_once(client, beat)


def _beat_once(client: StrRedis, beat: Heartbeat) -> None:
    beat.at = int(time.time())
    try:
        health_store.save_gateway_heartbeat(client, beat, BEAT_TTL)
    except redis.RedisError as exc:
        log.warning("gateway %s: heartbeat failed: %s", beat.medium, type(exc).__name__)
