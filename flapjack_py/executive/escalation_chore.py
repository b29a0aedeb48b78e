"""The executive's escalation housekeeping: the next level of each escalation whose delay has passed while
its check is failing and not acknowledged (flapjack_py.model.escalation decides; store/escalation.py keeps the state).

A step WATCHes the check's escalation key and commits the new state with its alerts and their rq jobs in one
MULTI (store.commit.Commit.watched): however many executives run, a step is paged once, and an executive killed
mid-step leaves it due for the next one.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Mapping
from dataclasses import dataclass, replace

import redis

from flapjack_py import keys
from flapjack_py.model.alert import Alert
from flapjack_py.model.checks import ack_hash
from flapjack_py.model.escalation import Paged, State, advance, step_due, with_alerted
from flapjack_py.model.notification import Notification, NotificationType
from flapjack_py.notify.request import Notifying, NotifyRequest
from flapjack_py.store import checks as check_store
from flapjack_py.store import entities as entity_store
from flapjack_py.store import escalation as store
from flapjack_py.store import maintenance as maint
from flapjack_py.store.commit import Commit
from flapjack_py.store.plumbing.client import StrRedis
from flapjack_py.store.plumbing.writes import WriteBuffer

log = logging.getLogger(__name__)

MAINTENANCE_RETRY = 60
"""Seconds a due step waits while the check is in scheduled maintenance."""


@dataclass(frozen=True)
class Escalating:
    """What a step needs of its executive: the notifier, the str client, the executive's commit."""

    notifier: Notifying
    client: StrRedis
    commit: Commit


def escalate_due(by: Escalating, now: int) -> int:
    """Page the next level of every escalation due at `now`; return how many levels were paged."""
    paged = 0
    for check_id in store.due(by.client, now):
        entity, check = keys.split_check_id(check_id)
        try:
            paged += _step(by, entity, check, now)
        except redis.WatchError:
            log.info("%s: escalation step taken by another executive", check_id)
        except (redis.ConnectionError, redis.TimeoutError):
            raise
        except Exception:  # one check's bug must not stop the executive nor the other escalations
            log.exception("%s: escalation step failed; retried at the next look", check_id)
    return paged


def _step(by: Escalating, entity: str, check: str, now: int) -> int:
    """One due step, WATCHed: 1 when a level was paged."""
    paged: list[tuple[int, WriteBuffer]] = []

    def take(state: State | None) -> WriteBuffer:
        writes = WriteBuffer()
        paged.append((_decide(by, writes, entity, check, state, now), writes))
        return writes

    by.commit.watched(keys.escalation(entity, check), functools.partial(store.load_state, entity=entity, check=check),
                      take)
    return paged[-1][0] if paged else 0


def _decide(by: Escalating, writes: WriteBuffer, entity: str, check: str, state: State | None, now: int) -> int:
    """Write what a due step does into `writes`; 1 when it paged a level."""
    client = by.client
    policy = next(iter(store.load_policies(client, [state.policy])), None) if state else None
    fields = check_store.load_check(client, entity, check)
    what = step_due(state, policy, now, failing=fields.get("state", "ok") not in ("ok", ""),
                    acknowledged=maint.in_force(client, entity, check, maint.UNSCHEDULED) is not None,
                    in_maintenance=maint.in_force(client, entity, check, maint.SCHEDULED) is not None)
    if what == "none" and (state is None or state.next_at is None):
        store.forget_due(writes, entity, check)  # a leftover: forget it
    elif what == "end" and state is not None:
        store.save_state(writes, entity, check, replace(state, next_at=None, ended=now, ended_by="housekeeping"))
    elif what == "wait" and state is not None:
        store.save_state(writes, entity, check, replace(state, next_at=now + MAINTENANCE_RETRY))
    elif what == "page" and state is not None and policy is not None:
        contacts = store.resolve_level(client, policy, state.step + 1, now)
        new = advance(state, policy, now, contacts)
        alerts = _notify(by, writes, entity, check, fields, now,
                         {c: Paged(policy.id, new.pages[-1].level) for c in contacts})
        store.save_state(writes, entity, check, with_alerted(new, [(a["contact"], a["media"]) for a in alerts]))
        log.info("%s:%s: not acknowledged: escalated under policy %s to level %d: %s", entity, check, policy.id,
                 new.pages[-1].level, ", ".join(contacts) or "nobody")
        return 1
    return 0


def _notify(by: Escalating, writes: WriteBuffer, entity: str, check: str, fields: Mapping[str, str], now: int,
            paged: Mapping[str, Paged]) -> list[Alert]:
    state = fields.get("state", "critical")
    check_id = keys.check_id(entity, check)
    problem = Notification(event_id=check_id, entity=entity, check=check, state=state, type=NotificationType.PROBLEM,
                           severity=state, count=0, event_hash=ack_hash(check_id), summary=fields.get("summary"),
                           details=fields.get("details"))
    request = NotifyRequest(problem, now, 0, entity_store.entity_id(by.client, entity), writes, escalation=paged)
    by.notifier.notify([request])
    if request.error is not None:
        raise request.error
    return request.alerts
