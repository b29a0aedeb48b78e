"""Is a run right, however fast it was? What the bench saw after a run, and the verdict. Pure.

A run is right when every event pushed was counted (`lost` = 0), nothing is left
on the queue or in flight, the rq queues hold exactly the expected alerts and
each check's state is the last one sent for it. A delivery run is right when the
alerts recorded are the expected number and the servers accepted each of them
exactly once (`undelivered` = 0, `duplicates` = 0).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum


class Failure(StrEnum):
    """The `reason` of `bench.result status=fail`, in the order they are reported."""

    LOST_EVENTS = "lost_events"
    INFLIGHT_LEFT = "inflight_left"
    ALERT_COUNT = "alert_count"
    STATE_MISMATCH = "state_mismatch"
    UNDELIVERED = "undelivered"
    DUPLICATES = "duplicates"


@dataclass(frozen=True)
class Observation:
    """What one run left behind."""

    pushed: int  # events put on the queue
    counted: int  # growth of event_counters `all` during the run
    queued_left: int = 0  # events still on the queue
    in_flight_left: int = 0  # events on in-flight lists
    alerts: int = 0  # jobs added to the rq queues
    alerts_expected: int = 0
    expected_states: Mapping[tuple[str, str], str] = field(default_factory=dict)
    states: Mapping[tuple[str, str], str | None] = field(default_factory=dict)

    @property
    def lost(self) -> int:
        """Events pushed and never counted."""
        return self.pushed - self.counted

    @property
    def mismatched(self) -> list[tuple[str, str]]:
        """Checks whose state is not the last one sent."""
        return [ids for ids, state in self.expected_states.items() if self.states.get(ids) != state]


def failures(obs: Observation) -> list[Failure]:
    """Every way the run is wrong, in reporting order (empty = right)."""
    found = []
    if obs.lost:
        found.append(Failure.LOST_EVENTS)
    if obs.queued_left or obs.in_flight_left:
        found.append(Failure.INFLIGHT_LEFT)
    if obs.alerts != obs.alerts_expected:
        found.append(Failure.ALERT_COUNT)
    if obs.mismatched:
        found.append(Failure.STATE_MISMATCH)
    return found


def correctness_fields(obs: Observation) -> dict[str, object]:
    """The correctness fields of a scenario's JSON record."""
    return {"lost": obs.lost, "queued_left": obs.queued_left, "in_flight_left": obs.in_flight_left,
            "alerts": obs.alerts, "alerts_expected": obs.alerts_expected, "state_mismatches": len(obs.mismatched),
            "failures": [str(f) for f in failures(obs)]}


@dataclass(frozen=True)
class Tally:
    """How the deliveries the servers accepted compare with the alerts recorded."""

    expected: int  # alerts recorded (distinct keys)
    delivered: int  # of those, how many the servers accepted at least once
    duplicates: int  # acceptances beyond the first of an alert
    undelivered: int  # alerts recorded and never accepted
    unexpected: int  # acceptances of no recorded alert

    def failures(self, alerts: int, alerts_expected: int) -> list[Failure]:
        """Every way a delivery run is wrong (empty = right), in reporting order; `alerts` were recorded
        of `alerts_expected`."""
        found = [Failure.ALERT_COUNT] if alerts != alerts_expected else []
        if self.undelivered:
            found.append(Failure.UNDELIVERED)
        if self.duplicates:
            found.append(Failure.DUPLICATES)
        return found


def tally_deliveries(expected: Iterable[str], received: Iterable[str]) -> Tally:
    """Compare the keys of the alerts recorded (`expected`) with those of every delivery the servers
    accepted (`received`, one per acceptance, so an alert delivered twice is in it twice)."""
    wanted = set(expected)
    seen = Counter(received)
    delivered = sum(1 for key in wanted if key in seen)
    return Tally(expected=len(wanted), delivered=delivered,
                 duplicates=sum(count - 1 for key, count in seen.items() if key in wanted),
                 undelivered=len(wanted) - delivered,
                 unexpected=sum(count for key, count in seen.items() if key not in wanted))
