"""What the UI lists about checks (pure): one check as a row, with its latest alerts.

CheckRow is the one row type of the overview's triage, the entity, check and status pages: read by
flapjack_py.store.triage (the facts, in Lua) and flapjack_py.store.read_models (the alerts); filtered and
sorted by flapjack_py.views.triage. No Redis, no clock.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from flapjack_py import keys
from flapjack_py.model.events import FAILURE_STATES


@dataclass
class Alert:
    """One alert:ID record, plus the contact's name when known."""

    id: str
    timestamp: int | None
    contact: str
    contact_name: str
    media: str
    address: str
    check: str
    type: str
    rollup: str
    state: str
    subject: str
    status: str
    error: str = ""
    delivered_at: int | None = None
    escalation_policy: str = ""  # the escalation policy that paged the contact (and at which level)
    escalation_level: int | None = None
    actor: str = ""  # acknowledgements: who acknowledged (flapjack_py.model.actors)

    @property
    def entity(self) -> str:
        return keys.split_check_id(self.check)[0]

    @property
    def check_name(self) -> str:
        return keys.split_check_id(self.check)[1]


@dataclass(slots=True)
class CheckRow:
    """One check: state, texts, times, what handles it, and its latest alerts when a list shows them (slots,
    not frozen: the overview builds thousands of them per request)."""

    entity: str
    check: str
    state: str | None
    summary: str
    last_change: int | None
    last_update: int | None
    failing_since: int | None
    acknowledged: bool
    """In unscheduled maintenance (what an acknowledgement creates)."""
    scheduled: bool
    """In scheduled maintenance."""
    enabled: bool
    """Among its entity's current checks."""
    alerts: list[Alert] = field(default_factory=list)
    inhibited_by: str = ""
    """A failing check it depends on (flapjack_py.model.dependencies): its problems are not paged meanwhile."""
    ack_by: str = ""
    """Who acknowledged it (the acknowledgement in force's actor), when a list names them."""
    ack_at: int | None = None
    """When that acknowledgement began."""

    @property
    def id(self) -> str:
        return f"{self.entity}:{self.check}"

    @property
    def failing(self) -> bool:
        return self.state in FAILURE_STATES

    @property
    def handled(self) -> bool:
        """Failing, and someone or something is on it: acknowledged, in maintenance, disabled or inhibited."""
        return self.failing and is_handled(self.acknowledged, self.scheduled, self.enabled, bool(self.inhibited_by))

    @property
    def unhandled(self) -> bool:
        return self.failing and not self.handled

    @property
    def since(self) -> int | None:
        """Start of what the list shows as its duration: failing since, else the last state change."""
        return self.failing_since if self.failing and self.failing_since else self.last_change


def is_handled(acknowledged: bool, scheduled: bool, enabled: bool, inhibited: bool = False) -> bool:
    """A failing check is handled when acknowledged, in scheduled maintenance, disabled or inhibited by a failing
    check it depends on (the one definition behind the overview's split and the flapjack_checks_unhandled gauge)."""
    return acknowledged or scheduled or not enabled or inhibited
