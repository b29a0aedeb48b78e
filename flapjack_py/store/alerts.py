"""Alert history: `alert:ID` hashes and their `alerts*` sorted-set indexes (contract section 6)."""

from __future__ import annotations

import functools
import json
import logging
import time
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import NamedTuple

from flapjack_py import keys
from flapjack_py.model.alert import Alert
from flapjack_py.store import metrics
from flapjack_py.store.plumbing.client import StrRedis, to_int
from flapjack_py.store.plumbing.writes import Writes

log = logging.getLogger(__name__)

DROP_CHUNK = 1000
"""Alert records deleted per round trip by drop_old_alerts."""

RECORD_FIELDS = ("id", "timestamp", "contact", "media", "address", "check", "type", "rollup",
                 "state", "subject", "body", "status")
"""Fields of alert:ID written when the alert is recorded."""
OPTIONAL_FIELDS = ("escalation_policy", "escalation_level", "actor", "channel", "ack_code", "incident_id")
"""Fields of alert:ID written only when the alert has them (an escalation policy paged the contact; who
acknowledged, on an acknowledgement's alerts; a problem alert's ack code; the incident it is about)."""


class StatusFields(NamedTuple):
    """What recording a delivery status needs of an alert record."""

    medium: str
    type: str
    queued_at: int | None
    status: str
    delivered_at: int | None = None


class StatusChange(NamedTuple):
    """An alert record's status as it was (`previous`), the status it was set to, and when: what its metrics
    count (count_statuses)."""

    previous: StatusFields
    status: str
    at: float


class AlertStatus:
    """Values of the alert record's `status` field."""

    QUEUED = "queued"
    DELIVERED = "delivered"
    FAILED = "failed"
    UNDELIVERABLE = "undeliverable"


def to_record(alert: Alert) -> dict[str, str]:
    """The alert:ID hash fields of an alert payload (None -> ''), and its `error` when it has one."""
    fields: Mapping[str, object] = alert  # read by name (RECORD_FIELDS, OPTIONAL_FIELDS)
    record = {}
    for name in RECORD_FIELDS:  # a loop and no str() of a str: a fifth fewer instructions than a comprehension
        value = fields.get(name)
        record[name] = value if type(value) is str else "" if value is None else str(value)
    if alert.get("error"):
        record["error"] = str(alert["error"])
    for name in OPTIONAL_FIELDS:
        if (value := fields.get(name)) is not None:
            record[name] = str(value)
    return record


def add_alert(pipe: Writes, alert: Alert, retention: int) -> None:
    """Record `alert` (with `status` set) and index it.

    The record has no TTL of its own (one command fewer per alert in a storm's commit): the executive's
    hourly `drop_old_alerts` deletes records older than `retention` with their index entries; the
    by-day index expires a day after its last alert's retention.
    """
    alert_id, ts, contact, medium = alert["id"], int(alert["timestamp"]), alert["contact"], alert["media"]
    entity, check = keys.split_check_id(alert["check"])
    pipe.hset(keys.alert(alert_id), mapping=to_record(alert))
    by_time = keys.alerts_by_time(_utc_day(ts))
    member = {alert_id: ts}
    pipe.zadd(keys.alerts(), member)
    pipe.zadd(keys.alerts_by_contact(contact), member)
    pipe.zadd(keys.alerts_by_contact(contact, medium), member)
    pipe.zadd(keys.alerts_by_check(entity, check), member)
    pipe.zadd(by_time, member)
    pipe.expire(by_time, retention + 86400)
    metrics.count_alert(pipe, str(medium), str(alert["type"] or ""), str(alert.get("status") or ""))


@functools.lru_cache(maxsize=64)
def _utc_day(ts: int) -> str:
    """YYYYMMDD of a unix time in UTC (a storm records thousands of alerts in the same second)."""
    return datetime.fromtimestamp(ts, UTC).strftime("%Y%m%d")


def drop_old_alerts(client: StrRedis, now: int, retention: int) -> int:
    """Delete the alert records older than `retention` s with their index entries; return how many went.

    Their rq jobs are left alone (a job still queued finds no record, as for a record gone by TTL before;
    `flapjack purge alerts` also takes those off their queues).
    """
    cutoff, deleted = now - retention, 0
    while ids := client.zrangebyscore(keys.alerts(), "-inf", cutoff, start=0, num=DROP_CHUNK):
        pipe = client.pipeline(transaction=False)
        pipe.delete(*(keys.alert(alert_id) for alert_id in ids))
        pipe.zrem(keys.alerts(), *ids)
        pipe.execute()
        deleted += len(ids)
    trim_alert_indexes(client, now, retention)
    return deleted


def trim_alert_indexes(client: StrRedis, now: int, retention: int) -> None:
    """Drop ids older than the retention from the long-lived indexes (`alerts`, by contact, by check)."""
    cutoff = now - retention
    client.zremrangebyscore(keys.alerts(), "-inf", cutoff)
    for pattern in (keys.alerts_by_contact("*"), keys.alerts_by_check("*", "*")):
        for key in client.scan_iter(match=pattern, count=1000):
            client.zremrangebyscore(key, "-inf", cutoff)


def load_alert(client: StrRedis, alert_id: str) -> dict[str, str] | None:
    """The alert:ID hash as a dict of str, or None."""
    data = client.hgetall(keys.alert(alert_id))
    if not data:
        return None
    return dict(data)


def set_status(client: StrRedis, alert_id: str, status: str, *, error: str | None = None,
               now: float | None = None) -> None:
    """Set an alert's delivery status (and `delivered_at` or `error`)."""
    previous = load_statuses(client, [alert_id])[alert_id]
    if previous is None:
        log.warning("alert %s: no record (expired?); status %s not stored", alert_id, status)
        return
    pipe = client.pipeline(transaction=True)
    save_status(pipe, alert_id, previous, status, error=error, now=now)
    pipe.execute()


def record_status(client: StrRedis, alert_id: str, previous: StatusFields, status: str, *,
                  error: str | None = None) -> StatusChange:
    """An alert's new delivery status alone, in one command (`previous`: the record as load_statuses read it);
    the change, whose metrics the caller counts with count_statuses (a gateway worker: in the MULTI that
    settles the alert's job, so they are counted once, when the job ends)."""
    now = time.time()
    client.hset(keys.alert(alert_id), mapping=_status_fields(status, error, now))
    return StatusChange(previous, status, now)


def load_statuses(client: StrRedis, alert_ids: list[str]) -> dict[str, StatusFields | None]:
    """What save_status needs of each alert record (one round trip); None for a record that is gone."""
    pipe = client.pipeline(transaction=False)
    for alert_id in alert_ids:
        pipe.hmget(keys.alert(alert_id), "media", "type", "timestamp", "status", "delivered_at")
    found: dict[str, StatusFields | None] = {}
    for alert_id, (medium, alert_type, queued_at, status, delivered_at) in zip(alert_ids, pipe.execute(),
                                                                               strict=True):
        found[alert_id] = None if medium is None else StatusFields(
            medium, alert_type or "", None if queued_at is None else to_int(queued_at), status or "",
            None if delivered_at is None else to_int(delivered_at))
    return found


def load_errors(client: StrRedis, alert_ids: list[str]) -> dict[str, str]:
    """The `error` (the last try's, redacted) of each alert that has one (one round trip)."""
    pipe = client.pipeline(transaction=False)
    for alert_id in alert_ids:
        pipe.hget(keys.alert(alert_id), "error")
    return {alert_id: error for alert_id, error in zip(alert_ids, pipe.execute(), strict=True) if error}


def save_status(pipe: Writes, alert_id: str, previous: StatusFields, status: str, *, error: str | None = None,
                now: float | None = None) -> None:
    """Write an alert's delivery status (and `delivered_at` or `error`) and its metrics on `pipe`;
    `previous` is the record as load_statuses read it."""
    now = now if now is not None else time.time()
    pipe.hset(keys.alert(alert_id), mapping=_status_fields(status, error, now))
    count_statuses(pipe, [StatusChange(previous, status, now)])


def count_statuses(pipe: Writes, changes: Sequence[StatusChange]) -> None:
    """Count status changes in the alert metrics on `pipe`: alerts arriving at each status (a retry that stays
    `queued` is not a new arrival), and each delivery's seconds since it was queued; one write per counter."""
    arrivals = Counter((c.previous.medium, c.previous.type, c.status) for c in changes if c.previous.status != c.status)
    for (medium, alert_type, status), n in arrivals.items():
        metrics.count_alert(pipe, medium, alert_type, status, n)
    delivered: defaultdict[str, list[float]] = defaultdict(list)
    for change in changes:
        if change.status == AlertStatus.DELIVERED and change.previous.queued_at is not None \
                and change.previous.status != AlertStatus.DELIVERED:
            delivered[change.previous.medium].append(change.at - change.previous.queued_at)
    for medium, seconds in delivered.items():
        metrics.observe_deliveries(pipe, medium, seconds)


def count_statuses_now(client: StrRedis, changes: Sequence[StatusChange]) -> None:
    """count_statuses in a pipeline of its own (one round trip)."""
    with client.pipeline(transaction=False) as pipe:
        count_statuses(pipe, changes)
        pipe.execute()


def _status_fields(status: str, error: str | None, now: float) -> dict[str, str]:
    fields = {"status": status}
    if status == AlertStatus.DELIVERED:
        fields["delivered_at"] = str(int(now))
    if error is not None:
        fields["error"] = error
    return fields


def set_call_status(client: StrRedis, alert_id: str, status: str) -> None:
    """Record a paging call's status (Twilio's CallStatus) on its alert (`call_status`, `call_status_at`)."""
    client.hset(keys.alert(alert_id), mapping={"call_status": status, "call_status_at": str(int(time.time()))})


def alert_ids(client: StrRedis, index: str, start: float | str = "-inf", end: float | str = "+inf",
              offset: int = 0, limit: int = 50) -> list[str]:
    """Alert ids of an index, newest first, within [start, end]."""
    ids = client.zrevrangebyscore(index, end, start, start=offset, num=limit)
    return list(ids)


def payload_json(alert: Alert) -> str:
    """The alert as JSON text (as carried by the rq job)."""
    return json.dumps(dict(alert), sort_keys=True)


# --- alert search (api-v1.md 14) ---------------------------------------------------


def find_alerts(client: StrRedis, *, contact: str | None = None, media: str | None = None,
                check: str | None = None, alert_type: str | None = None, start: int | None = None,
                end: int | None = None, limit: int = 100) -> list[dict[str, str]]:
    """Recorded alerts matching every given filter, newest first, at most `limit`."""
    if contact is not None:
        index = keys.alerts_by_contact(contact, media)
    elif check is not None:
        index = keys.alerts_by_check(*keys.split_check_id(check))
    else:
        index = keys.alerts()
    wanted = {"contact": contact, "media": media, "check": check, "type": alert_type}
    found: list[dict[str, str]] = []
    offset, batch = 0, max(limit, 200)
    while len(found) < limit:
        ids = alert_ids(client, index, "-inf" if start is None else start, "+inf" if end is None else end,
                        offset=offset, limit=batch)
        for alert_id in ids:
            alert = load_alert(client, alert_id)
            if alert is not None and all(v is None or alert.get(k) == v for k, v in wanted.items()):
                found.append(alert)
        if len(ids) < batch:
            break
        offset += batch
    return found[:limit]
