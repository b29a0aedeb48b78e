"""What a filter sees and what it decides. Pure."""

from __future__ import annotations

from dataclasses import dataclass

from flapjack_py.model.checks import CheckSnapshot
from flapjack_py.model.events import Event


@dataclass(frozen=True)
class FilterInput:
    """One event after state update, with its check's snapshot (already updated in memory)."""

    event: Event
    snapshot: CheckSnapshot
    previous_state: str | None
    now: int
    default_initial_failure_delay: int
    default_repeat_failure_delay: int
    failing_parents: tuple[str, ...] = ()  # checks it depends on that fail now (flapjack_py.model.dependencies)


@dataclass(frozen=True)
class Verdict:
    """A filter's decision: block or pass, plus maintenance side effects to apply either way."""

    block: bool
    reason: str = ""
    code: str = ""  # what blocked, for the decision trace (flapjack_py.notify.decisions.FILTER_CODES)
    until: int | None = None  # when the block ends, when the filter knows (delays)
    parent: str | None = None  # the failing check it depends on, when that blocks it (dependency)
    end_unscheduled: bool = False
    create_unscheduled: tuple[int, int, str | None] | None = None  # (start, duration, summary)


PASS = Verdict(block=False)


def blocked(reason: str, **effects: object) -> Verdict:
    """A blocking verdict with a reason for the log."""
    return Verdict(block=True, reason=reason, **effects)  # type: ignore[arg-type]
