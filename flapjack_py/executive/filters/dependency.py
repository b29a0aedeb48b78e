"""Dependency filter (issue 33.1): a failure of a check whose parent fails is not notified (inhibited)."""

from __future__ import annotations

from flapjack_py.model.verdicts import PASS, FilterInput, Verdict, blocked


def dependency_filter(data: FilterInput) -> Verdict:
    """Block a failure while a check it depends on fails; recoveries, acknowledgements and tests pass."""
    if not data.failing_parents or not data.event.is_failure:
        return PASS
    parent = data.failing_parents[0]
    return blocked(f"inhibited by {parent}", code="inhibited", parent=parent)
