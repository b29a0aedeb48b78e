"""A check's history and status: state changes between times, the status fields, the reports built on
them (api-v1.md 11; engine.md 7.3), and enabling/disabling a check (api-v1.md 9.2, 9.3).

Check tags: store/tags.py; metrics counts: store/metrics.py; alert search: store/alerts.py.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from flapjack_py import keys
from flapjack_py.store.maintenance import SCHEDULED, UNSCHEDULED, in_force, list_windows
from flapjack_py.store.plumbing.client import StrRedis, to_int
from flapjack_py.views import reports

STATUS_NOTIFICATIONS = ("problem", "recovery", "acknowledgement")


@dataclass(frozen=True)
class StateChange:
    """One recorded state change of a check."""

    ts: int
    state: str | None
    summary: str | None
    details: str | None


def state_changes(client: StrRedis, entity: str, check: str, start: int | None,
                  end: int | None) -> list[StateChange]:
    """State changes with start <= ts <= end (bounds optional), preceded by the change just before
    the first of them; [] when none lies in the window (engine.md 7.3 outage step 1)."""
    key = keys.sorted_state_timestamps(entity, check)
    stamps = [int(float(t)) for t in client.zrangebyscore(key, "-inf" if start is None else start,
                                                       "+inf" if end is None else end)]
    if not stamps:
        return []
    before = client.zrevrangebyscore(key, f"({stamps[0]}", "-inf", start=0, num=1)
    stamps = [int(float(t)) for t in before] + stamps
    p = client.pipeline(transaction=False)
    for ts in stamps:
        p.mget(keys.check_state_at(entity, check, ts), keys.check_summary_at(entity, check, ts),
               keys.check_details_at(entity, check, ts))
    return [StateChange(ts, *values) for ts, values in zip(stamps, p.execute(), strict=True)]


def check_status(client: StrRedis, entity: str, check: str) -> dict[str, Any]:
    """The status report fields of a check (api-v1.md 11, status); unknown values are None."""
    p = client.pipeline(transaction=False)
    p.hgetall(keys.check(entity, check))
    p.zscore(keys.current_checks(entity), check)
    p.mget([keys.last_notification(entity, check, kind) for kind in STATUS_NOTIFICATIONS])
    data, score, last = p.execute()
    return {
        "name": check, "state": data.get("state") or None, "enabled": score is not None,
        "summary": data.get("summary"), "details": data.get("details"), "perfdata": _perfdata(data.get("perfdata")),
        "in_unscheduled_maintenance": in_force(client, entity, check, UNSCHEDULED) is not None,
        "in_scheduled_maintenance": in_force(client, entity, check, SCHEDULED) is not None,
        "initial_failure_delay": to_int(data.get("initial_failure_delay")),
        "repeat_failure_delay": to_int(data.get("repeat_failure_delay")),
        "last_update": to_int(data.get("last_update")), "last_change": to_int(data.get("last_change")),
        **{f"last_{kind}_notification": to_int(v) for kind, v in zip(STATUS_NOTIFICATIONS, last, strict=True)},
    }


def _perfdata(text: str | None) -> Any:
    if not text:
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, list) else None


def current_entity_names(client: StrRedis) -> list[str]:
    """Names in current_entities, sorted."""
    return sorted(client.zrange(keys.current_entities(), 0, -1))


# --- enabling (api-v1.md 9.2, 9.3) ------------------------------------------------


def enable_check(client: StrRedis, entity: str, check: str, now: int) -> None:
    """Register the check if new and make it (and its entity) current as of `now`."""
    p = client.pipeline(transaction=True)
    p.zadd(keys.all_checks(), {keys.check_id(entity, check): now}, nx=True)
    p.zadd(keys.all_checks_for(entity), {check: now}, nx=True)
    p.zadd(keys.current_checks(entity), {check: now})
    p.zadd(keys.current_entities(), {entity: now})
    p.execute()


def disable_check(client: StrRedis, entity: str, check: str) -> None:
    """Drop the check from current_checks:E; the entity stops being current when none is left."""
    client.zrem(keys.current_checks(entity), check)
    if not client.zcard(keys.current_checks(entity)):
        client.zrem(keys.current_entities(), entity)


# --- reports (engine.md 7.3) ----------------------------------------------------

REPORT_TYPES = ("status", "scheduled_maintenance", "unscheduled_maintenance", "outage", "downtime")


def check_report(client: StrRedis, report_type: str, entity: str, check: str, start: int | None,
                 end: int | None) -> dict[str, Any]:
    """The fields of one check's report of `report_type` over [start, end] (None = unbounded)."""
    if report_type == "status":
        return check_status(client, entity, check)
    if report_type in ("scheduled_maintenance", "unscheduled_maintenance"):
        kind = report_type.split("_", 1)[0]
        periods = reports.maintenance_periods(list_windows(client, entity, check, kind), start, end)
        return {f"{kind}_maintenances": periods}
    outs = reports.outages(state_changes(client, entity, check, start, end), start, end)
    if report_type == "outage":
        return {"outages": outs}
    scheduled = reports.maintenance_periods(list_windows(client, entity, check, SCHEDULED), start, end)
    return reports.downtime(outs, scheduled, start, end)
