"""The notifier: a batch's notifications -> alerts per contact and medium, with rules, intervals and rollup
(engine.md 5).

`Notifier.notify` reads what every notification of a batch needs at once
(flapjack_py.store.notify_data), then decides notification by notification in
batch order on an in-memory view that each decision updates (drop keys,
alerting sets, check facts), so a batch decides exactly what the same events
in consecutive batches would. Every write (automatic general rules, drop keys,
alerting sets, alert records and rq jobs) goes into the notifying event's
WriteBuffer, which the executive commits in the batch's one MULTI; the notify-log
lines too, written once that commit succeeded (flapjack_py.notify.request.write_notify_log).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from flapjack_py.config.media import is_known_medium
from flapjack_py.config.settings import Config, IncidentsConfig
from flapjack_py.model.alert import Alert, AlertShared, RollupEntry
from flapjack_py.model.alerting import AlertingSet, CheckFacts
from flapjack_py.model.contacts import Contact, ContactDetails, Medium
from flapjack_py.model.escalation import Paged
from flapjack_py.model.notification import Notification, NotificationType
from flapjack_py.model.rules import MediaChoice, NotificationRule, RuleInputs, inputs_read, select_media
from flapjack_py.model.time_restrictions import load_zone
from flapjack_py.notify import enqueue as delivery
from flapjack_py.notify import incidents
from flapjack_py.notify.decisions import Trace, drop_outcome, rule_entries
from flapjack_py.notify.episodes import BatchEpisodes
from flapjack_py.notify.escalator import BatchEscalations
from flapjack_py.notify.incidents import BatchIncidents, InIncident
from flapjack_py.notify.render import SharedTexts
from flapjack_py.notify.request import NotifyRequest
from flapjack_py.notify.rollup import (
    FactsChange,
    RollupDecision,
    after_decision,
    current_check_facts,
    decide_rollup,
    facts_before,
)
from flapjack_py.store import ack_codes as ack_code_store
from flapjack_py.store import decisions as decision_store
from flapjack_py.store import rollup as rollup_store
from flapjack_py.store import rules as rule_store
from flapjack_py.store.notify_data import (
    DropKeys,
    NotifiedCheck,
    NotifyData,
    drop_keys,
    interval_keys,
    load_notify_data,
)
from flapjack_py.store.plumbing.client import StrRedis
from flapjack_py.store.plumbing.staged import Reads
from flapjack_py.store.plumbing.writes import WriteBuffer
from flapjack_py.store.rq_jobs import SharedMembers, shared_members

log = logging.getLogger(__name__)


Target = tuple[ContactDetails, Medium]

_UUID_VARIANT_VERSION_MASK = (0xC000 << 48) | (0xF000 << 64)
_UUID4_BITS = (0x8000 << 48) | (4 << 76)
"""RFC 4122 variant and version 4 bits of a UUID's integer (as uuid.UUID(version=4) sets them)."""

_NOT_READ = AlertingSet(members={}, drop_rollup=False)
"""Stands for the alerting set of a medium without rollup threshold, which is not read."""


class Notifier:
    """Turns notifications into alerts. Built once per executive; `notify` is called once per batch."""

    def __init__(self, client: StrRedis, config: Config) -> None:
        self.client = client
        self.config = config
        self.codes = ack_code_store.CodeBlock(client)

    def notify(self, requests: Sequence[NotifyRequest], changes: Mapping[str, Sequence[FactsChange]] | None = None,
               watch: Callable[[list[str]], None] | None = None, reads: Reads[Any] | None = None) -> None:
        """Decide and write the alerts of `requests` (in batch order).

        `changes` are the check facts the batch's events changed (check id ->
        changes in batch order); a notification sees those of events before it.
        A notification whose decisions raise gets `error` set; the others go on.
        `watch` is handed the contact-level keys read (flapjack_py.store.notify_data.load_notify_data).
        `reads`, the caller's reads (flapjack_py.store.plumbing.staged), are made in the same round trips as the
        notifier's and done before anything is decided.
        """
        grouping = BatchIncidents(self.config.incidents, {})
        checks = [NotifiedCheck(r.notification.entity, r.entity_id, r.notification.check, r.notification.state,
                                None if r.escalation is None else tuple(r.escalation),
                                r.notification.type is NotificationType.RECOVERY, grouping.group(r.notification))
                  for r in requests]
        data = load_notify_data(self.client, checks, watch, max((r.now for r in requests), default=0), reads)
        view = _BatchView(self.client, data, changes or {})
        view.incidents = BatchIncidents(self.config.incidents, data.incidents)
        self.codes.reserve(sum(r.notification.is_problem for r in requests))  # a round trip per block of codes
        for request in requests:
            try:
                request.alerts = self._notify_one(view, request)
            except Exception as exc:  # one notification's bug must not cost the batch its alerts
                log.exception("%s: notifying failed", request.notification.event_id)
                request.error = exc

    def _notify_one(self, view: _BatchView, request: NotifyRequest) -> list[Alert]:
        """Decide one notification's alerts and record its decision trace with its writes."""
        notification = request.notification
        trace = Trace.for_notification(notification, request.now)
        alerts = self._alerts(view, request, trace)
        decision_store.record(request.writes, notification.entity, notification.check, trace.entry(),
                              self.config.executive.decision_trace_length)
        return alerts

    def _alerts(self, view: _BatchView, request: NotifyRequest, trace: Trace) -> list[Alert]:
        notification, now, writes = request.notification, request.now, request.writes
        paged = view.escalations.paged(request)
        incident = view.incidents.decide(request)
        if incident is not None:
            trace.incident = {"id": incident.id, "what": incident.what}
            if incident.what == "held":
                view.episodes.after(request, [])
                return incidents.held(request, incident,
                                      lambda c, m: view.reset_interval(writes, c, m, notification.event_id))
        contacts = view.contacts_of(notification.event_id, paged)
        episode = list(dict.fromkeys([*view.episodes.of(request), *incidents.owed(incident)]))
        if not contacts and not episode:
            writes.notify_log.append((notification.event_id, notification.type.value, "NO CONTACTS"))
            trace.no_contacts()
            view.episodes.after(request, [])
            return []
        targets = [t for d in contacts for t in self._contact_targets(view, d, writes, notification, now, trace)]
        owed = view.escalations.owed(request, contacts, targets)
        owed += view.episodes.owed(episode, view.data.contacts, contacts, [*targets, *owed], trace)
        trace.escalation(paged, [(d.contact.id, m.type) for d, m in owed])
        targets += owed
        alerts = []
        texts: SharedTexts = {}  # rendered once for the alerts they are the same for
        shared = shared_fields(notification)  # the alert fields that do not depend on the contact
        incidents.label(shared, incident)
        members: SharedMembers | None = None  # their JSON, for the alerts' rq jobs
        code = ""  # the notification's ack code, once an alert carries it
        for details, medium in targets:
            cid = details.contact.id
            drops = view.drop_keys(cid, medium.type, notification)
            held = view.held_back(drops)
            if held is not None:
                trace.medium(cid, medium.type, held)
                continue
            if incident is not None and (folded := view.incidents.folded(incident, (cid, medium.type), now)):
                alerts += self._folded(view, request, trace, incident, details, medium, folded)
                continue
            decision, facts = view.rollup(request, cid, medium)
            _write_rollup(writes, cid, medium, notification.event_id, decision, now)
            if decision.skip:
                log.info("%s: %s of contact %s in rollup, held back", notification.event_id, medium.type, cid)
                trace.medium(cid, medium.type, "rollup")
                continue
            alert = build_alert(notification, details.contact, medium, decision, facts, now, shared)
            if incident is not None:
                alert["incident_id"] = incident.id
            if cid in paged:
                alert["escalation_policy"], alert["escalation_level"] = paged[cid].policy, paged[cid].level
            if notification.is_problem and not decision.rollup:
                code = alert["ack_code"] = code or self.codes.take()
            members = members or shared_members(shared)
            if self._emit(view, writes, notification, medium, alert, trace, texts, drops, members):
                alerts.append(alert)
        if code:
            ack_code_store.record(writes, code, notification.event_id, self.config.executive.ack_code_ttl, now)
        view.escalations.alerted(request, alerts)
        view.episodes.after(request, alerts)
        view.incidents.sent(request, incident, alerts)
        return alerts

    def _folded(self, view: _BatchView, request: NotifyRequest, trace: Trace, incident: InIncident,
                details: ContactDetails, medium: Medium, folded: str) -> list[Alert]:
        """A contact medium already paged for the incident: its update when one is due, else nothing."""
        if folded == "update":
            update = self._incident_alert(view, request, trace, incident, details, medium)
            return [update] if update else []
        trace.medium(details.contact.id, medium.type, "incident")
        return []

    def _incident_alert(self, view: _BatchView, request: NotifyRequest, trace: Trace, incident: InIncident,
                        details: ContactDetails, medium: Medium) -> Alert | None:
        """An "incident updated" message to a contact medium, through _emit."""
        n = request.notification
        alert = build_alert(n, details.contact, medium, RollupDecision(), {}, request.now)
        alert["incident_id"], alert["summary"] = incident.id, incidents.update(incident)
        drops = view.drop_keys(details.contact.id, medium.type, n)
        return alert if self._emit(view, request.writes, n, medium, alert, trace, {}, drops) else None

    def _contact_targets(self, view: _BatchView, details: ContactDetails, writes: WriteBuffer,
                         notification: Notification, now: int, trace: Trace) -> list[Target]:
        """(contact, medium) pairs the rules select, in contact_media hash order (engine.md 5.2)."""
        cid = details.contact.id
        if not details.media:
            log.info("%s: contact %s has no media, skipped", notification.event_id, cid)
            trace.contact(cid, "no_media")
            return []
        choice, verdicts = view.media_choice(details, writes, notification, now,
                                             self.config.executive.default_contact_timezone)
        if choice.blackholed:
            log.info("%s: contact %s blackholes %s, no alerts", notification.event_id, cid, notification.severity)
            trace.contact(cid, "blackhole", verdicts=verdicts)
            return []
        trace.contact(cid, "considered" if choice.matched_rules else "no_rule", verdicts=verdicts)
        targets = []
        for name, medium in details.media.items():
            if name not in choice.media:
                trace.medium(cid, name, "not_in_rule")
                continue
            if not medium.address:
                log.info("%s: contact %s has no address for %s, skipped", notification.event_id, cid, name)
                trace.medium(cid, name, "no_address")
                continue
            targets.append((details, medium))
        return targets

    def _emit(self, view: _BatchView, writes: WriteBuffer, notification: Notification, medium: Medium,
              alert: Alert, trace: Trace, texts: SharedTexts, drops: DropKeys,
              members: SharedMembers | None = None) -> bool:
        """Log, reset/set the interval keys, render, record and enqueue one alert; False when skipped."""
        writes.notify_log.append((notification.event_id, notification.type.value, alert["contact"], medium.type,
                                  medium.address))
        if not is_known_medium(medium.type):
            log.error("%s: alert %s for contact %s: unknown medium %r, skipped", notification.event_id,
                      alert["id"], alert["contact"], medium.type)
            trace.medium(alert["contact"], medium.type, "unknown_medium")
            return False
        view.set_interval(writes, alert["contact"], medium, notification, drops)
        delivery.add_alert(writes, alert, self.config, texts, members)
        if log.isEnabledFor(logging.INFO):  # a storm makes thousands: no arguments built for nothing
            log.info("%s: %s alert %s (rollup %s) for contact %s on %s", notification.event_id, alert["type"],
                     alert["id"], alert["rollup"] or "none", alert["contact"], medium.type,
                     extra={"check": notification.event_id, "alert_id": alert["id"], "contact": alert["contact"]})
        outcome = "alerted" if self.config.gateway_enabled(medium.type) else "gateway_disabled"
        trace.medium(alert["contact"], medium.type, outcome, alert["id"], alert["rollup"])
        return True


class _BatchView:
    """The notifier's reads for a batch, kept up to date with the batch's own decisions."""

    def __init__(self, client: StrRedis, data: NotifyData, changes: Mapping[str, Sequence[FactsChange]]) -> None:
        self.client = client
        self.data = data
        self.changes = changes
        self.alerting = dict(data.alerting)
        self.drops = set(data.drops)
        self.escalations = BatchEscalations(data.escalation)
        self.episodes = BatchEpisodes(data.paged)
        self.incidents = BatchIncidents(IncidentsConfig(group_by="none"), {})  # the notifier sets its own
        self._rules: dict[str, tuple[list[NotificationRule], RuleInputs]] = {}
        self._choices: dict[tuple[Any, ...], tuple[MediaChoice, list[dict[str, Any]]]] = {}
        self._current: dict[int, CheckFacts] = {}  # request index -> its notified check's facts

    def contacts_of(self, check_id: str, paged: Mapping[str, Paged]) -> list[ContactDetails]:
        """The check's contacts, then those an escalation pages."""
        ids = dict.fromkeys([*self.data.contact_ids.get(check_id, ()), *paged])
        return [self.data.contacts[cid] for cid in ids if cid in self.data.contacts]

    def rules_of(self, details: ContactDetails, writes: WriteBuffer) -> tuple[list[NotificationRule], RuleInputs]:
        """A contact's rules and what of a notification they read; its automatic general rule is created
        (into `writes`) once per batch."""
        cid = details.contact.id
        if cid not in self._rules:
            found = [self.data.rules[rid] for rid in details.rule_ids if rid in self.data.rules]
            rules = rule_store.ensure_general_rule(self.client, cid, found, pipe=writes)
            self._rules[cid] = (rules, inputs_read(rules))
        return self._rules[cid]

    def media_choice(self, details: ContactDetails, writes: WriteBuffer, notification: Notification, now: int,
                     default_zone: str) -> tuple[MediaChoice, list[dict[str, Any]]]:
        """What the contact's rules choose for a notification, with the trace's rule entries: decided once per
        batch for the parts of a notification the rules read (engine.md 5.2-5.3)."""
        rules, reads = self.rules_of(details, writes)
        key = (details.contact.id, notification.severity, notification.entity if reads.entity else None,
               notification.tags if reads.tags else None, now if reads.time else None)
        found = self._choices.get(key)
        if found is None:
            zone = load_zone(details.contact.timezone, default_zone)
            choice = select_media(rules, notification.entity, notification.tags, notification.severity, now, zone)
            found = self._choices[key] = (choice, rule_entries(rules, choice))
        return found

    def drop_keys(self, contact_id: str, medium: str, notification: Notification) -> DropKeys:
        """The medium's drop keys for the notification (notify_data.drop_keys), as the batch's read made them."""
        found = self.data.drop_keys.get((contact_id, medium, notification.event_id, notification.state))
        return found or drop_keys(contact_id, medium, notification.event_id, notification.state)

    def held_back(self, found: DropKeys) -> str | None:
        """'interval' or 'dropped' when a drop key holds this medium back (engine.md 5.2 step 5), else None."""
        if self.drops.isdisjoint(found):  # the usual case
            return None
        return drop_outcome([k in self.drops for k in found])

    def rollup(self, request: NotifyRequest, contact_id: str,
               medium: Medium) -> tuple[RollupDecision, Mapping[str, CheckFacts]]:
        """Rollup's decision for one contact medium (engine.md 5.4) and the facts it read; a medium with a
        rollup threshold has its alerting set follow the decision (no decision reads the others' sets)."""
        notification, now = request.notification, request.now
        if medium.effective_rollup_threshold is None:
            facts = {notification.event_id: self._current_facts(request)}
            return decide_rollup(notification, contact_id, medium, _NOT_READ, facts, now), facts
        alerting = self.alerting.get((contact_id, medium.type), _NOT_READ)
        facts = self.facts_for(request, alerting)
        decision = decide_rollup(notification, contact_id, medium, alerting, facts, now)
        self.alerting[(contact_id, medium.type)] = after_decision(alerting, decision, notification.event_id, now)
        return decision, facts

    def facts_for(self, request: NotifyRequest, alerting: AlertingSet) -> dict[str, CheckFacts]:
        """Facts of the set's members and of the notified check, as the batch's earlier events left them."""
        notified = request.notification.event_id
        facts = {m: self._facts(m, request.index) for m in alerting.members if m != notified}
        facts[notified] = self._current_facts(request)
        return facts

    def _current_facts(self, request: NotifyRequest) -> CheckFacts:
        """The notified check's facts once its event's writes apply (the same for each of its alerts)."""
        current = self._current.get(request.index)
        if current is None:
            notified = request.notification.event_id
            current = self._current[request.index] = current_check_facts(
                request.notification, self._facts(notified, request.index), request.now)
        return current

    def _facts(self, check_id: str, index: int) -> CheckFacts:
        stored = self.data.facts.get(check_id) or CheckFacts(check_id=check_id)
        return facts_before(stored, self.changes.get(check_id, ()), index)

    def reset_interval(self, writes: WriteBuffer, contact_id: str, medium: str, check_id: str) -> None:
        """Reset the check's per-state interval keys of a contact medium (a recovery folded into an incident)."""
        rollup_store.clear_interval_drops(writes, contact_id, medium, check_id)
        self.drops.difference_update(interval_keys(contact_id, medium, check_id))

    def set_interval(self, writes: WriteBuffer, contact_id: str, medium: Medium, notification: Notification,
                     drops: DropKeys) -> None:
        """Reset (recovery, ack) or set the per-state interval key (engine.md 5.5 step 4), here and in Redis;
        `drops` are the medium's drop_keys for the notification."""
        event_id = notification.event_id
        if notification.state in ("ok", "acknowledgement"):
            rollup_store.clear_interval_drops(writes, contact_id, medium.type, event_id)
            self.drops.difference_update(interval_keys(contact_id, medium.type, event_id))
        else:
            rollup_store.set_interval_drop(writes, contact_id, medium.type, event_id, notification.state,
                                           medium.effective_interval)
            self.drops.add(drops[3])


def _write_rollup(writes: WriteBuffer, contact_id: str, medium: Medium, event_id: str,
                  decision: RollupDecision, now: int) -> None:
    if decision.add:
        rollup_store.add_alerting_check(writes, contact_id, medium.type, event_id, now)
    rollup_store.remove_alerting_checks(writes, contact_id, medium.type, decision.removed)
    if decision.drop_rollup == "set":
        rollup_store.set_drop_rollup(writes, contact_id, medium.type, medium.effective_interval)
    elif decision.drop_rollup == "clear":
        rollup_store.clear_drop_rollup(writes, contact_id, medium.type)


# --- alerts (engine.md 5.5) -----------------------------------------------


def shared_fields(notification: Notification) -> AlertShared:
    """The alert payload fields all alerts of a notification have alike, after the contact's (payload order)."""
    shared: AlertShared = {
        "event_id": notification.event_id, "event_hash": notification.event_hash, "summary": notification.summary,
        "details": notification.details, "time": notification.time, "duration": notification.duration,
        "last_state": notification.last_state, "last_summary": notification.last_summary,
        "state_duration": notification.state_duration, "tags": sorted(notification.tags),
        "notification_type": notification.type.value, "event_count": notification.count}
    if notification.actor:
        shared["actor"], shared["channel"] = notification.actor, notification.channel or "api"
    return shared


def alert_id() -> str:
    """A new alert id: the hex form of a random (version 4) UUID, as uuid.uuid4().hex, without the UUID object."""
    n = int.from_bytes(os.urandom(16), "big")
    return f"{(n & ~_UUID_VARIANT_VERSION_MASK) | _UUID4_BITS:032x}"


def build_alert(notification: Notification, contact: Contact, medium: Medium, decision: RollupDecision,
                facts: Mapping[str, CheckFacts], now: int, shared: AlertShared | None = None) -> Alert:
    """The alert payload (contract.md 6 + engine.md 5.5), without subject/body. Pure.

    `shared`: the notification's shared_fields, when the caller made them once for all its alerts.
    """
    c = shared_fields(notification) if shared is None else shared
    # the shared fields spelled out, in shared_fields' order (`**c` would leave mypy unsure which keys it adds);
    # the same objects, so rq_jobs.record_json takes their JSON as made once (a copy of the tags: one per alert)
    alert: Alert = {
        "id": alert_id(), "timestamp": now, "contact": contact.id, "media": medium.type,
        "address": medium.address, "check": notification.event_id, "type": c["notification_type"],
        "rollup": decision.rollup, "state": notification.state,
        "contact_id": contact.id, "contact_first_name": contact.first_name or "",
        "contact_last_name": contact.last_name or "", "event_id": c["event_id"], "event_hash": c["event_hash"],
        "summary": c["summary"], "details": c["details"], "time": c["time"], "duration": c["duration"],
        "last_state": c["last_state"], "last_summary": c["last_summary"], "state_duration": c["state_duration"],
        "tags": list(c["tags"]), "notification_type": c["notification_type"], "event_count": c["event_count"],
    }
    if "actor" in c:  # an acknowledgement's: who, through which channel (in shared_fields' order, after event_count)
        alert["actor"], alert["channel"] = c["actor"], c["channel"]
    if decision.rollup:
        alert["rollup_alerts"] = {m: _rollup_entry(facts[m], now) for m in decision.members}
        alert["rollup_threshold"] = decision.threshold
    return alert


def _rollup_entry(facts: CheckFacts, now: int) -> RollupEntry:
    duration = now - facts.last_change if facts.last_change is not None else 0
    return {"duration": duration, "state": facts.state, "summary": facts.summary or ""}
