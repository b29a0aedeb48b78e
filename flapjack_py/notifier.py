"""The notifier: a notification -> alerts per contact and medium, with rules, intervals and rollup (engine.md 5).

`notify` does every read at once (in a few batched round trips) and queues
every write on the executive's MULTI pipeline, so an event's state, its
alerting bookkeeping and its alert records/rq jobs commit together. The
decisions (`decide_rollup`, `build_alert`, flapjack_py.rules) are pure.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import redis

from . import delivery
from .config import KNOWN_MEDIA, Config
from .notification import Notification, NotificationType
from .redaction import mask_address
from .rules import NotificationRule, select_media
from .store import contacts as contact_store
from .store import entities as entity_store
from .store import rollup as rollup_store
from .store import rules as rule_store
from .store.client import str_client
from .store.contacts import Contact, ContactDetails, Medium
from .store.rollup import AlertingSet, CheckFacts
from .time_restrictions import load_zone

log = logging.getLogger(__name__)

NOTIFY_LOG_SEPARATOR = " | "

Target = tuple[ContactDetails, Medium]


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


_NOT_READ = AlertingSet(members={}, drop_rollup=False)
"""Stands for the alerting set of a medium without rollup threshold, which is not read."""


def notify(connection: redis.Redis, notification: Notification, now: int, config: Config,
           pipe: redis.client.Pipeline) -> list[dict[str, Any]]:
    """Turn a notification into alerts; return the alert payloads emitted.

    `connection` is the raw (bytes) client rq needs; reads happen now, every
    write (automatic general rules, drop keys, alerting sets, alert records, rq
    jobs) is queued on `pipe`, a transactional pipeline already in MULTI mode.
    """
    client = str_client(connection)
    contacts = _contacts_of(client, notification)
    if not contacts:
        write_notify_log(config, notification.event_id, notification.type.value, "NO CONTACTS")
        return []
    targets = _targets(client, contacts, notification, now, config, pipe)
    dropped = rollup_store.load_dropped_media(client, _pairs(targets), notification.event_id, notification.state)
    targets = [t for t in targets if (t[0].contact.id, t[1].type) not in dropped]
    sets = _alerting_sets(client, targets)
    facts = _check_facts(client, notification, now, sets.values())
    alerts = []
    for details, medium in targets:
        decision = decide_rollup(notification, details.contact.id, medium, sets[(details.contact.id, medium.type)],
                                 facts, now)
        _write_rollup(pipe, details.contact.id, medium, notification.event_id, decision, now)
        if decision.skip:
            log.info("%s: %s of contact %s in rollup, held back", notification.event_id, medium.type,
                     details.contact.id)
            continue
        alert = build_alert(notification, details.contact, medium, decision, facts, now)
        if _emit(connection, pipe, notification, medium, alert, config):
            alerts.append(alert)
    return alerts


# --- who and which media (engine.md 5.1, 5.2) -----------------------------


def _contacts_of(client: redis.Redis, notification: Notification) -> list[ContactDetails]:
    ids = entity_store.contact_ids_for_check(client, notification.entity, notification.check)
    return contact_store.load_contact_details(client, ids)


def _targets(client: redis.Redis, contacts: Sequence[ContactDetails], notification: Notification, now: int,
             config: Config, pipe: redis.client.Pipeline) -> list[Target]:
    """(contact, medium) pairs the rules select, in contact then contact_media hash order."""
    rules = _rules_by_contact(client, contacts, pipe)
    targets: list[Target] = []
    for details in contacts:
        targets += _contact_targets(details, rules[details.contact.id], notification, now, config)
    return targets


def _rules_by_contact(client: redis.Redis, contacts: Sequence[ContactDetails],
                      pipe: redis.client.Pipeline) -> dict[str, list[NotificationRule]]:
    """Every contact's rules in one round trip; automatic general rules are written to `pipe`."""
    loaded = {rule.id: rule for rule in rule_store.load_rules_by_id(
        client, [rid for details in contacts for rid in details.rule_ids])}
    return {d.contact.id: rule_store.ensure_general_rule(
        client, d.contact.id, [loaded[rid] for rid in d.rule_ids if rid in loaded], pipe=pipe) for d in contacts}


def _contact_targets(details: ContactDetails, rules: Sequence[NotificationRule], notification: Notification,
                     now: int, config: Config) -> list[Target]:
    cid = details.contact.id
    if not details.media:
        log.info("%s: contact %s has no media, skipped", notification.event_id, cid)
        return []
    zone = load_zone(details.contact.timezone, config.executive.default_contact_timezone)
    choice = select_media(rules, notification.entity, notification.tags, notification.severity, now, zone)
    if choice.blackholed:
        log.info("%s: contact %s blackholes %s, no alerts", notification.event_id, cid, notification.severity)
        return []
    targets = []
    for name, medium in details.media.items():
        if name not in choice.media:
            continue
        if not medium.address:
            log.info("%s: contact %s has no address for %s, skipped", notification.event_id, cid, name)
            continue
        targets.append((details, medium))
    return targets


def _alerting_sets(client: redis.Redis, targets: Sequence[Target]) -> dict[tuple[str, str], AlertingSet]:
    """The alerting sets rollup decisions need: only media with a rollup threshold are read."""
    with_threshold = [(d.contact.id, m.type) for d, m in targets if m.effective_rollup_threshold is not None]
    sets = rollup_store.load_alerting_sets(client, with_threshold)
    return {pair: sets.get(pair, _NOT_READ) for pair in _pairs(targets)}


def _pairs(targets: Sequence[Target]) -> list[tuple[str, str]]:
    return [(details.contact.id, medium.type) for details, medium in targets]


# --- rollup (engine.md 5.4) -----------------------------------------------


def _check_facts(client: redis.Redis, notification: Notification, now: int,
                 sets: Any) -> dict[str, CheckFacts]:
    """Facts of every check in the alerting sets, and of the notified check as this event leaves it."""
    ids = {member for alerting in sets for member in alerting.members}
    ids.add(notification.event_id)
    facts = rollup_store.load_check_facts(client, ids)
    facts[notification.event_id] = current_check_facts(notification, facts[notification.event_id], now)
    return facts


def current_check_facts(notification: Notification, stored: CheckFacts, now: int) -> CheckFacts:
    """The notified check's facts once this event's own (not yet executed) writes apply.

    The notification passed both maintenance filters, so no maintenance is in
    force, except the unscheduled maintenance an acknowledgement creates. A
    service event makes the check current and stores its state and summary.
    """
    if notification.type is NotificationType.ACKNOWLEDGEMENT:
        return replace(stored, in_scheduled_maintenance=False, in_unscheduled_maintenance=True)
    if notification.type is NotificationType.TEST:
        return replace(stored, in_scheduled_maintenance=False, in_unscheduled_maintenance=False)
    last_change = stored.last_change
    if notification.state_duration is not None:
        last_change = now - notification.state_duration
    return replace(stored, state=notification.state, enabled=True, summary=notification.summary or "",
                   last_change=last_change, in_scheduled_maintenance=False, in_unscheduled_maintenance=False)


def decide_rollup(notification: Notification, contact_id: str, medium: Medium, alerting: AlertingSet,
                  facts: Mapping[str, CheckFacts], now: int) -> RollupDecision:
    """Add, clean, and decide rollup problem/recovery/none or skip for one contact medium. Pure.

    Without a rollup threshold nothing reads the set for a decision, so only the
    notified check is cleaned (cleaning every member is O(set size) per alert).
    """
    if medium.effective_rollup_threshold is None:
        gone = () if facts[notification.event_id].alerting_for(contact_id) else (notification.event_id,)
        return RollupDecision(add=notification.is_problem, removed=gone)
    members = dict(alerting.members)
    add = notification.is_problem
    if add:
        members[notification.event_id] = float(now)
    ordered = [m for m, _ in sorted(members.items(), key=lambda item: (item[1], item[0]))]
    removed = tuple(m for m in ordered if not facts[m].alerting_for(contact_id))
    kept = tuple(m for m in ordered if m not in removed)
    threshold = medium.effective_rollup_threshold
    base = RollupDecision(add=add, removed=removed, members=kept, threshold=threshold)
    if threshold is None:
        return base
    recovered = len(ordered) >= threshold and len(removed) > len(ordered) - threshold
    if len(kept) >= threshold:
        if alerting.drop_rollup:
            return replace(base, skip=True)
        is_recovery = notification.type is NotificationType.RECOVERY
        return replace(base, rollup="problem", drop_rollup="clear" if is_recovery else "set")
    if recovered:
        return replace(base, rollup="recovery", drop_rollup="clear")
    return base


def _write_rollup(pipe: redis.client.Pipeline, contact_id: str, medium: Medium, event_id: str,
                  decision: RollupDecision, now: int) -> None:
    if decision.add:
        rollup_store.add_alerting_check(pipe, contact_id, medium.type, event_id, now)
    rollup_store.remove_alerting_checks(pipe, contact_id, medium.type, decision.removed)
    if decision.drop_rollup == "set":
        rollup_store.set_drop_rollup(pipe, contact_id, medium.type, medium.effective_interval)
    elif decision.drop_rollup == "clear":
        rollup_store.clear_drop_rollup(pipe, contact_id, medium.type)


# --- alerts (engine.md 5.5) -----------------------------------------------


def build_alert(notification: Notification, contact: Contact, medium: Medium, decision: RollupDecision,
                facts: Mapping[str, CheckFacts], now: int) -> dict[str, Any]:
    """The alert payload (contract.md 6 + engine.md 5.5), without subject/body. Pure."""
    alert: dict[str, Any] = {
        "id": uuid.uuid4().hex, "timestamp": now, "contact": contact.id, "media": medium.type,
        "address": medium.address, "check": notification.event_id, "type": notification.type.value,
        "rollup": decision.rollup, "state": notification.state,
        "contact_id": contact.id, "contact_first_name": contact.first_name or "",
        "contact_last_name": contact.last_name or "",
        "event_id": notification.event_id, "event_hash": notification.event_hash,
        "summary": notification.summary, "details": notification.details, "time": notification.time,
        "duration": notification.duration, "last_state": notification.last_state,
        "last_summary": notification.last_summary, "state_duration": notification.state_duration,
        "tags": sorted(notification.tags), "notification_type": notification.type.value,
        "event_count": notification.count,
    }
    if decision.rollup:
        alert["rollup_alerts"] = {m: _rollup_entry(facts[m], now) for m in decision.members}
        alert["rollup_threshold"] = decision.threshold
    return alert


def _rollup_entry(facts: CheckFacts, now: int) -> dict[str, Any]:
    duration = now - facts.last_change if facts.last_change is not None else 0
    return {"duration": duration, "state": facts.state, "summary": facts.summary or ""}


def _emit(connection: redis.Redis, pipe: redis.client.Pipeline, notification: Notification, medium: Medium,
          alert: dict[str, Any], config: Config) -> bool:
    """Log, reset/set the interval keys, render and record/enqueue one alert; False when skipped."""
    write_notify_log(config, notification.event_id, notification.type.value, alert["contact"], medium.type,
                     medium.address)
    if medium.type not in KNOWN_MEDIA:
        log.error("%s: alert %s for contact %s: unknown medium %r, skipped", notification.event_id, alert["id"],
                  alert["contact"], medium.type)
        return False
    if notification.state in ("ok", "acknowledgement"):
        rollup_store.clear_interval_drops(pipe, alert["contact"], medium.type, notification.event_id)
    else:
        rollup_store.set_interval_drop(pipe, alert["contact"], medium.type, notification.event_id,
                                       notification.state, medium.effective_interval)
    alert["subject"], alert["body"] = _render(alert, config)
    delivery.enqueue_alert(connection, pipe, alert, config)
    log.info("%s: %s alert %s (rollup %s) for contact %s on %s", notification.event_id, alert["type"],
             alert["id"], alert["rollup"] or "none", alert["contact"], medium.type)
    return True


def _render(alert: Mapping[str, Any], config: Config) -> tuple[str, str]:
    from gateways.render import render_alert  # gateways is a sibling package; import late to avoid a cycle

    return render_alert(alert, config)


def write_notify_log(config: Config, *fields: str) -> None:
    """Write one notify-log line (`E:C | TYPE | CID | MEDIUM | ADDRESS`) to the log and the configured file."""
    if len(fields) == 5:  # E:C, TYPE, CID, MEDIUM, ADDRESS: a PagerDuty address is its routing key
        fields = (*fields[:4], mask_address(fields[3], fields[4]))
    line = NOTIFY_LOG_SEPARATOR.join(str(f) for f in fields)
    log.info("notify: %s", line)
    path = config.executive.notification_log_file
    if not path:
        return
    try:
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(line + "\n")
    except OSError as exc:
        log.warning("cannot write notification log %s: %s", path, exc)
