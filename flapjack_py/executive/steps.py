"""One event's way through the executive: its check's state and history, the filters (with the decision
trace of what stopped it), flap detection, and the notification it makes, queued on its batch.

Everything is written into the event's WriteBuffer and the batch's in-memory snapshots, so later events of
the batch see what earlier ones did; the executive commits the batch.
"""

from __future__ import annotations

import logging
import uuid

from flapjack_py.config.settings import ExecutiveConfig
from flapjack_py.executive import filters
from flapjack_py.executive.batch import Batch
from flapjack_py.model import flapping, staleness
from flapjack_py.model.actors import Actor, described, from_fields
from flapjack_py.model.checks import CheckSnapshot, StateChange, ack_hash, max_notified_severity, worst
from flapjack_py.model.dependencies import is_release, still_released
from flapjack_py.model.events import Event, ack_duration, derived_tags
from flapjack_py.model.notification import Notification, NotificationType, notification_type_for
from flapjack_py.model.verdicts import FilterInput, Verdict
from flapjack_py.notify import decisions
from flapjack_py.notify.request import NotifyRequest
from flapjack_py.notify.rollup import facts_change
from flapjack_py.store import checks as check_store
from flapjack_py.store import decisions as decision_store
from flapjack_py.store import flapping as flap_store
from flapjack_py.store import maintenance as maint
from flapjack_py.store import staleness as stale_store
from flapjack_py.store.events import EventQueue
from flapjack_py.store.plumbing.writes import WriteBuffer

log = logging.getLogger(__name__)

NEW_CHECK_MAINTENANCE_SUMMARY = "Automatically created for new check"
ENTITY_ID_NAMESPACE = uuid.UUID("5b0d7a3c-6f1e-4c2a-9a57-f1a9ac3e0b15")  # entity ids: uuid5 of this and the name


class EventSteps:
    """Applies one event at a time to its batch; built once per executive."""

    def __init__(self, cfg: ExecutiveConfig, queue: EventQueue) -> None:
        self.cfg = cfg
        self.queue = queue

    def process(self, batch: Batch, writes: WriteBuffer, event: Event, raw: bytes, now: int,
                       index: int) -> None:
        if event.tags and is_release(event):
            self._released(batch, writes, event, now, index)
            return
        if self.cfg.archive_events:
            self.queue.archive(writes, raw, now, self.cfg.events_archive_maxage)
        counter = batch.counter
        self.queue.count(writes, _counter_fields(event))
        snap = batch.snapshots[(event.entity, event.check)]
        if staleness.superseded(staleness.is_stale_event(event.tags, event.type), event.time, snap.last_update):
            log.info("%s: stale check's unknown result dropped: heard from since", event.id)
            return
        self._ensure_entity(batch, writes, snap)
        if not snap.registered:
            check_store.register_check(writes, event.entity, event.check, now)
            snap.registered = True
        tags = event.tags | snap.check_tags | derived_tags(event.entity, event.check)
        if event.is_service:
            go_on, previous = self._service_event(batch, writes, snap, event, now, counter, tags, index)
        else:
            go_on, previous = self._action_event(writes, snap, event, now)
        parents = batch.dependencies.inhibitors(snap, batch.snapshots, index) if event.is_failure else ()
        if go_on and self._filters_pass(writes, snap, event, previous, now, parents):
            self._notify(batch, writes, snap, event, now, counter, tags, index)
        if not (event.is_service and event.state in ("acknowledgement", "test_notifications")):
            batch.facts.setdefault(snap.id, []).append((index, facts_change(snap, event.is_service, event.summary)))

    def _released(self, batch: Batch, writes: WriteBuffer, event: Event, now: int, index: int) -> None:
        """A child's release result (flapjack_py.model.dependencies): its problem through the filters, as if its
        failure were decided now; nothing recorded, not counted; dropped when the check's state moved on."""
        self.queue.uncount(writes)
        snap = batch.snapshots[(event.entity, event.check)]
        if not still_released(event, snap.state):
            log.info("%s: release dropped: the check is %s now", event.id, snap.state)
            return
        parents = batch.dependencies.inhibitors(snap, batch.snapshots, index)
        if self._filters_pass(writes, snap, event, snap.state, now, parents):
            tags = snap.check_tags | derived_tags(event.entity, event.check)
            self._notify(batch, writes, snap, event, now, batch.counter, tags, index)

    def _ensure_entity(self, batch: Batch, writes: WriteBuffer, snap: CheckSnapshot) -> None:
        entity_id = batch.entity_ids.get(snap.entity)
        if entity_id is None:
            entity_id = new_entity_id(snap.entity)
            check_store.add_entity(writes, entity_id, snap.entity)
            batch.entity_ids[snap.entity] = entity_id
            log.info("new entity %s (id %s)", snap.entity, entity_id)
        snap.entity_id = entity_id

    def _service_event(self, batch: Batch, writes: WriteBuffer, snap: CheckSnapshot, event: Event, now: int,
                       counter: int, tags: frozenset[str], index: int) -> tuple[bool, str | None]:
        if event.state in ("acknowledgement", "test_notifications"):
            log.warning("%s: service event with state %s counted invalid and ignored", event.id, event.state)
            return False, None
        if event.is_failure and not snap.ack_hash_stored:
            check_store.add_ack_hash(writes, event.id, ack_hash(event.id))
            snap.ack_hash_stored = True
        previous = snap.state
        go_on = True
        if previous is None:
            self._new_check_maintenance(writes, snap, tags, now)
            go_on = event.state != "ok"
        self._update_state(batch, writes, snap, event, now, counter, index)
        self._refresh_scheduled(writes, snap, now)
        if self.cfg.flap_detection:
            self._observe_flapping(batch, writes, snap, event, now, counter, tags, index)
        return go_on, previous

    def _observe_flapping(self, batch: Batch, writes: WriteBuffer, snap: CheckSnapshot, event: Event, now: int,
                          counter: int, tags: frozenset[str], index: int) -> None:
        """Add the result to the check's flap history; notify once when it starts or stops flapping."""
        low, high = self.cfg.flap_low_threshold, self.cfg.flap_high_threshold
        found = flapping.observe(snap.flap_history, snap.flapping_since, event.state, now, low, high)
        flap_store.record(writes, event.entity, event.check, found)
        snap.flap_history, snap.flapping_since = found.history, found.since
        if found.change and not (snap.in_scheduled_maintenance or snap.in_unscheduled_maintenance):
            log.info("%s: %s flapping (%.1f %% state change)", event.id, found.change, found.percent)
            base = self._notification(snap, event, now, counter, tags)
            batch.requests.append(NotifyRequest(flapping.notification(base, found, low, high), now, index,
                                                snap.entity_id, writes))

    def _action_event(self, writes: WriteBuffer, snap: CheckSnapshot, event: Event, now: int) -> tuple[bool, None]:
        check_store.write_action(writes, event, now)
        if not (event.is_acknowledgement or event.is_test):
            log.warning("%s: action event with state %s recorded, not notified", event.id, event.state)
            return False, None
        self._refresh_scheduled(writes, snap, now)
        return True, None

    def _new_check_maintenance(self, writes: WriteBuffer, snap: CheckSnapshot, tags: frozenset[str], now: int) -> None:
        duration = self.cfg.new_check_scheduled_maintenance_duration
        if duration <= 0 or tags & set(self.cfg.new_check_scheduled_maintenance_ignore_tags):
            return
        maint.add_window(writes, snap.entity, snap.check, maint.SCHEDULED, now, duration,
                         NEW_CHECK_MAINTENANCE_SUMMARY)
        snap.scheduled_windows[now] = duration
        snap.scheduled_start = maint.revalidate_scheduled(writes, snap.entity, snap.check, snap.scheduled_windows, now)
        log.info("%s: new check, scheduled maintenance for %ss", snap.id, duration)

    def _update_state(self, batch: Batch, writes: WriteBuffer, snap: CheckSnapshot, event: Event, now: int,
                      counter: int, index: int) -> None:
        if event.state != snap.state:
            check_store.write_state_change(writes, event, now, counter)
            batch.changes.setdefault(snap.id, []).append(StateChange(now, event.state, event.summary, index))
            log.info("%s: %s -> %s", event.id, snap.state or "(new)", event.state, extra={"check": event.id})
            snap.state, snap.last_change = event.state, now
            snap.failing_since = now if event.is_failure else None
        ifd = event.initial_failure_delay if event.initial_failure_delay is not None else self.cfg.initial_failure_delay
        rfd = event.repeat_failure_delay if event.repeat_failure_delay is not None else self.cfg.repeat_failure_delay
        if staleness.is_stale_event(event.tags, event.type):  # not a sign of life: last_update stays
            stale_store.write_stale_result(writes, event)
        else:
            check_store.write_update(writes, event, now, ifd, rfd)
            snap.interval = staleness.learned_interval(snap.interval, snap.last_update, now)
            stale_store.remember(writes, event.entity, event.check, snap.interval)
            snap.last_update = now
        snap.initial_failure_delay, snap.repeat_failure_delay = ifd, rfd

    def _refresh_scheduled(self, writes: WriteBuffer, snap: CheckSnapshot, now: int) -> None:
        if snap.scheduled_start is not None or not snap.scheduled_windows:
            return
        snap.scheduled_start = maint.revalidate_scheduled(writes, snap.entity, snap.check,
                                                          snap.scheduled_windows, now)

    # --- filters -----------------------------------------------------------

    def _filters_pass(self, writes: WriteBuffer, snap: CheckSnapshot, event: Event, previous: str | None,
                      now: int, parents: tuple[str, ...] = ()) -> bool:
        data = FilterInput(event, snap, previous, now, self.cfg.initial_failure_delay, self.cfg.repeat_failure_delay,
                           parents)
        for check_filter in filters.FILTERS:
            verdict = check_filter(data)
            self._apply_effects(writes, snap, verdict, now, from_fields(event.actor, event.channel))
            if verdict.block:
                log.debug("%s: %s blocked by %s: %s", event.id, event.state, check_filter.__name__, verdict.reason)
                trace = decisions.blocked(event, snap, check_filter.__name__, verdict, now)
                if trace is not None:
                    decision_store.record(writes, snap.entity, snap.check, trace.entry(), self.cfg.decision_trace_length)
                return False
        return True

    def _apply_effects(self, writes: WriteBuffer, snap: CheckSnapshot, verdict: Verdict, now: int,
                       actor: Actor | None) -> None:
        if verdict.end_unscheduled and snap.unscheduled_start is not None:
            maint.finish_unscheduled(writes, snap.entity, snap.check, snap.unscheduled_start, now)
            log.info("%s: unscheduled maintenance ended", snap.id)
            snap.unscheduled_start = None
        if verdict.create_unscheduled is not None:
            start, duration, summary = verdict.create_unscheduled
            snap.unscheduled_start = maint.start_unscheduled(writes, snap.entity, snap.check, start, duration,
                                                             summary, now, snap.unscheduled_start, actor)
            log.info("%s: acknowledged by %s, unscheduled maintenance for %ss", snap.id, described(actor), duration)

    def _notify(self, batch: Batch, writes: WriteBuffer, snap: CheckSnapshot, event: Event, now: int, counter: int,
                tags: frozenset[str], index: int) -> None:
        """Generate the notification and queue it for the batch's notifier."""
        notification = self._notification(snap, event, now, counter, tags)
        kinds = [notification.type.value] + ([event.state] if event.is_failure else [])
        check_store.write_notification(writes, event.entity, event.check, kinds, now)
        for kind in kinds:
            snap.last_notifications[kind] = now
        log.info("%s: %s notification (%s)", event.id, notification.type.value, notification.severity,
                 extra={"check": event.id, "event_count": counter})
        latest = event.is_service and snap.last_change == now  # this event's own change is not history yet
        batch.requests.append(NotifyRequest(notification, now, index, snap.entity_id, writes, latest=latest))

    def _notification(self, snap: CheckSnapshot, event: Event, now: int, counter: int,
                      tags: frozenset[str]) -> Notification:
        """The notification, without last_state/last_summary (read per batch, see _notify_batch)."""
        notified = max_notified_severity(snap.last_notifications)
        kind = notification_type_for(event)
        if kind is NotificationType.TEST:
            severity = "critical"
        else:
            severity = worst(event.state if event.is_failure else None, notified)
        return Notification(
            event_id=event.id, entity=event.entity, check=event.check, state=event.state, type=kind,
            severity=severity, count=counter, event_hash=ack_hash(event.id), summary=event.summary,
            details=event.details, time=event.time,
            duration=ack_duration(event.duration) if event.is_acknowledgement else event.duration,
            state_duration=None if snap.last_change is None else now - snap.last_change, tags=tuple(sorted(tags)),
            actor=event.actor, channel=event.channel,
        )


def new_entity_id(name: str) -> str:
    """The id of an entity first seen in an event: the same for every executive, so concurrent ones agree."""
    return str(uuid.uuid5(ENTITY_ID_NAMESPACE, name))


def _counter_fields(event: Event) -> tuple[str, ...]:
    if not event.is_service:
        return ("all", "action")
    if event.state == "ok":
        return ("all", "ok")
    if event.is_failure:
        return ("all", "failure")
    return ("all", "invalid")
