"""Read models of the web UI: check rows (flapjack_py.views.rows), one check in full, alert history.

Each function reads in a few pipelined round trips and returns plain
dataclasses for the templates. Every client here replies with str (see web.ui.context.db).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from flapjack_py import keys
from flapjack_py.model.contacts import Contact
from flapjack_py.store import alerts as alert_store
from flapjack_py.store import contacts as contact_store
from flapjack_py.store import maintenance as maint
from flapjack_py.store import triage as triage_store
from flapjack_py.store.plumbing.client import StrRedis, to_int
from flapjack_py.views.rows import Alert, CheckRow

log = logging.getLogger(__name__)

ROW_ALERTS = 3
"""Latest alerts shown per check in lists ("who was told")."""

NOTIFICATION_SHOWN = ("problem", "recovery", "acknowledgement", "test")
"""Kinds of last_<kind>_notification shown on a check's page."""


@dataclass
class StateChange:
    """One entry of a check's state history."""

    timestamp: int
    state: str
    summary: str


@dataclass
class CheckDetail:
    """Everything the check page shows."""

    row: CheckRow
    details: str
    perfdata: list[dict[str, str]]
    initial_failure_delay: int | None
    repeat_failure_delay: int | None
    ack_hash: str | None
    last_notifications: dict[str, int | None]
    scheduled: list[maint.Window]
    unscheduled: list[maint.Window]
    scheduled_in_force: int | None
    unscheduled_in_force: int | None
    unscheduled_remaining: int | None
    history: list[StateChange]
    contacts: list[Contact]


# --- check rows ------------------------------------------------------------


def check_rows(client: StrRedis, check_ids: Sequence[str], alerts_per_check: int = ROW_ALERTS) -> list[CheckRow]:
    """Rows of `check_ids` (E:C), in that order, with their latest alerts; four round trips."""
    p = client.pipeline(transaction=False)
    for check_id in check_ids:
        p.zscore(keys.failed_checks(), check_id)
    since = {i: int(s) for i, s in zip(check_ids, p.execute(), strict=True) if s is not None}
    rows = triage_store.load_facts(client, check_ids, since)
    return with_alerts(client, rows, triage_store.latest_alert_ids(client, check_ids, alerts_per_check))


def with_alerts(client: StrRedis, rows: Sequence[CheckRow], alert_ids: Sequence[Sequence[str]]) -> list[CheckRow]:
    """`rows`, each given the alerts of its list in `alert_ids` (newest first) that still exist; one round trip."""
    found = {a.id: a for a in load_alerts(client, [i for ids in alert_ids for i in ids])}
    for row, ids in zip(rows, alert_ids, strict=True):
        row.alerts = [found[i] for i in ids if i in found]
    return list(rows)


def entity_check_ids(client: StrRedis, entity: str) -> list[str]:
    """E:C of every check ever seen or current on an entity, sorted by check name."""
    names = set(client.zrange(keys.all_checks_for(entity), 0, -1)) | set(client.zrange(keys.current_checks(entity), 0, -1))
    return [keys.check_id(entity, n) for n in sorted(names)]


# --- one check -------------------------------------------------------------


def check_detail(client: StrRedis, entity: str, check: str, contacts: Iterable[str],
                 history: int = 50, alerts: int = 50) -> CheckDetail | None:
    """The check page's data, or None when the check was never seen."""
    data = dict(client.hgetall(keys.check(entity, check)))
    if not data and client.zscore(keys.all_checks(), keys.check_id(entity, check)) is None:
        return None
    row = check_rows(client, [keys.check_id(entity, check)], alerts)[0]
    p = client.pipeline(transaction=False)
    p.hget(keys.check_hashes_by_id(), keys.check_id(entity, check))
    p.mget([keys.last_notification(entity, check, k) for k in NOTIFICATION_SHOWN])
    ack_hash, last = p.execute()
    return CheckDetail(
        row=row, details=data.get("details", ""), perfdata=_perfdata(data.get("perfdata")),
        initial_failure_delay=to_int(data.get("initial_failure_delay")),
        repeat_failure_delay=to_int(data.get("repeat_failure_delay")),
        ack_hash=ack_hash, last_notifications=dict(zip(NOTIFICATION_SHOWN, map(to_int, last), strict=True)),
        scheduled=list(reversed(maint.list_windows(client, entity, check, maint.SCHEDULED))),
        unscheduled=list(reversed(maint.list_windows(client, entity, check, maint.UNSCHEDULED))),
        scheduled_in_force=maint.in_force(client, entity, check, maint.SCHEDULED),
        unscheduled_in_force=maint.in_force(client, entity, check, maint.UNSCHEDULED),
        unscheduled_remaining=maint.remaining(client, entity, check, maint.UNSCHEDULED),
        history=state_history(client, entity, check, history),
        contacts=contact_store.load_contacts(client, list(contacts)),
    )


def state_history(client: StrRedis, entity: str, check: str, limit: int = 50) -> list[StateChange]:
    """The newest `limit` state changes, newest first."""
    stamps = list(client.zrevrange(keys.sorted_state_timestamps(entity, check), 0, limit - 1))
    if not stamps:
        return []
    p = client.pipeline(transaction=False)
    p.mget([keys.check_state_at(entity, check, t) for t in stamps])
    p.mget([keys.check_summary_at(entity, check, t) for t in stamps])
    states, summaries = p.execute()
    return [StateChange(int(float(t)), st or "", su or "") for t, st, su in zip(stamps, states, summaries, strict=True)]


# --- alerts ----------------------------------------------------------------


def load_alerts(client: StrRedis, alert_ids: Sequence[str]) -> list[Alert]:
    """The alerts among `alert_ids` that still exist, in that order, with contact names."""
    p = client.pipeline(transaction=False)
    for alert_id in alert_ids:
        p.hgetall(keys.alert(alert_id))
    records = [r for r in p.execute() if r]
    names = contact_names(client, {r.get("contact", "") for r in records})
    return [_alert_from(r, names) for r in records]


def recent_alerts(client: StrRedis, contact_id: str | None = None, offset: int = 0, limit: int = 100) -> list[Alert]:
    """Every alert, or those sent to one contact, newest first."""
    index = keys.alerts() if contact_id is None else keys.alerts_by_contact(contact_id)
    return load_alerts(client, alert_store.alert_ids(client, index, offset=offset, limit=limit))


def contact_names(client: StrRedis, contact_ids: Iterable[str]) -> dict[str, str]:
    """Contact id -> "First Last" for the existing contacts among `contact_ids`."""
    ids = sorted(i for i in set(contact_ids) if i)
    return {c.id: full_name(c) for c in contact_store.load_contacts(client, ids)}


def full_name(contact: Contact) -> str:
    """A contact's display name: first and last name, or its id when both are empty."""
    return " ".join(n for n in (contact.first_name, contact.last_name) if n) or contact.id


# --- private helpers -------------------------------------------------------


def _alert_from(record: dict[str, str], names: dict[str, str]) -> Alert:
    contact = record.get("contact", "")
    return Alert(
        id=record.get("id", ""), timestamp=to_int(record.get("timestamp")), contact=contact,
        contact_name=names.get(contact, contact), media=record.get("media", ""), address=record.get("address", ""),
        check=record.get("check", ""), type=record.get("type", ""), rollup=record.get("rollup", ""),
        state=record.get("state", ""), subject=record.get("subject", ""), status=record.get("status", ""),
        error=record.get("error", ""), delivered_at=to_int(record.get("delivered_at")),
        escalation_policy=record.get("escalation_policy", ""), escalation_level=to_int(record.get("escalation_level")),
        actor=record.get("actor", ""),
    )


def _perfdata(text: str | None) -> list[dict[str, str]]:
    if not text:
        return []
    try:
        items: Any = json.loads(text)
    except ValueError:
        log.warning("unreadable perfdata %r", text[:80])
        return []
    return [i for i in items if isinstance(i, dict)] if isinstance(items, list) else []


