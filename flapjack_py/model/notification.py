"""The notification record the executive hands to the notifier (engine.md section 4.2). Pure."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from enum import StrEnum
from typing import Any

from flapjack_py.model.events import Event


class NotificationType(StrEnum):
    """What a notification announces."""

    PROBLEM = "problem"
    RECOVERY = "recovery"
    ACKNOWLEDGEMENT = "acknowledgement"
    TEST = "test"
    FLAPPING = "flapping"  # the check started flapping (flapjack_py.model.flapping)
    FLAPPING_STOPPED = "flapping_stopped"  # ... and is stable again


@dataclass(frozen=True)
class Notification:
    """One generated notification: input of flapjack_py.notify.notifier.

    `severity` decides which rule media apply (critical/warning/unknown/ok);
    `state` is the event state (ok, a failure, acknowledgement, test_notifications).
    """

    event_id: str  # "E:C"
    entity: str
    check: str
    state: str
    type: NotificationType
    severity: str
    count: int  # the event counter (event_counters all) of the event
    event_hash: str
    summary: str | None = None
    details: str | None = None
    time: int | None = None
    duration: int | None = None  # acks: seconds of unscheduled maintenance applied
    last_state: str | None = None
    last_summary: str | None = None
    state_duration: int | None = None
    tags: tuple[str, ...] = field(default_factory=tuple)
    actor: str | None = None  # acknowledgements: who acknowledged (flapjack_py.model.actors) ...
    channel: str | None = None  # ... and through which channel

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-able dict (type as its string value, tags as a sorted list)."""
        data = asdict(self)
        data["type"] = self.type.value
        data["tags"] = sorted(self.tags)
        return data

    def with_previous_run(self, last_state: str | None, last_summary: str | None) -> Notification:
        """This notification with its check's previous state run: dataclasses.replace without its work per
        field (the frozen __init__ of 16 fields; done once per notification of a batch)."""
        copied = object.__new__(type(self))
        copied.__dict__.update(self.__dict__, last_state=last_state, last_summary=last_summary)
        return copied

    @property
    def is_problem(self) -> bool:
        """True for problem notifications (the only ones added to rollup sets)."""
        return self.type is NotificationType.PROBLEM


def notification_type_for(event: Event) -> NotificationType:
    """The notification an event that passed the filters generates (engine.md 4.1)."""
    if event.is_test:
        return NotificationType.TEST
    if event.is_acknowledgement:
        return NotificationType.ACKNOWLEDGEMENT
    if event.is_ok:
        return NotificationType.RECOVERY
    return NotificationType.PROBLEM
