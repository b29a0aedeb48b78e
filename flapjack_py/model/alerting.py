"""What rollup reads of a contact medium's alerting checks: one check's facts and the alerting set (pure);
read by store/rollup.py."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class CheckFacts:
    """What rollup cleaning and rollup_alerts need to know about one alerting check."""

    check_id: str
    state: str | None = None
    last_change: int | None = None
    summary: str | None = None
    enabled: bool = False
    in_scheduled_maintenance: bool = False
    in_unscheduled_maintenance: bool = False
    contact_ids: frozenset[str] = frozenset()

    def alerting_for(self, contact_id: str) -> bool:
        """True when the check still counts for the contact: not ok, enabled, out of maintenance, still its contact."""
        return (self.state != "ok" and self.enabled and not self.in_scheduled_maintenance
                and not self.in_unscheduled_maintenance and contact_id in self.contact_ids)


@dataclass(frozen=True)
class AlertingSet:
    """A contact medium's contact_alerting_checks members (check id -> score) and whether its drop_rollup key exists."""

    members: dict[str, float]
    drop_rollup: bool


