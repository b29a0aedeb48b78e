"""What the executive hands a notifier: one request per notification of a batch, the `Notifying` protocol
it calls (flapjack_py.notify.notifier.Notifier, injected by the composition root) and the notify-log line written
once a request's alerts are committed."""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from flapjack_py.config.redaction import mask_address
from flapjack_py.config.settings import Config
from flapjack_py.model.alert import Alert
from flapjack_py.model.escalation import Paged
from flapjack_py.model.notification import Notification
from flapjack_py.notify.rollup import FactsChange
from flapjack_py.store.plumbing.staged import Reads
from flapjack_py.store.plumbing.writes import WriteBuffer

log = logging.getLogger(__name__)

NOTIFY_LOG_SEPARATOR = " | "


@dataclass
class NotifyRequest:
    """One notification of a batch: its event's position in the batch and the buffer its writes go to."""

    notification: Notification
    now: int
    index: int
    entity_id: str | None
    writes: WriteBuffer
    latest: bool = False  # its event changed the state just now (executive: its previous run is the newest change)
    alerts: list[Alert] = field(default_factory=list)  # filled by Notifier.notify
    error: Exception | None = None  # set when deciding this notification failed (its event is rejected)
    escalation: Mapping[str, Paged] | None = None  # an escalation step (flapjack_py.notify.escalator): whom it pages


class Notifying(Protocol):
    """What the executive needs of its notifier."""

    def notify(self, requests: Sequence[NotifyRequest], changes: Mapping[str, Sequence[FactsChange]] | None = None,
               watch: Callable[[list[str]], None] | None = None, reads: Reads[Any] | None = None) -> None:
        """Decide and write the alerts of `requests` (in batch order) into their writes, making `reads`
        (flapjack_py.store.plumbing.staged) before deciding; see Notifier.notify."""


def notify_logger(config: Config) -> Callable[[WriteBuffer], None]:
    """What a commit calls with each WriteBuffer it applied: the notify-log lines of its alerts."""
    def committed(writes: WriteBuffer) -> None:
        for fields in writes.notify_log:
            write_notify_log(config, *fields)
    return committed


def write_notify_log(config: Config, *fields: str) -> None:
    """Write one notify-log line (`E:C | TYPE | CID | MEDIUM | ADDRESS`) to the log and the configured file."""
    path = config.executive.notification_log_file
    if not path and not log.isEnabledFor(logging.INFO):  # a storm writes thousands: none formatted for nothing
        return
    if len(fields) == 5:  # E:C, TYPE, CID, MEDIUM, ADDRESS: a PagerDuty address is its routing key
        fields = (*fields[:4], mask_address(fields[3], fields[4]))
    line = NOTIFY_LOG_SEPARATOR.join(str(f) for f in fields)
    log.info("notify: %s", line)
    if not path:
        return
    try:
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(line + "\n")
    except OSError as exc:
        log.warning("cannot write notification log %s: %s", path, exc)
