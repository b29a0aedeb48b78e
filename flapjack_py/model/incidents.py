"""Incidents (issue 33 item 2): one outage, one page. Pure: no Redis, no clock.

Problems are grouped by `incidents.group_by` (entity, tag:NAME, check or none). The first problem of a group
opens an incident; a problem of the same group joins it until `window` seconds after its last new problem
(a check already in it stays in it). A contact medium paged for the incident is not paged again for the
checks that join it: at most one "incident updated" message per `update_interval`. Per-check recoveries are
held while the incident has failing checks; the last one resolves it with one "incident resolved" message
per contact medium paged for it.

The group's live state (`Head`) is one Redis hash per group (store/incidents.py), which every executive
WATCHes before it reads it: two executives agree on one incident per group.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

Pair = tuple[str, str]
"""(contact id, medium)."""


def group_of(group_by: str, entity: str, check_id: str, tags: Iterable[str]) -> str | None:
    """The incident group of a check (None: not grouped)."""
    if group_by == "entity":
        return f"entity={entity}"
    if group_by == "check":
        return f"check={check_id}"
    if group_by.startswith("tag:"):
        return f"tag={group_by[4:]}" if group_by[4:] in tags else None
    return None


def title_of(group: str) -> str:
    """An incident's title from its group (`entity=foo`, `tag=db`, `check=foo:PING`): `entity foo` ..."""
    kind, _, value = group.partition("=")
    return f"{kind} {value}"


def new_id(now: int) -> str:
    """A new incident id: sortable by time, unique."""
    return f"{now:x}-{os.urandom(4).hex()}"


@dataclass(frozen=True)
class Live:
    """What an executive keeps of an open incident in its group's head."""

    opened_at: int
    last_problem_at: int
    title: str
    acknowledged_at: int | None = None
    checks: int = 0  # how many checks joined it

    @property
    def grouped(self) -> bool:
        """Whether it holds more than one check (else its messages are its check's own)."""
        return self.checks > 1

    def accepts(self, now: int, window: int) -> bool:
        """Whether a new problem at `now` joins the incident."""
        return now <= self.last_problem_at + window


@dataclass
class Head:
    """A group's open incidents: which one new problems join, each one's Live, its checks still failing and
    the contact media it paged (pair -> unix time of the last message to it)."""

    current: str = ""
    live: dict[str, Live] = field(default_factory=dict)
    checks: dict[str, str] = field(default_factory=dict)  # E:C -> incident id ("": none)
    paged: dict[str, dict[Pair, int]] = field(default_factory=dict)

    def failing(self, incident_id: str) -> list[str]:
        return [c for c, i in self.checks.items() if i == incident_id]

    def joined(self, check_id: str, incident_id: str, now: int) -> None:
        self.checks[check_id] = incident_id
        live = self.live[incident_id]
        self.live[incident_id] = replace(live, last_problem_at=now, checks=live.checks + 1)


def live_to_json(live: Live) -> str:
    return json.dumps([live.opened_at, live.last_problem_at, live.title, live.acknowledged_at, live.checks])


def head_from_hash(stored: Mapping[str, str]) -> Head:
    """A Head from its hash: `current`, `i:ID` (Live JSON), `c:E:C` (ID) and `p:ID:[contact, medium]` (time);
    empty values are gone, damaged ones ignored."""
    head = Head(current=stored.get("current", ""))
    for name, value in stored.items():
        kind, _, rest = name.partition(":")
        if not value:
            continue
        try:
            if kind == "i":
                opened, last, title, acked, checks = json.loads(value)
                head.live[rest] = Live(int(opened), int(last), str(title), None if acked is None else int(acked),
                                       int(checks))
            elif kind == "c":
                head.checks[rest] = value
            elif kind == "p":
                incident_id, _, pair = rest.partition(":")
                contact, medium = json.loads(pair)
                head.paged.setdefault(incident_id, {})[(str(contact), str(medium))] = int(value)
        except (ValueError, TypeError):
            continue
    head.checks = {c: i for c, i in head.checks.items() if i in head.live}
    return head


def paged_field(incident_id: str, pair: Pair) -> str:
    return f"p:{incident_id}:{json.dumps(list(pair))}"


def update_text(incident_id: str, title: str, failing: int) -> str:
    return f"incident {incident_id} ({title}) updated: {failing} checks failing"


def resolved_text(incident_id: str, title: str) -> str:
    return f"incident {incident_id} ({title}) resolved: all its checks recovered"


def entry(at: int, kind: str, **fields: Any) -> str:
    """A timeline entry's JSON: time, kind and its fields (None left out)."""
    return json.dumps({"at": at, "kind": kind, **{k: v for k, v in fields.items() if v is not None}})
