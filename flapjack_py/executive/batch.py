"""A batch of events being processed: the check snapshots they read and change, their pending writes and
notifications, and where their commit stands."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from flapjack_py.model.checks import CheckSnapshot, StateChange
from flapjack_py.model.dependencies import BatchDependencies
from flapjack_py.notify.request import NotifyRequest
from flapjack_py.notify.rollup import FactsChange
from flapjack_py.store.plumbing.writes import WriteBuffer


@dataclass
class Batch:
    """Events taken together and the state shared while processing them."""

    snapshots: dict[tuple[str, str], CheckSnapshot]
    entity_ids: dict[str, str]
    counter: int  # the event counter of the item being processed (reserved for it when taken)
    in_flight: int = 0  # this batch's events still on the in-flight list
    guard: Any = None  # pipeline WATCHing the in-flight list since it was last checked
    pending: list[WriteBuffer] = field(default_factory=list)  # processed, not yet committed
    requests: list[NotifyRequest] = field(default_factory=list)  # notifications, in batch order
    facts: dict[str, list[FactsChange]] = field(default_factory=dict)  # check facts the events changed
    changes: dict[str, list[StateChange]] = field(default_factory=dict)  # state changes the events recorded
    dependencies: BatchDependencies = field(default_factory=BatchDependencies)  # parents' states, read with snapshots
