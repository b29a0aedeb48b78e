"""The notifier's escalation hook: level 1 with a problem; everyone paged (every medium it alerted) with an
acknowledgement or a recovery, which end it. The next levels are flapjack_py.executive.escalation_chore.

Decisions are flapjack_py.model.escalation (pure); reads and writes are store/escalation.py. The batch read
(store/notify_data.py) loads each notified check's escalation, the policy a problem would start and the
contacts it pages; `BatchEscalations` decides in batch order on that, kept up to date in memory, writing into
each notification's WriteBuffer.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Protocol

from flapjack_py.model.alert import Alert
from flapjack_py.model.contacts import ContactDetails, Medium
from flapjack_py.model.escalation import Paged, State, on_notification, with_alerted
from flapjack_py.model.notification import Notification
from flapjack_py.store import escalation as store
from flapjack_py.store.plumbing.writes import WriteBuffer

log = logging.getLogger(__name__)

Target = tuple[ContactDetails, Medium]


class NotifyRequest(Protocol):
    """What the hook reads of a notifier.NotifyRequest."""

    notification: Notification
    now: int
    writes: WriteBuffer
    escalation: Mapping[str, Paged] | None


class BatchEscalations:
    """The escalations of a batch's checks as its notifications leave them (the notifier's view)."""

    def __init__(self, data: store.EscalationData) -> None:
        self.data = data
        self.states: dict[str, State] = dict(data.states)
        self._ended: dict[int, State] = {}  # id(request) -> the escalation that request ended

    def paged(self, request: NotifyRequest) -> dict[str, Paged]:
        """The contacts escalation adds to a request (an escalation step: its own), recording any new state."""
        if request.escalation is not None:
            return dict(request.escalation)
        n = request.notification
        paged, new = on_notification(n.type, self.states.get(n.event_id), self.data.policies.get(n.event_id),
                                     self.data.first.get(n.event_id, ()), request.now)
        if new is not None:
            store.save_state(request.writes, n.entity, n.check, new)
            self.states[n.event_id] = new
            if new.ended is not None:
                self._ended[id(request)] = new
            log.info("%s: escalation under policy %s %s: %s", n.event_id, new.policy,
                     f"ended by {new.ended_by}" if new.ended else "at level 1", ", ".join(paged) or "nobody")
        return paged

    def owed(self, request: NotifyRequest, contacts: Sequence[ContactDetails], targets: Sequence[Target]) -> list[Target]:
        """A recovery or acknowledgement that ended an escalation also goes to each medium the escalation alerted
        that the contact's rules no longer select (rules or schedules changed since)."""
        ended = self._ended.get(id(request))
        if ended is None:
            return []
        have = {(d.contact.id, m.type) for d, m in targets}
        details = {d.contact.id: d for d in contacts}
        return [(details[c], details[c].media[m]) for c, m in ended.alerted
                if (c, m) not in have and c in details and m in details[c].media and details[c].media[m].address]

    def alerted(self, request: NotifyRequest, alerts: Sequence[Alert]) -> None:
        """Record on the check's running escalation the media its problem alerts reached."""
        n = request.notification
        state = self.states.get(n.event_id)
        pairs = [(a["contact"], a["media"]) for a in alerts if a.get("escalation_policy")]
        if request.escalation is None and pairs and state is not None and state.running:
            self.states[n.event_id] = with_alerted(state, pairs)
            store.save_state(request.writes, n.entity, n.check, self.states[n.event_id])
