"""The filters, in Flapjack's order; the first that blocks stops the event (engine.md section 3)."""

from __future__ import annotations

from collections.abc import Callable

from .acknowledgement import acknowledgement_filter
from .base import FilterInput, Verdict
from .delays import delays_filter
from .flapping import flapping_filter
from .maintenance import scheduled_maintenance_filter, unscheduled_maintenance_filter
from .ok import ok_filter

FILTERS: tuple[Callable[[FilterInput], Verdict], ...] = (
    ok_filter,
    scheduled_maintenance_filter,
    unscheduled_maintenance_filter,
    flapping_filter,
    delays_filter,
    acknowledgement_filter,
)

__all__ = ["FILTERS", "FilterInput", "Verdict"]
