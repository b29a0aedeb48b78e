"""The executive's hand-over of a batch's notifications to its notifier: each completed with its check's
previous state run, decided together (the contact-level keys read WATCHed on the batch's guard), and the
fallbacks: one at a time when deciding them together fails, and a failed notification's event rejected.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping

import redis

from flapjack_py.executive.batch import Batch
from flapjack_py.model.checks import StateChange, previous_run
from flapjack_py.notify.request import Notifying, NotifyRequest
from flapjack_py.store import checks as check_store
from flapjack_py.store.commit import Commit
from flapjack_py.store.plumbing.staged import Reads

log = logging.getLogger(__name__)


class BatchNotify:
    """Decides a batch's notifications with `notifier`, committing through the executive's `commit`."""

    def __init__(self, notifier: Notifying, client: redis.Redis, commit: Commit) -> None:
        self.notifier, self.client, self.commit = notifier, client, commit

    def decide(self, batch: Batch, watch: bool = False) -> None:
        """Have the notifier decide the batch's notifications, each completed with its check's previous state
        run first (read in the notifier's round trips)."""
        completed: list[bool] = []
        try:
            self.notifier.notify(batch.requests, batch.facts, self._watcher(batch) if watch else None,
                                 _previous_runs(batch, completed))
        except (redis.ConnectionError, redis.TimeoutError):
            raise
        except Exception:
            log.exception("notifying %d events together failed; notifying them one at a time", len(batch.requests))
            if batch.guard is not None:  # one at a time, nothing is watched but the in-flight list
                batch.guard.reset()
                batch.guard = None
            if not completed:  # before any of the batch's events is committed
                ids = _check_ids(batch)
                _complete(batch, check_store.load_recent_state_changes(self.client, ids))
            self._notify_one_by_one(batch)
            return
        for request in batch.requests:
            if request.error is not None:
                self._reject_notified(batch, request)

    def _watcher(self, batch: Batch) -> Callable[[list[str]], None]:
        """WATCH keys on the batch's guard, so its commit fails if they change (see _notify_and_commit)."""
        def watch(shared: list[str]) -> None:
            if batch.guard is None:
                batch.guard = self.commit.guard(batch.in_flight)
            batch.guard.watch(*shared)
        return watch

    def _notify_one_by_one(self, batch: Batch) -> None:
        """Fallback: commit the events before each notification, then notify it alone (as separate batches would)."""
        for request in batch.requests:
            at = next(i for i, w in enumerate(batch.pending) if w is request.writes)
            before = batch.pending[:at]
            del batch.pending[:at]
            self.commit.batch(batch, before)
            try:
                self.notifier.notify([request])
            except (redis.ConnectionError, redis.TimeoutError):
                raise
            except Exception as exc:
                log.exception("%s: notifying failed", request.notification.event_id)
                request.error = exc
            if request.error is not None:
                self._reject_notified(batch, request)

    def _reject_notified(self, batch: Batch, request: NotifyRequest) -> None:
        """File the event whose notification failed as rejected, in place of its writes."""
        at = next(i for i, w in enumerate(batch.pending) if w is request.writes)
        batch.pending[at] = self.commit.rejected(request.writes.raw, request.writes.claim, request.now,
                                           f"internal error: {request.error!r}")


def _previous_runs(batch: Batch, completed: list[bool]) -> Reads[None]:
    """Read the two newest stored state changes of the checks of `batch`'s notifications and complete each
    with its check's previous state run; then `completed` holds True."""
    stored = yield from check_store.recent_state_changes_reads(_check_ids(batch))
    _complete(batch, stored)
    completed.append(True)


def _check_ids(batch: Batch) -> list[tuple[str, str]]:
    return list(dict.fromkeys((r.notification.entity, r.notification.check) for r in batch.requests))


def _complete(batch: Batch, stored: Mapping[tuple[str, str], list[StateChange]]) -> None:
    """Each notification with its check's previous state run: the stored state changes and the batch's
    earlier events' changes."""
    for request in batch.requests:
        n = request.notification
        earlier = [c for c in batch.changes.get(n.event_id, ()) if c.at < request.index]
        last_state, last_summary = previous_run(stored[(n.entity, n.check)], earlier, latest=request.latest)
        request.notification = n.with_previous_run(last_state, last_summary)
