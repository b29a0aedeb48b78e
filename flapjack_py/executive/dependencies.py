"""The executive's side of dependencies (flapjack_py.model.dependencies): its copy of the records, the parents'
states read with each batch's snapshots, and the release of a recovered parent's failing children.

Per batch the records' version and the parents' states go out with the snapshot read (no round trip of their
own); the records themselves are read again only when the version moved. When a parent recovers in a batch,
its failing children are read (two round trips, then only) and each gets a release result on the queue, in
the batch's MULTI with the recovery: processed like any result, it notifies the child's problem.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from typing import Any

from flapjack_py.executive.batch import Batch
from flapjack_py.model.dependencies import BatchDependencies, Dependency, DependencyTable, release_event, table
from flapjack_py.store import dependencies as store
from flapjack_py.store.plumbing.client import StrRedis

log = logging.getLogger(__name__)


class Inhibition:
    """One executive's copy of the dependencies and what it reads and queues for them."""

    def __init__(self, client: StrRedis, queue: str) -> None:
        self.client, self.queue = client, queue
        self.version: str | None = None
        self.deps: list[Dependency] = []
        self.table = DependencyTable()

    def reads(self) -> list[store.Command]:
        """The commands to send with a batch's snapshot read."""
        return store.state_reads(self.table.parents)

    def batch_view(self, replies: Sequence[Any]) -> BatchDependencies:
        """The batch's view from the replies of `reads()`; the records read again first if they changed."""
        version, failing = store.states_from(self.table.parents, replies)
        if version != self.version:
            self.version, self.deps, failing = store.load_table(self.client)
            self.table = table(self.deps)
            log.info("dependencies reloaded (version %s): %d, %d parents", self.version, len(self.deps),
                     len(self.table.parents))
        return BatchDependencies(self.table, failing)

    def release(self, batch: Batch) -> None:
        """Queue a release result for each failing child of the parents that recovered in `batch`, with the
        writes of the event that ended the last of those failures."""
        view = batch.dependencies
        recovered = view.recovered(batch.snapshots, batch.changes) if view.table else {}
        if not recovered:
            return
        candidates = store.release_candidates(self.client, [d for d in self.deps if d.parent in recovered])
        children = view.to_release(recovered, candidates, batch.snapshots)
        if not children:
            return
        writes = batch.pending[max(recovered.values())]
        now = max(c.ts for p in recovered for c in batch.changes[p])
        store.queue_releases(writes, self.queue, [json.dumps(release_event(c, state, summary, now))
                                                  for c, state, summary in children])
        log.info("%s recovered: %d failing children released (%s)", ", ".join(sorted(recovered)), len(children),
                 ", ".join(c for c, _, _ in children[:20]))
