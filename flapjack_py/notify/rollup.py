"""Rollup decisions (engine.md 5.4) and the check facts they read, as a batch's earlier events leave them. Pure."""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from flapjack_py.model.alerting import AlertingSet, CheckFacts
from flapjack_py.model.checks import CheckSnapshot
from flapjack_py.model.contacts import Medium
from flapjack_py.model.notification import Notification, NotificationType

FactsChange = tuple[int, dict[str, Any]]
"""(index of the event in its batch, CheckFacts fields that event left changed)."""


@dataclass(frozen=True)
class RollupDecision:
    """What rollup (engine.md 5.4) decides for one contact medium and notification."""

    rollup: str = ""  # "", "problem" or "recovery"
    skip: bool = False  # in rollup and its drop_rollup key is live: no alert on this medium
    add: bool = False  # ZADD this check to the alerting set
    removed: tuple[str, ...] = ()  # members cleaned out of the set
    members: tuple[str, ...] = ()  # the set after adding and cleaning, in set order
    drop_rollup: str | None = None  # "set" or "clear" the drop_rollup key, or None
    threshold: int | None = None


def facts_change(snap: CheckSnapshot, service: bool, summary: str | None) -> dict[str, Any]:
    """The CheckFacts fields an event changed, read from its check's snapshot after the event.

    A service event stores state, summary and makes the check current; any
    event may start or end maintenance.
    """
    change: dict[str, Any] = {"in_scheduled_maintenance": snap.in_scheduled_maintenance,
                              "in_unscheduled_maintenance": snap.in_unscheduled_maintenance}
    if service:
        change.update(state=snap.state, last_change=snap.last_change, summary=summary or "", enabled=True)
    return change


def facts_before(stored: CheckFacts, changes: Sequence[FactsChange], index: int) -> CheckFacts:
    """A check's facts as stored, updated by the changes of the batch's events before `index`."""
    facts = stored
    for at, change in changes:
        if at >= index:
            break
        facts = replace(facts, **change)
    return facts


def current_check_facts(notification: Notification, stored: CheckFacts, now: int) -> CheckFacts:
    """The notified check's facts once this event's own writes apply.

    The notification passed both maintenance filters, so no maintenance is in
    force, except the unscheduled maintenance an acknowledgement creates. A
    service event makes the check current and stores its state and summary.
    """
    if notification.type is NotificationType.ACKNOWLEDGEMENT:
        return replace(stored, in_scheduled_maintenance=False, in_unscheduled_maintenance=True)
    if notification.type in (NotificationType.TEST, NotificationType.FLAPPING, NotificationType.FLAPPING_STOPPED):
        return replace(stored, in_scheduled_maintenance=False, in_unscheduled_maintenance=False)
    last_change = stored.last_change
    if notification.state_duration is not None:
        last_change = now - notification.state_duration
    return replace(stored, state=notification.state, enabled=True, summary=notification.summary or "",
                   last_change=last_change, in_scheduled_maintenance=False, in_unscheduled_maintenance=False)


def decide_rollup(notification: Notification, contact_id: str, medium: Medium, alerting: AlertingSet,
                  facts: Mapping[str, CheckFacts], now: int) -> RollupDecision:
    """Add, clean, and decide rollup problem/recovery/none or skip for one contact medium.

    Without a rollup threshold nothing reads the set for a decision, so only the
    notified check is cleaned (cleaning every member is O(set size) per alert).
    """
    if medium.effective_rollup_threshold is None:
        gone = () if facts[notification.event_id].alerting_for(contact_id) else (notification.event_id,)
        return _plain_decision(notification.is_problem, gone)
    members = dict(alerting.members)
    add = notification.is_problem
    if add:
        members[notification.event_id] = float(now)
    ordered = [m for m, _ in sorted(members.items(), key=lambda item: (item[1], item[0]))]
    removed = tuple(m for m in ordered if not facts[m].alerting_for(contact_id))
    kept = tuple(m for m in ordered if m not in removed)
    threshold = medium.effective_rollup_threshold
    base = RollupDecision(add=add, removed=removed, members=kept, threshold=threshold)
    recovered = len(ordered) >= threshold and len(removed) > len(ordered) - threshold
    if len(kept) >= threshold:
        if alerting.drop_rollup:
            return replace(base, skip=True)
        is_recovery = notification.type is NotificationType.RECOVERY
        return replace(base, rollup="problem", drop_rollup="clear" if is_recovery else "set")
    if recovered:
        return replace(base, rollup="recovery", drop_rollup="clear")
    return base


def after_decision(alerting: AlertingSet, decision: RollupDecision, check_id: str, now: int) -> AlertingSet:
    """The alerting set (and its drop_rollup flag) once a decision's writes apply."""
    members = dict(alerting.members)
    if decision.add:
        members[check_id] = float(now)
    for member in decision.removed:
        members.pop(member, None)
    drop = alerting.drop_rollup
    if decision.drop_rollup is not None:
        drop = decision.drop_rollup == "set"
    return AlertingSet(members=members, drop_rollup=drop)


@functools.lru_cache(maxsize=1024)
def _plain_decision(add: bool, removed: tuple[str, ...]) -> RollupDecision:
    """The decision of a medium without rollup threshold, made once for the alerts that share it (a
    notification's alerts to every contact medium; making a frozen dataclass took ~10k instructions)."""
    return RollupDecision(add=add, removed=removed)
