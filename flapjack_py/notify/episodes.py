"""Everyone paged hears that it is over (issue 33 item 3): the notifier's record of who was paged for a check's
problem episode, and the recovery owed to each of them.

Every problem alert adds its (contact, medium) to the check's episode (store/paged.py, on the notifying
event's writes: the batch's one MULTI). A recovery goes, besides whomever the contact's rules select now, to
every contact of the episode (each medium it was paged on) exactly once, whether an acknowledgement ended the escalation that paged it or the
rules and schedules changed since; then the episode is forgotten. `BatchEpisodes` keeps the batch read
(store/notify_data.py) up to date with the batch's own decisions, in batch order.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

from flapjack_py.model.alert import Alert
from flapjack_py.model.contacts import ContactDetails, Medium
from flapjack_py.model.notification import Notification, NotificationType
from flapjack_py.store import paged as store
from flapjack_py.store.plumbing.writes import WriteBuffer

Target = tuple[ContactDetails, Medium]


class NotifyRequest(Protocol):
    """What the episodes read of a notifier.NotifyRequest."""

    notification: Notification
    now: int
    writes: WriteBuffer


class Tracing(Protocol):
    """What the episodes write of a decisions.Trace."""

    def contact(self, contact_id: str, outcome: str) -> None: ...


class BatchEpisodes:
    """Who was paged for each recovering check of a batch, as the batch's notifications leave it."""

    def __init__(self, stored: Mapping[str, Sequence[store.Pair]]) -> None:
        self.pairs: dict[str, list[store.Pair]] = {check: list(pairs) for check, pairs in stored.items()}

    def of(self, request: NotifyRequest) -> list[store.Pair]:
        """The pairs a recovery is owed (none for other notifications)."""
        n = request.notification
        return list(self.pairs.get(n.event_id, ())) if n.type is NotificationType.RECOVERY else []

    def owed(self, episode: Sequence[store.Pair], contacts: Mapping[str, ContactDetails],
             considered: Sequence[ContactDetails], targets: Sequence[Target], trace: Tracing) -> list[Target]:
        """The episode's pairs of each contact `targets` leave out, each once (a contact the rules did not
        consider is traced as `paged`); a contact or medium deleted since, or without an address now, is skipped.
        A contact the rules (or an escalation) give media keeps those: as in Flapjack 1.x, a recovery goes to
        the media of the highest severity notified (engine.md 3.0), not to a warning's medium too."""
        have = {(d.contact.id, m.type) for d, m in targets}
        told = {d.contact.id for d, _ in targets}
        seen = {d.contact.id for d in considered}
        found: list[Target] = []
        for cid, medium in episode:
            details = contacts.get(cid)
            if cid in told or (cid, medium) in have or details is None or medium not in details.media:
                continue
            if not details.media[medium].address:
                continue
            if cid not in seen:
                trace.contact(cid, "paged")
                seen.add(cid)
            have.add((cid, medium))
            found.append((details, details.media[medium]))
        return found

    def after(self, request: NotifyRequest, alerts: Sequence[Alert]) -> None:
        """Record a problem's alerts on its episode; forget the episode of a recovery."""
        n = request.notification
        if n.type is NotificationType.RECOVERY:
            store.clear(request.writes, n.entity, n.check)
            self.pairs[n.event_id] = []
        elif n.type is NotificationType.PROBLEM and alerts:
            pairs = [(a["contact"], a["media"]) for a in alerts]
            store.record(request.writes, n.entity, n.check, pairs, request.now)
            known = self.pairs.setdefault(n.event_id, [])
            known += [p for p in pairs if p not in known]
