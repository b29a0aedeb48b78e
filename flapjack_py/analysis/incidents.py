"""On-call analytics facts and incidents (issue 32). Pure.

The facts are what store/analytics.py reads for a period: the alert records (pages), each paged check's state
changes (with the change just before the period) and its acknowledgements (unscheduled maintenance windows and
who made them), and the contacts' time zones. An incident is one failure of a check, from its first non-ok state
to the next ok, that paged someone; its pages, first page, first acknowledgement and recovery are what MTTA,
MTTR, self-resolved and never-acknowledged are computed from (analysis/analytics.py).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from operator import attrgetter
from typing import NamedTuple

PAGE_TYPES = ("problem", "recovery", "acknowledgement")
"""Alert types counted as pages (test notifications are not)."""


class Page(NamedTuple):
    """One alert record: who was paged, how, about what, when (a tuple: a week holds 100,000 of them)."""

    ts: int
    contact: str
    medium: str
    check: str  # ENTITY:CHECK ('' for a rollup alert)
    type: str  # problem, recovery, acknowledgement
    state: str = ""
    policy: str = ""  # the escalation policy that paged, if one did


class Ack(NamedTuple):
    """An acknowledgement: the start of an unscheduled maintenance window and who made it."""

    ts: int
    actor: str = ""


@dataclass(frozen=True)
class Facts:
    """Everything the figures of [since, until] are computed from."""

    since: int
    until: int
    pages: Sequence[Page]  # those of PAGE_TYPES within [since, until]
    changes: Mapping[str, Sequence[tuple[int, str]]] = field(default_factory=dict)  # check -> (ts, state), by ts
    acks: Mapping[str, Sequence[Ack]] = field(default_factory=dict)  # check -> acks, by ts
    zones: Mapping[str, str] = field(default_factory=dict)  # contact id -> time zone name
    flapping: frozenset[str] = frozenset()  # checks flapping (flap detection) since before `until`


@dataclass(slots=True)
class Incident:
    """One failure of a check that paged: failing from `start`, recovered at `end` (None: not in the period)."""

    check: str
    start: int
    end: int | None
    first_page: int
    pages: int = 0
    ack: Ack | None = None

    @property
    def mtta(self) -> int | None:
        """Seconds from the first page to the first acknowledgement (0 when acknowledged before it)."""
        return None if self.ack is None else max(self.ack.ts - self.first_page, 0)

    @property
    def mttr(self) -> int | None:
        """Seconds from the first failure to the recovery."""
        return None if self.end is None else self.end - self.start

    def self_resolved(self, within: int) -> bool:
        """Recovered within `within` s of failing with nobody acknowledging it."""
        return self.ack is None and self.end is not None and self.end - self.start <= within


def failures(changes: Sequence[tuple[int, str]]) -> list[tuple[int, int | None]]:
    """(start, end) of each failure in a check's state changes: first non-ok change to the next ok (None: open)."""
    found: list[tuple[int, int | None]] = []
    start: int | None = None
    for ts, state in changes:
        if state == "ok" and start is not None:
            found.append((start, ts))
            start = None
        elif state != "ok" and start is None:
            start = ts
    if start is not None:
        found.append((start, None))
    return found


def incidents(facts: Facts) -> list[Incident]:
    """The incidents of the period: each failure that holds a problem page of the period, with its pages and first
    acknowledgement; a problem page outside every known failure (state history trimmed) starts one of its own."""
    problems: dict[str, list[int]] = {}
    for page in facts.pages:
        if page.type == "problem" and page.check:
            problems.setdefault(page.check, []).append(page.ts)
    found: list[Incident] = []
    for check, stamps in problems.items():
        found += _check_incidents(check, sorted(stamps), facts.changes.get(check, ()), facts.acks.get(check, ()))
    found.sort(key=attrgetter("first_page", "check"))
    return found


def _check_incidents(check: str, stamps: list[int], changes: Sequence[tuple[int, str]],
                     acks: Sequence[Ack]) -> list[Incident]:
    spans = failures(changes)
    starts = [s for s, _ in spans]
    by_span: dict[int, Incident] = {}
    found: list[Incident] = []
    for ts in stamps:
        i = bisect_left(starts, ts + 1) - 1
        if i >= 0 and (spans[i][1] is None or ts < (spans[i][1] or 0)):
            incident = by_span.get(i)
            if incident is None:
                incident = by_span[i] = Incident(check, spans[i][0], spans[i][1], ts)
                found.append(incident)
        else:  # no state history around it: an incident of its own, as long as its page
            incident = Incident(check, ts, None, ts)
            found.append(incident)
        incident.pages += 1
    for incident in found:
        incident.ack = next((a for a in acks if incident.start <= a.ts and (incident.end is None
                                                                             or a.ts <= incident.end)), None)
    return found
