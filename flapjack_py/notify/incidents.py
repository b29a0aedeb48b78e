"""The notifier's incidents (issue 33 item 2; the rules in flapjack_py.model.incidents): which incident a
notification belongs to, what it does to it, and which of its contact media are folded into it.

`BatchIncidents` decides in batch order on the groups' live state read with the batch (store/incidents.py,
WATCHed), kept up to date in memory, writing into each notification's WriteBuffer (the batch's one MULTI).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Protocol

from flapjack_py.config.settings import IncidentsConfig
from flapjack_py.model.alert import Alert, AlertShared
from flapjack_py.model.incidents import Head, Live, Pair, entry, group_of, new_id, resolved_text, title_of, update_text
from flapjack_py.model.notification import Notification, NotificationType
from flapjack_py.store import incidents as store
from flapjack_py.store.plumbing.writes import WriteBuffer

log = logging.getLogger(__name__)


class NotifyRequest(Protocol):
    notification: Notification
    now: int
    writes: WriteBuffer


@dataclass
class InIncident:
    """A notification's incident and what it does: `problem` (opened it or joined it), `held` (a recovery
    or an acknowledgement folded into it: nobody is alerted), `resolved` (its last check recovered: the
    media it paged are told) or `acknowledged` (its first acknowledgement: alerted as usual)."""

    group: str
    id: str
    live: Live
    what: str
    paged: dict[Pair, int] = field(default_factory=dict)  # the incident's: pair -> last message
    failing: int = 0
    joined: bool = False  # a problem of a check that joined it now (not the one that opened it)


class BatchIncidents:
    """The incident groups of a batch as its notifications leave them."""

    def __init__(self, config: IncidentsConfig, heads: Mapping[str, Head]) -> None:
        self.config = config
        self.heads = dict(heads)

    def group(self, n: Notification) -> str | None:
        return group_of(self.config.group_by, n.entity, n.event_id, n.tags)

    def decide(self, request: NotifyRequest) -> InIncident | None:
        """The incident of a request (None: not in one), after recording what it does to it."""
        n = request.notification
        group = self.group(n)
        if group is None or group not in self.heads:
            return None
        head = self.heads[group]
        if n.type is NotificationType.PROBLEM:
            return self._problem(request, group, head)
        incident_id = head.checks.get(n.event_id)
        if not incident_id:
            return None
        found = InIncident(group, incident_id, head.live[incident_id], "held", head.paged.setdefault(incident_id, {}))
        if n.type is NotificationType.RECOVERY:
            return self._recovery(request, head, found)
        if n.type is NotificationType.ACKNOWLEDGEMENT:
            return self._acknowledgement(request, head, found)
        return None

    def _problem(self, request: NotifyRequest, group: str, head: Head) -> InIncident:
        n, now, writes = request.notification, request.now, request.writes
        incident_id = head.checks.get(n.event_id, "")
        joined = not incident_id
        if not incident_id:
            current = head.live.get(head.current)
            if current is not None and current.accepts(now, self.config.window):
                incident_id = head.current
            else:
                incident_id, joined = new_id(now), False
                head.current, head.live[incident_id] = incident_id, Live(now, now, title_of(group))
                store.opened(writes, group, incident_id, head.live[incident_id])
                log.info("%s: opened incident %s (%s)", n.event_id, incident_id, group)
            head.joined(n.event_id, incident_id, now)
            store.joined(writes, group, incident_id, head.live[incident_id], n.event_id, now)
        paged = getattr(request, "escalation", None)
        store.timeline(writes, incident_id, _event(n, now) if paged is None else entry(
            now, "escalation", check=n.event_id, contacts=sorted(paged), levels=sorted({p.level for p in paged.values()})))
        return InIncident(group, incident_id, head.live[incident_id], "problem", head.paged.setdefault(incident_id, {}),
                          len(head.failing(incident_id)), joined)

    def _recovery(self, request: NotifyRequest, head: Head, found: InIncident) -> InIncident:
        n, now, writes = request.notification, request.now, request.writes
        head.checks[n.event_id] = ""
        store.left(writes, found.group, n.event_id)
        store.timeline(writes, found.id, _event(n, now))
        found.failing = len(head.failing(found.id))
        if found.failing == 0:
            found.what = "resolved"
            store.resolved(writes, found.group, found.id, head, now, self.config.retention)
            head.live.pop(found.id, None)
            head.paged.pop(found.id, None)
            log.info("%s: its recovery resolved incident %s", n.event_id, found.id)
        return found

    def _acknowledgement(self, request: NotifyRequest, head: Head, found: InIncident) -> InIncident:
        n, now, writes = request.notification, request.now, request.writes
        store.timeline(writes, found.id, _event(n, now))
        if found.live.acknowledged_at is None:
            found.live = head.live[found.id] = replace(found.live, acknowledged_at=now)
            store.acknowledged(writes, found.group, found.id, found.live, n.actor or "", n.channel or "")
            found.what = "acknowledged"
        return found

    def page(self, request: NotifyRequest, found: InIncident, pair: Pair, alert_id: str, kind: str) -> None:
        """Record a message of the incident to `pair` (its page, update or resolution)."""
        now, writes = request.now, request.writes
        if found.what == "problem":
            found.paged[pair] = now
            store.paged(writes, found.group, found.id, pair, now)
        store.timeline(writes, found.id, entry(now, "page", check=request.notification.event_id, contact=pair[0],
                                              medium=pair[1], alert=alert_id, type=kind))

    def sent(self, request: NotifyRequest, found: InIncident | None, alerts: Sequence[Alert]) -> None:
        """Record the alerts of a notification in an incident (a problem's: the media it paged)."""
        if found is not None:
            for alert in alerts:
                self.page(request, found, (alert["contact"], alert["media"]), alert["id"], alert["type"])
            if found.what == "resolved":  # after the pages that tell it
                store.timeline(request.writes, found.id, entry(request.now, "resolved"))

    def folded(self, found: InIncident, pair: Pair, now: int) -> str | None:
        """For a problem in an incident: None (page `pair` as usual: the incident has not paged it, or it is
        one check's own), `update` (send it an "incident updated") or `folded` (tell it nothing now). A check
        joining it, and any problem of an incident of several checks (repeats, escalation levels), are folded."""
        last = found.paged.get(pair)
        if found.what != "problem" or last is None or not (found.joined or found.live.grouped):
            return None
        return "update" if now - last >= self.config.update_interval else "folded"


def _event(n: Notification, now: int) -> str:
    return entry(now, n.type.value, check=n.event_id, state=n.state, summary=n.summary, actor=n.actor,
                 channel=n.channel)


def label(shared: AlertShared, found: InIncident | None) -> None:
    """The summary of a recovery's alerts when it resolved an incident of several checks."""
    if found is not None and found.what == "resolved" and found.live.grouped:
        shared["summary"] = resolved_text(found.id, found.live.title)


def update(found: InIncident) -> str:
    """The summary of an "incident updated" message."""
    return update_text(found.id, found.live.title, found.failing)


def owed(found: InIncident | None) -> list[Pair]:
    """The contact media a recovery that resolved its incident owes its resolution (in paging order)."""
    if found is None or found.what != "resolved":
        return []
    return sorted(found.paged, key=lambda pair: found.paged[pair])


def held(request: NotifyRequest, found: InIncident, reset: Callable[[str, str], None]) -> list[Alert]:
    """A recovery or acknowledgement folded into its incident: nobody is told; a recovery resets the check's
    intervals (`reset`) on the media the incident paged, as the recovery it stands for would have."""
    if request.notification.type is NotificationType.RECOVERY:
        for cid, medium in found.paged:
            reset(cid, medium)
    return []
