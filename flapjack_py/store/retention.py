"""Retention: deleting a check's history, alert records with their rq jobs, and the lists of rejected events,
older than a cutoff (`flapjack purge`, engine.md 8)."""

from __future__ import annotations

import logging

from rq import Queue
from rq.job import Job, JobStatus

from flapjack_py import keys
from flapjack_py.model.events import FAILURE_STATES
from flapjack_py.model.notification import NotificationType
from flapjack_py.store.alerts import trim_alert_indexes
from flapjack_py.store.events import utc_hour
from flapjack_py.store.maintenance import SCHEDULED, UNSCHEDULED
from flapjack_py.store.plumbing import scripts
from flapjack_py.store.plumbing.client import StrRedis, registered_script
from flapjack_py.store.plumbing.writes import Writes

log = logging.getLogger(__name__)

CHUNK = 1000  # alerts or keys per round trip
HOUR = 3600

LOGGED_KINDS = (*(kind.value for kind in NotificationType), *FAILURE_STATES)
"""Every `kind` of `E:C:<kind>_notifications`: a notification's type and, for a failure, its state."""


def purge_check_history(client: StrRedis, entity: str, check: str, cutoff: int) -> int:
    """Delete the state records of one check at or before `cutoff`, and the rest of its history up to then;
    return how many state records went.

    Removes the per-timestamp state/summary/details/count/check_latency keys, the
    sorted_state_timestamps members and the same timestamps from the `states` list; the maintenance
    windows (scheduled and unscheduled) that ended by the cut-off; and, in one script, the check's decision
    traces, action entries and `<kind>_notifications` times up to the cut-off (each grows with every
    notification or ack; the `last_<kind>_notification` facts stay).
    """
    read = client.pipeline(transaction=False)
    read.zrangebyscore(keys.sorted_state_timestamps(entity, check), "-inf", cutoff)
    for kind in (SCHEDULED, UNSCHEDULED):
        read.zrange(keys.maintenances(entity, check, kind), 0, -1, withscores=True)
    stamps, *windows = read.execute()
    with client.pipeline() as pipe:
        for ts in stamps:
            pipe.delete(*_record_keys(entity, check, ts))
            pipe.lrem(keys.check_states(entity, check), 0, ts)
        if stamps:
            pipe.zremrangebyscore(keys.sorted_state_timestamps(entity, check), "-inf", cutoff)
        ended = sum(_drop_ended(pipe, entity, check, kind, found, cutoff)
                    for kind, found in zip((SCHEDULED, UNSCHEDULED), windows, strict=True))
        registered_script(client, scripts.PURGE_CHECK_LOGS)(keys=_log_keys(entity, check), args=[cutoff], client=pipe)
        logs = pipe.execute()[-1]
    if stamps or ended or logs:
        log.info("%s:%s: purged %d historical states, %d maintenance windows and %d log entries", entity, check,
                 len(stamps), ended, logs)
    return len(stamps)


def _drop_ended(pipe: Writes, entity: str, check: str, kind: str, windows: list[tuple[str, float]],
                cutoff: int) -> int:
    """Queue the deletion of the `kind` windows (start, duration) that ended at or before `cutoff`."""
    starts = [start for start, duration in windows if int(start) + int(duration) <= cutoff]
    if starts:
        pipe.zrem(keys.maintenances(entity, check, kind), *starts)
        pipe.zrem(keys.sorted_maintenance_timestamps(entity, check, kind), *starts)
        pipe.delete(*(keys.maintenance_summary(entity, check, kind, start) for start in starts),
                    *(keys.maintenance_actor(entity, check, kind, start) for start in starts))
    return len(starts)


def purge_all(client: StrRedis, check_ids: list[str], cutoff: int) -> list[int]:
    """Purge every check in `check_ids` (E:C); return the non-zero counts, one per check touched."""
    counts = [purge_check_history(client, *keys.split_check_id(cid), cutoff) for cid in check_ids]
    return [n for n in counts if n]


def _record_keys(entity: str, check: str, ts: str) -> list[str]:
    return [keys.check_state_at(entity, check, ts), keys.check_summary_at(entity, check, ts),
            keys.check_details_at(entity, check, ts), keys.check_count_at(entity, check, ts),
            keys.check_latency_at(entity, check, ts)]


def _log_keys(entity: str, check: str) -> list[str]:
    """The keys of PURGE_CHECK_LOGS: decision traces, actions, then one notification-times list per kind."""
    return [keys.check_decisions(entity, check), keys.check_actions(entity, check),
            *(keys.notifications(entity, check, kind) for kind in LOGGED_KINDS)]


def purge_alerts(client: StrRedis, cutoff: int) -> tuple[int, int]:
    """Delete the alert records at or before `cutoff`, their index entries, and the rq jobs of those still
    queued (taken off their queue: nobody delivered them); return (records, jobs) deleted.

    Jobs rq finished or failed expire by their own TTLs (result_ttl, failure_ttl) and are left to rq.
    """
    ids = list(client.zrangebyscore(keys.alerts(), "-inf", cutoff))
    jobs = 0
    for start in range(0, len(ids), CHUNK):
        jobs += _purge_chunk(client, ids[start:start + CHUNK])
    trim_alert_indexes(client, cutoff, 0)
    for key in client.scan_iter(match=keys.alerts_by_time_pattern(), count=CHUNK):
        client.zremrangebyscore(key, "-inf", cutoff)
    log.info("purged %d alert records and %d queued rq jobs", len(ids), jobs)
    return len(ids), jobs


def _purge_chunk(c: StrRedis, ids: list[str]) -> int:
    pipe = c.pipeline(transaction=False)
    for alert_id in ids:
        pipe.hmget(Job.key_for(alert_id), "status", "origin")
    queued = [(alert_id, origin) for alert_id, (status, origin) in zip(ids, pipe.execute(), strict=True)
              if status == JobStatus.QUEUED and origin]
    pipe = c.pipeline(transaction=False)
    for alert_id, origin in queued:
        pipe.lrem(Queue.redis_queue_namespace_prefix + origin, 1, alert_id)  # the oldest are at the head
        pipe.delete(Job.key_for(alert_id))
    pipe.delete(*(keys.alert(alert_id) for alert_id in ids))
    pipe.execute()
    return len(queued)


def purge_rejected(client: StrRedis, cutoff: int) -> int:
    """Delete the hourly lists of rejected events, and of their reasons, of the UTC hours that ended at or
    before `cutoff` (Flapjack gives them no TTL); return how many lists went."""
    last = utc_hour(cutoff - HOUR)  # the newest hour over by the cut-off; YYYYMMDDHH compare as text
    doomed = [name for pattern in (keys.events_rejected_pattern(), keys.events_rejected_reasons_pattern())
              for name in client.scan_iter(match=pattern, count=CHUNK) if _hour_of(name) <= last]
    for start in range(0, len(doomed), CHUNK):
        client.delete(*doomed[start:start + CHUNK])
    log.info("purged %d lists of rejected events", len(doomed))
    return len(doomed)


def _hour_of(name: str) -> str:
    """The YYYYMMDDHH of an events_rejected(_reasons):HOUR name; a name without one sorts after every hour."""
    hour = name.rsplit(":", 1)[-1]
    return hour if len(hour) == 10 and hour.isdigit() else "~"
