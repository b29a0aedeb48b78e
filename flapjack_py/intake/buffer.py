"""The buffer between a receiver and Redis: bounded, retried with back-off, counted.

A reader calls `add` per event and `reject` per bad line (a pipe's reader: `feed_line`); a pusher thread sends the
buffer to Redis in batches with the counters. While Redis is unreachable the events
wait in memory (the outage is logged once) and the pusher retries with back-off; when
the buffer is full `add` blocks, so the reader stops reading its pipe instead of dropping.
"""

from __future__ import annotations

import json
import logging
import queue
import threading
import time
from collections import Counter
from collections.abc import Callable, Mapping
from typing import Any

import redis

from flapjack_py.intake import fifo
from flapjack_py.store.plumbing.client import StrRedis
from flapjack_py.store.receivers import REJECTED_PREFIX, push_batch

log = logging.getLogger(__name__)

DEFAULT_CAPACITY = 100_000
"""Events held while Redis is unreachable before the reader stops reading."""
BATCH = 500
"""Most events sent in one round trip."""
BACKOFF_START, BACKOFF_MAX = 0.1, 5.0
"""Seconds between retries while Redis is unreachable: doubling from the first to the second."""
FLUSH_EVERY = 1.0
"""Seconds between counter updates when no event arrives."""
SAMPLE_EVERY = 60.0
"""Seconds between two logged examples of the same rejection reason."""


class RejectSampler:
    """Log the first rejected line of each reason, then at most one per SAMPLE_EVERY seconds with the count between."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._last: dict[str, float] = {}
        self._since: Counter[str] = Counter()

    def note(self, reason: str, message: str, now: float) -> None:
        """Count one rejection; log it when it is the sample."""
        last = self._last.get(reason)
        if last is not None and now - last < SAMPLE_EVERY:
            self._since[reason] += 1
            return
        more = self._since.pop(reason, 0)
        self._last[reason] = now
        log.warning("%s: rejected line (%s)%s: %s", self.name, reason,
                    f", {more} more since the last one logged" if more else "", message[:500])


class Intake:
    """Events on their way from one receiver (`name`) to the queue; start() the pusher, close() at the end."""

    def __init__(self, client: StrRedis, name: str, queue_name: str = "events",
                 capacity: int = DEFAULT_CAPACITY) -> None:
        self.client, self.name, self.queue_name = client, name, queue_name
        self._buffer: queue.Queue[str] = queue.Queue(capacity)
        self._counts: Counter[str] = Counter()
        self._lock = threading.Lock()
        self._closing = threading.Event()
        self._sampler = RejectSampler(name)
        self._thread = threading.Thread(target=self._run, name=f"{name}-intake", daemon=True)
        self._full_logged = False
        self._give_up_at = float("inf")

    def start(self) -> Intake:
        """Start the pusher thread."""
        self._thread.start()
        return self

    def add(self, event: Mapping[str, Any], read: bool = True) -> None:
        """Buffer an event (counting a line read unless `read` is false); blocks while the buffer is full."""
        if read:
            self.count_read()
        text = json.dumps(dict(event))
        try:
            self._buffer.put_nowait(text)
        except queue.Full:
            if not self._full_logged:
                log.warning("%s: buffer full (%d events): not reading until Redis takes them",
                            self.name, self._buffer.maxsize)
                self._full_logged = True
            self._buffer.put(text)

    def count_read(self) -> None:
        """Count an input taken in (a line, a request) that is not an event of its own."""
        self._count("read")

    def reject(self, reason: str, message: str) -> None:
        """Count a line read and rejected for `reason`; log a sample of `message`."""
        self._count("read", "rejected", REJECTED_PREFIX + reason)
        self._sampler.note(reason, message, time.monotonic())

    @property
    def waiting(self) -> int:
        """Events buffered, not yet in Redis."""
        return self._buffer.qsize()

    def close(self, timeout: float = 5.0) -> int:
        """Send what is buffered (trying for up to `timeout` s); return how many events could not be sent."""
        self._give_up_at = time.monotonic() + timeout
        self._closing.set()
        self._thread.join(timeout + 1)
        left = self._buffer.qsize()
        if left:
            log.error("%s: stopping with %d events not sent (Redis unreachable)", self.name, left)
        return left

    # --- pusher ------------------------------------------------------------

    def _count(self, *fields: str) -> None:
        with self._lock:
            for name in fields:
                self._counts[name] += 1

    def _run(self) -> None:
        while True:
            batch = self._take()
            closing = not batch and self._closing.is_set()
            if not self._send(batch, self._take_counts()) or closing:
                return

    def _take(self) -> list[str]:
        try:
            batch = [self._buffer.get(timeout=0.1 if self._closing.is_set() else FLUSH_EVERY)]
        except queue.Empty:
            return []
        while len(batch) < BATCH:
            try:
                batch.append(self._buffer.get_nowait())
            except queue.Empty:
                break
        return batch

    def _take_counts(self) -> Counter[str]:
        with self._lock:
            counts, self._counts = self._counts, Counter()
        return counts

    def _send(self, batch: list[str], counts: Counter[str]) -> bool:
        """Push one batch, retrying with back-off until Redis takes it; False when closing gave up."""
        counts["pushed"] += len(batch)
        wait, down_since = BACKOFF_START, None
        while True:
            try:
                push_batch(self.client, self.name, batch, counts, time.time(), self.queue_name)
            except (redis.ConnectionError, redis.TimeoutError, redis.BusyLoadingError, OSError) as exc:
                if down_since is None:
                    down_since = time.monotonic()
                    log.warning("%s: Redis unreachable (%s); holding events and retrying", self.name, exc)
                if self._closing.is_set() and time.monotonic() >= self._give_up_at:
                    self._put_back(batch)
                    return False
                time.sleep(wait)
                wait = min(wait * 2, BACKOFF_MAX)
                continue
            if down_since is not None:
                log.warning("%s: Redis reachable again after %.1fs; %d events were waiting", self.name,
                            time.monotonic() - down_since, len(batch) + self._buffer.qsize())
                self._full_logged = False
            return True

    def _put_back(self, batch: list[str]) -> None:
        for text in batch:
            try:
                self._buffer.put_nowait(text)
            except queue.Full:
                break


class RejectedLine(ValueError):
    """Raised for a record that cannot become an event; `reason` is its counter name, the message says why."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


def feed_line(intake: Intake, line: str | object, parse: Callable[[str], Mapping[str, Any]]) -> None:
    """Hand one line of a receiver's pipe to `intake`: a blank line is skipped, one too long or one `parse`
    refuses (RejectedLine) is rejected, else its event is added."""
    if line is fifo.TOO_LONG:
        intake.reject("too_long", f"a line longer than {fifo.MAX_LINE} bytes")
        return
    assert isinstance(line, str)
    if not line.strip():
        return
    try:
        event = parse(line)
    except RejectedLine as exc:
        intake.reject(exc.reason, str(exc))
        return
    log.debug("%s:%s %s at %s: %s", event.get("entity"), event.get("check"), event.get("state"), event.get("time"),
              event.get("summary"))
    intake.add(event)
