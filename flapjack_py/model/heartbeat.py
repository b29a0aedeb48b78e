"""A process's heartbeat: who it is and how far it got, as stored in its heartbeat key (pure).

Executives and gateway workers write one every few seconds into a key with a
TTL (flapjack_py.store.health.save_heartbeat); /api/health, the UI banner and
the watchdog read them back.
"""

from __future__ import annotations

import json
import logging
from dataclasses import asdict, dataclass

from flapjack_py import __version__

log = logging.getLogger(__name__)

BEAT_EVERY = 5.0
"""Seconds between two heartbeats of a process."""
BEAT_TTL = 30
"""Seconds a heartbeat key lives without a new beat."""


@dataclass
class Heartbeat:
    """One process's heartbeat. `role` is `executive` or `gateway`; `medium` names a gateway's medium."""

    role: str
    host: str
    pid: int
    started: int  # unix time the process started
    version: str = __version__
    medium: str = ""
    processed: int = 0  # events (executive) or alerts (gateway) handled since start
    last_batch: int | None = None  # unix time of the last batch / job, None before the first
    at: int = 0  # unix time of this beat
    slow_chore: str = ""  # executive: the last housekeeping chore that overran its budget
    slow_chore_seconds: float = 0.0  # how long it took
    slow_chore_at: int = 0  # unix time it ended

    def to_json(self) -> str:
        """The stored form."""
        return json.dumps(asdict(self), separators=(",", ":"))

    def overran(self, chore: str, seconds: float, now: float) -> None:
        """Record that housekeeping chore `chore` took `seconds`, more than its budget."""
        self.slow_chore, self.slow_chore_seconds, self.slow_chore_at = chore, round(seconds, 3), int(now)

    def done(self, count: int, now: float) -> None:
        """Count `count` more events or alerts handled at `now`."""
        self.processed += count
        self.last_batch = int(now)


def parse_heartbeat(text: str | bytes | None) -> Heartbeat | None:
    """A stored heartbeat, or None when absent or not one (an older executive stores a plain number)."""
    if not text:
        return None
    try:
        data = json.loads(text)
        return Heartbeat(**data) if isinstance(data, dict) else None
    except (ValueError, TypeError):
        return None
