"""The decision trace: why each contact and medium was or was not alerted for one event (issue 14 point 4). Pure.

The executive starts a trace for an event a filter stopped (`blocked`); the
notifier builds one for every notification it decides (`Trace.for_notification`,
then `contact`/`medium` as it goes). A trace is a plain dict once finished
(`Trace.entry`), stored as JSON by flapjack_py.store.decisions and read back by
the API, the check page and `flapjack explain`, which all word it with `describe`.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from flapjack_py.model.checks import CheckSnapshot
from flapjack_py.model.escalation import Paged
from flapjack_py.model.events import Event
from flapjack_py.model.notification import Notification
from flapjack_py.model.rules import MATCH_FIELDS, MISMATCH_REASONS, MediaChoice, NotificationRule
from flapjack_py.model.verdicts import Verdict

FILTER_CODES = {
    "ok_unchanged": "ok after ok: nothing to tell",
    "never_notified": "recovery of a failure nobody was told about",
    "already_recovered": "the last notification was already a recovery",
    "scheduled_maintenance": "in scheduled maintenance",
    "acknowledged": "acknowledged (unscheduled maintenance)",
    "initial_delay": "initial failure delay not over",
    "repeat_delay": "repeat failure delay not over",
    "ack_not_failing": "acknowledgement of a check that is not failing",
    "flapping": "flapping: held back until the check is stable again",
    "inhibited": "a check it depends on is failing",
}
"""Filter verdict codes (flapjack_py.executive.filters) and how a trace words them."""

UNRECORDED_CODES = frozenset({"ok_unchanged"})
"""Verdicts not traced: an ok after an ok is the steady state (recording it would push every useful entry out)."""

CONTACT_OUTCOMES = {
    "considered": "rules chose media",
    "no_media": "the contact has no media",
    "blackhole": "a matching rule blackholes this severity",
    "no_rule": "no rule of the contact matched",
    "paged": "paged for this problem: told of its end whatever its rules say now",
}

MEDIUM_OUTCOMES = {
    "alerted": "alerted",
    "gateway_disabled": "alert recorded, but the gateway is not enabled (undeliverable)",
    "not_in_rule": "not among the matching rules' media for this severity",
    "no_address": "the medium has no address",
    "interval": "the medium's notification interval is still running",
    "dropped": "alerts to this contact/medium/check are dropped",
    "rollup": "held back: the contact is in rollup on this medium",
    "unknown_medium": "unknown medium",
    "incident": "folded into the incident: already told of it on this medium (incidents.update_interval)",
}

INCIDENT_TEXTS = {
    "problem": "in incident {id}", "acknowledged": "first acknowledgement of incident {id}",
    "held": "folded into incident {id}: it has other checks still failing, or was acknowledged already",
    "resolved": "its last check: incident {id} resolved, everyone it paged is told",
}
"""How a trace words what a notification did to its incident (flapjack_py.notify.incidents)."""

OWED_TEXT = "owed: paged for this problem, by an escalation or its rules (they no longer select it)"
"""How a trace words a medium an ended escalation goes to whatever the contact's rules say now."""

_DROP_LEVELS = ("dropped", "dropped", "dropped", "interval")
"""Outcome per drop key level (contact, medium, check, check state: notifier drop_keys order)."""


@dataclass
class Trace:
    """One event's decision trace, built while it is decided."""

    at: int
    check: str
    state: str
    kind: str  # notification type (problem, recovery, ...) or '' when a filter stopped the event
    severity: str = ""
    result: str = "not_alerted"  # blocked | no_contacts | alerted | not_alerted
    stopped_by: dict[str, Any] | None = None
    actor: str = ""  # an acknowledgement's: who acknowledged (flapjack_py.model.actors) ...
    channel: str = ""  # ... through which channel
    incident: dict[str, Any] | None = None  # {id, what}: the incident it belongs to (notify/incidents.py)
    contacts: list[dict[str, Any]] = field(default_factory=list)
    _owed: set[tuple[str, str]] = field(default_factory=set)
    _latest: dict[str, dict[str, Any]] = field(default_factory=dict)  # contact id -> its (last) entry

    @classmethod
    def for_notification(cls, notification: Notification, now: int) -> Trace:
        return cls(at=now, check=notification.event_id, state=notification.state, kind=notification.type.value,
                   severity=notification.severity, actor=notification.actor or "",
                   channel=(notification.channel or "api") if notification.actor else "")

    def no_contacts(self) -> None:
        self.result = "no_contacts"

    def contact(self, contact_id: str, outcome: str, rules: Sequence[NotificationRule] = (),
                choice: MediaChoice | None = None, verdicts: list[dict[str, Any]] | None = None) -> None:
        """Record a contact: its outcome and, when rules were applied, each rule's verdict (`rule_entries`
        of `rules` and `choice`, or already made: `verdicts`, never changed afterwards)."""
        entry: dict[str, Any] = {"id": contact_id, "outcome": outcome, "media": []}
        if choice is not None:
            verdicts = rule_entries(rules, choice)
        if verdicts is not None:
            entry["rules"] = verdicts
        self.contacts.append(entry)
        self._latest[contact_id] = entry

    def escalation(self, paged: Mapping[str, Paged], owed: Iterable[tuple[str, str]]) -> None:
        """Note which recorded contacts an escalation policy pages (policy, level) and the (contact, medium)
        pairs an ended escalation is owed: their outcome so far (e.g. not_in_rule) gives way to the next one."""
        for entry in self.contacts:
            if entry["id"] in paged:
                entry["escalation"] = {"policy": paged[entry["id"]].policy, "level": paged[entry["id"]].level}
        for contact_id, medium in owed:
            self._owed.add((contact_id, medium))
            for entry in self.contacts:
                if entry["id"] == contact_id:
                    entry["media"] = [m for m in entry["media"] if m["medium"] != medium]

    def medium(self, contact_id: str, medium: str, outcome: str, alert_id: str = "", rollup: str = "") -> None:
        """Record one medium of an already recorded contact."""
        entry: dict[str, Any] = {"medium": medium, "outcome": outcome}
        if (contact_id, medium) in self._owed:
            entry["owed"] = True
        if alert_id:
            entry["alert"] = alert_id
        if rollup:
            entry["rollup"] = rollup
        self._latest[contact_id]["media"].append(entry)
        if outcome in ("alerted", "gateway_disabled"):
            self.result = "alerted"

    def entry(self) -> dict[str, Any]:
        """The finished trace as stored."""
        found: dict[str, Any] = {"at": self.at, "check": self.check, "state": self.state, "type": self.kind,
                                 "result": self.result}
        if self.severity:
            found["severity"] = self.severity
        if self.actor:
            found["actor"], found["channel"] = self.actor, self.channel
        if self.stopped_by is not None:
            found["stopped_by"] = self.stopped_by
        if self.incident is not None:
            found["incident"] = self.incident
        if self.result != "blocked":
            found["contacts"] = self.contacts
        return found


def blocked(event: Event, snap: CheckSnapshot, filter_name: str, verdict: Verdict, now: int) -> Trace | None:
    """The trace of an event a filter stopped, or None when that verdict is not traced (UNRECORDED_CODES)."""
    if verdict.code in UNRECORDED_CODES:
        return None
    stop: dict[str, Any] = {"filter": filter_name.removesuffix("_filter"), "code": verdict.code,
                            "reason": verdict.reason}
    if verdict.until is not None:
        stop["until"] = verdict.until
    if verdict.parent is not None:
        stop["parent"] = verdict.parent
    if verdict.code == "scheduled_maintenance" and snap.scheduled_start is not None:
        stop["maintenance_start"] = snap.scheduled_start
    elif verdict.code == "acknowledged" and snap.unscheduled_start is not None:
        stop["maintenance_start"] = snap.unscheduled_start
    return Trace(at=now, check=event.id, state=event.state, kind="", result="blocked", stopped_by=stop)


def drop_outcome(found: Iterable[bool]) -> str | None:
    """The medium outcome of the drop keys that exist (in notifier drop_keys order), None when none does."""
    hits = [level for level, hit in zip(_DROP_LEVELS, found, strict=True) if hit]
    return hits[0] if hits else None


def rule_entries(rules: Sequence[NotificationRule], choice: MediaChoice) -> list[dict[str, Any]]:
    """A trace's entry per rule of a contact: matched or why not, and what the rule matches by."""
    by_id = {r.id: r for r in rules}
    return [_rule_entry(by_id.get(rid), rid, why) for rid, why in choice.verdicts]


def _rule_entry(rule: NotificationRule | None, rule_id: str, why: str | None) -> dict[str, Any]:
    entry: dict[str, Any] = {"id": rule_id, "matched": why is None}
    if why is not None:
        entry["why"] = why
    if rule is not None:
        entry["by"] = [f for f in MATCH_FIELDS if getattr(rule, f)] or ["general"]
        if rule.time_restrictions:
            entry["by"].append("time_restrictions")
    return entry


# --- reading traces back ----------------------------------------------------


def at_or_before(entries: Sequence[Mapping[str, Any]], at: int | None) -> list[Mapping[str, Any]]:
    """Entries (newest first) at or before `at` (all when None), newest first."""
    return [e for e in entries if at is None or int(e.get("at", 0)) <= at]


def describe(entry: Mapping[str, Any]) -> list[str]:
    """Human lines for one trace entry: the headline, then one line per contact and medium."""
    when = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(int(entry.get("at", 0))))
    head = f"{when}  {entry.get('check', '?')}  {entry.get('state', '?')}"
    stop = entry.get("stopped_by")
    if stop:
        return [f"{head}: not notified, {stop.get('filter')} filter: {_stop_text(stop)}"]
    if entry.get("result") == "no_contacts":
        return [f"{head}: {entry.get('type')} notification, no contact is registered for this check"]
    lines = [f"{head}: {entry.get('type')} notification ({entry.get('severity', '?')}), "
             f"{'alerted' if entry.get('result') == 'alerted' else 'nobody alerted'}"]
    if entry.get("actor"):
        lines.append(f"  by {entry.get('actor')} ({entry.get('channel', '?')})")
    incident = entry.get("incident")
    if isinstance(incident, Mapping):
        lines.append("  " + INCIDENT_TEXTS.get(str(incident.get("what")), "in incident {id}").format(
            id=incident.get("id")))
    for contact in entry.get("contacts", ()):
        lines.append(f"  contact {contact.get('id')}: {CONTACT_OUTCOMES.get(contact.get('outcome'), '?')}"
                     + _escalation_text(contact.get("escalation")))
        lines += [f"    rule {r.get('id')}: {_rule_text(r)}" for r in contact.get("rules", ())]
        lines += [f"    {m.get('medium')}: {_medium_text(m)}" for m in contact.get("media", ())]
    return lines


def _stop_text(stop: Mapping[str, Any]) -> str:
    text = str(FILTER_CODES.get(stop.get("code", ""), stop.get("reason", "")))
    if stop.get("reason") and stop.get("reason") != text:
        text += f" ({stop['reason']})"
    for name, label in (("until", "until"), ("maintenance_until", "maintenance until")):
        if stop.get(name) is not None:
            text += f", {label} {time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime(int(stop[name])))}"
    return text


def _rule_text(rule: Mapping[str, Any]) -> str:
    by = ", ".join(rule.get("by", ()))
    if rule.get("matched"):
        return f"matched (by {by})" if by else "matched"
    why = str(rule.get("why", ""))
    return f"did not match: {MISMATCH_REASONS.get(why, why)}" + (f" (by {by})" if by else "")


def _escalation_text(escalation: Mapping[str, Any] | None) -> str:
    if not escalation:
        return ""
    return f" (paged by escalation policy {escalation.get('policy')}, level {escalation.get('level')})"


def _medium_text(medium: Mapping[str, Any]) -> str:
    text = MEDIUM_OUTCOMES.get(medium.get("outcome", ""), str(medium.get("outcome")))
    if medium.get("owed"):
        text += f", {OWED_TEXT}"
    if medium.get("rollup"):
        text += f" (rollup {medium['rollup']})"
    if medium.get("alert"):
        text += f", alert {medium['alert']}"
    return text
