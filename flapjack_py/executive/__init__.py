"""The executive: take events, run each through its check's state and the filters, commit the batch,
hand notifications over, and the chores between batches.

This module is the engine's composition root: `Executive` (contract section 2) is the loop (loop.py) with
the project's notifier (notify/notifier.py) injected; the executive's own modules import no notifier.
"""

from __future__ import annotations

from flapjack_py.executive import loop
from flapjack_py.notify.notifier import Notifier
from flapjack_py.notify.request import Notifying

__all__ = ["Executive"]


class Executive(loop.Executive):
    """Processes the event queue with the project's Notifier unless handed another."""

    def default_notifier(self) -> Notifying:
        return Notifier(self.client, self.config)
