"""When a long-running executive lets Python's cyclic garbage collector run: while it waits for events.

A batch's events, alerts and rq jobs are freed by reference counting, so collections find little; but an
automatic one fires in the middle of whatever batch crosses its threshold, and with a large young
generation it paused the loop for tens of milliseconds (the push -> alert latency tail, issue 11); with
Python's default threshold they cost a fifth of the executive's CPU time on a stream of ok events. So
`start` freezes what boot created out of collections and turns automatic collection off; `idle` (called
before the executive blocks on an empty queue) collects the young generations once enough new objects
built up, and everything not frozen every FULL_EVERY seconds; `busy` (after each batch) collects only
when a long busy spell let the young generation grow past BUSY_MOST, so memory stays bounded in a storm.
"""

from __future__ import annotations

import gc
import logging
import time

log = logging.getLogger(__name__)

IDLE_LEAST = 2_000  # net new container objects before an idle collection (Python's default threshold: 700)
BUSY_MOST = 200_000  # net new container objects before a collection between two busy batches
FULL_EVERY = 300.0  # seconds between collections of every generation (a little at a time otherwise)


class GcPacing:
    """Collections moved to where they cost no latency. Not thread-aware: one per executive loop."""

    def __init__(self) -> None:
        self._full_at = 0.0
        self._was_enabled = True

    def start(self, freeze: bool = True) -> None:
        """Turn automatic collection off; with `freeze` (a long run), first collect once and freeze the
        survivors (modules, config, templates) out of every later collection."""
        self._was_enabled = gc.isenabled()
        if freeze:
            gc.collect()
            gc.freeze()
        gc.disable()
        self._full_at = time.monotonic()

    def stop(self) -> None:
        """Give collection back to Python (as it was before `start`)."""
        if self._was_enabled:
            gc.enable()

    def idle(self) -> None:
        """The queue is empty: a good moment to collect."""
        if time.monotonic() - self._full_at >= FULL_EVERY:
            gc.collect()
            self._full_at = time.monotonic()
        elif gc.get_count()[0] >= IDLE_LEAST:
            gc.collect(1)

    def busy(self) -> None:
        """Between two batches with more waiting: collect only if garbage could pile up."""
        if gc.get_count()[0] >= BUSY_MOST:
            gc.collect(1)
        elif time.monotonic() - self._full_at >= 2 * FULL_EVERY:
            gc.collect()
            self._full_at = time.monotonic()
