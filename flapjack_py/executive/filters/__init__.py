"""The filters, in Flapjack's order; the first that blocks stops the event (engine.md section 3)."""

from __future__ import annotations

from collections.abc import Callable

from flapjack_py.executive.filters.acknowledgement import acknowledgement_filter
from flapjack_py.executive.filters.delays import delays_filter
from flapjack_py.executive.filters.dependency import dependency_filter
from flapjack_py.executive.filters.flapping import flapping_filter
from flapjack_py.executive.filters.maintenance import scheduled_maintenance_filter, unscheduled_maintenance_filter
from flapjack_py.executive.filters.ok import ok_filter
from flapjack_py.model.verdicts import FilterInput, Verdict

FILTERS: tuple[Callable[[FilterInput], Verdict], ...] = (
    ok_filter,
    scheduled_maintenance_filter,
    unscheduled_maintenance_filter,
    flapping_filter,
    dependency_filter,
    delays_filter,
    acknowledgement_filter,
)

__all__ = ["FILTERS", "FilterInput", "Verdict"]
