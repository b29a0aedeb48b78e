"""Maintenance filters (engine.md 3.2, 3.3)."""

from __future__ import annotations

from flapjack_py.model.verdicts import PASS, FilterInput, Verdict, blocked


def scheduled_maintenance_filter(data: FilterInput) -> Verdict:
    """Block every event while scheduled maintenance is in force."""
    if data.snapshot.in_scheduled_maintenance:
        return blocked("in scheduled maintenance", code="scheduled_maintenance")
    return PASS


def unscheduled_maintenance_filter(data: FilterInput) -> Verdict:
    """Block everything but acknowledgements while acknowledged (unscheduled maintenance)."""
    if data.snapshot.in_unscheduled_maintenance and not data.event.is_acknowledgement:
        return blocked("in unscheduled maintenance", code="acknowledged")
    return PASS
