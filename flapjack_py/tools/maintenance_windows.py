"""Find, create and end maintenance windows across checks for `flapjack maintenance` (engine.md 7.1, 7.2, 8).

Reads and writes go through flapjack_py.store; the filters are pure predicates from timespec.
"""

from __future__ import annotations

import logging
import re
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from flapjack_py import actions
from flapjack_py.store import checks as check_store
from flapjack_py.store import entities as entity_store
from flapjack_py.store import maintenance as maint_store
from flapjack_py.store.plumbing.client import StrRedis

log = logging.getLogger(__name__)

SCHEDULED = maint_store.SCHEDULED
UNSCHEDULED = maint_store.UNSCHEDULED
FINISHED_IN_PAST = "Maintenance can't be deleted as it finished in the past"


@dataclass(frozen=True)
class Found:
    """One window of one check, as `maintenance show` lists it."""

    entity: str
    check: str
    state: str | None
    start: int
    duration: int
    reason: str

    @property
    def end(self) -> int:
        return self.start + self.duration

    @property
    def identifier(self) -> str:
        """`E:C:START`, how errors name the window."""
        return f"{self.entity}:{self.check}:{self.start}"


@dataclass
class Criteria:
    """What `maintenance show|delete` selects: regexes (searched, like Ruby's match), state, time predicates."""

    kind: str = SCHEDULED
    entity: str | None = None
    check: str | None = None
    reason: str | None = None
    state: str | None = None
    start_ok: Callable[[int], bool] = field(default=lambda ts: True)
    end_ok: Callable[[int], bool] = field(default=lambda ts: True)
    duration_ok: Callable[[int], bool] = field(default=lambda d: True)

    def check_matches(self, entity: str, check: str, state: str | None) -> bool:
        """The entity/check regexes and the state filter."""
        return (_search(self.entity, entity) and _search(self.check, check)
                and (self.state is None or self.state == state))

    def window_matches(self, window: maint_store.Window) -> bool:
        """The reason regex and the start, end and duration predicates."""
        return (_search(self.reason, window.summary) and self.start_ok(window.start)
                and self.end_ok(window.end) and self.duration_ok(window.duration))


def find_windows(client: StrRedis, criteria: Criteria) -> list[Found]:
    """Every window matching `criteria`, by entity, check and start."""
    result = []
    for entity, check in maint_store.checks_with_windows(client, criteria.kind):
        state = check_store.check_state(client, entity, check)
        if not criteria.check_matches(entity, check, state):
            continue
        for window in maint_store.list_windows(client, entity, check, criteria.kind):
            if criteria.window_matches(window):
                result.append(Found(entity, check, state, window.start, window.duration, window.summary))
    return result


def end_windows(client: StrRedis, found: Iterable[Found], kind: str, now: int) -> dict[str, str]:
    """End each window (scheduled: by start; unscheduled: at its planned end); return errors by identifier."""
    errors = {}
    for window in found:
        if window.end < now:
            errors[window.identifier] = FINISHED_IN_PAST
        elif not _end_one(client, window, kind, now):
            errors[window.identifier] = f"The following entry failed to delete: {window}"
    return errors


def create_windows(client: StrRedis, entities: Iterable[str], check_names: list[str], kind: str, start: int,
                   duration: int, reason: str, now: int) -> list[str]:
    """Create the window on every entity x check (creating unknown entities); return the `E:C:START` made."""
    made = []
    for entity in entities:
        ensure_entity(client, entity)
        for check in check_names:
            make = actions.create_scheduled if kind == SCHEDULED else actions.create_unscheduled
            make(client, entity, check, start, duration, reason, actor=actions.cli_actor(), now=now)
            made.append(f"{entity}:{check}:{start}")
    return made


def ensure_entity(client: StrRedis, name: str) -> str:
    """Id of the entity called `name`, creating it (new uuid) if unknown."""
    existing = entity_store.entity_id(client, name)
    if existing is not None:
        return existing
    new_id = str(uuid.uuid4())
    entity_store.save_entity(client, new_id, name)
    return new_id


def _end_one(client: StrRedis, window: Found, kind: str, now: int) -> bool:
    if kind == SCHEDULED:
        return actions.end_scheduled(client, window.entity, window.check, window.start, actor=actions.cli_actor(),
                                     now=now)
    return actions.end_unscheduled(client, window.entity, window.check, actor=actions.cli_actor(), now=now,
                                   end_time=window.end)


def _search(pattern: str | None, text: str) -> bool:
    return pattern is None or re.search(pattern, text) is not None
