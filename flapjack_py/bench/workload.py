"""What the bench sends: the check population, the events (valid contract events of ~350 bytes),
the contacts, media and rules the alerting scenarios need, and the executive's configuration.

Event and population building is pure; `add_contacts` writes through the project's store functions.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from flapjack_py import keys
from flapjack_py.model.rules import general_rule
from flapjack_py.store import contacts as contact_store
from flapjack_py.store import entities as entity_store
from flapjack_py.store import media as media_store
from flapjack_py.store import rules as rule_store
from flapjack_py.store.plumbing.client import StrRedis

log = logging.getLogger(__name__)

CHECKS_PER_ENTITY = 10
MEDIA = ("email", "sms")
CONTACTS = 3
FLAP_EVERY = 10  # one check in ten alternates critical/ok in the failing mix
DETAILS = "Checked via the agent on port 5666; no retries."
TAGS = ("bench", "tier-1")
_PERFDATA = "time=0.048213s;1;2;0 size=909B;;;0"


@dataclass(frozen=True)
class Population:
    """`entities` x 10 checks; every `flap_every`-th check (0 = none) alternates critical/ok."""

    entities: int
    flap_every: int = 0

    @property
    def size(self) -> int:
        """Number of checks."""
        return self.entities * CHECKS_PER_ENTITY

    def check(self, index: int) -> tuple[str, str]:
        """(entity, check) of check number `index`: bench-EEEE.example.com, check-CC."""
        return check_of(index)

    def flaps(self, index: int) -> bool:
        """True when check `index` alternates critical/ok."""
        return self.flap_every > 0 and index % self.flap_every == 0

    def state(self, n: int) -> str:
        """State of the `n`-th event of a round robin over the checks (0-based)."""
        index, turn = n % self.size, n // self.size
        return "critical" if self.flaps(index) and turn % 2 == 0 else "ok"

    def flapping_events(self, events: int) -> int:
        """How many of the first `events` round-robin events belong to flapping checks."""
        return sum(1 for n in range(events) if self.flaps(n % self.size))

    def flapping_checks(self, events: int) -> dict[tuple[str, str], int]:
        """(entity, check) -> how many of the first `events` round-robin events it gets, for flapping checks."""
        return {self.check(i): len(range(i, events, self.size)) for i in range(min(events, self.size))
                if self.flaps(i)}


def check_of(index: int) -> tuple[str, str]:
    """(entity, check) of the bench's check number `index`: bench-EEEE.example.com, check-CC."""
    return f"bench-{index // CHECKS_PER_ENTITY:04d}.example.com", f"check-{index % CHECKS_PER_ENTITY:02d}"


def event_summary(check: str, state: str) -> str:
    """The summary of a bench event without one of its own."""
    return f"{check.upper()} {state.upper()}: bench event"


def notifications_of_flapping(times: list[int]) -> int:
    """Notifications that alert people for a flapping check's events at `times` (critical, ok, critical, ...
    each a state change, nothing notified before), by engine.md 3.0/3.1 and 5.5 on their own: every critical
    is notified; an ok only when the last notification was the critical (a recovery and a problem in the same
    second tie towards the recovery, so ok-critical-ok within one second does not notify the second ok). A
    problem alert sets the contact's interval key (the bench's interval 0 means the default 900 s) and only
    an alerted recovery clears it, so the critical after an unnotified ok is notified but alerts nobody."""
    made, last_problem, last_recovery, held = 0, None, None, False
    for n, at in enumerate(times):
        if n % 2 == 0:
            made, last_problem, held = made + (0 if held else 1), at, True
        elif last_problem is not None and (last_recovery is None or last_problem > last_recovery):
            made, last_recovery, held = made + 1, at, False
    return made


def population_for(checks: int, flapping: bool) -> Population:
    """The population of `checks` checks (rounded up to whole entities)."""
    return Population(-(-checks // CHECKS_PER_ENTITY), FLAP_EVERY if flapping else 0)


def make_event(entity: str, check: str, state: str, now: int, summary: str = "") -> str:
    """A valid service event of ~350 bytes (summary, details, tags, perfdata, event-level delays of 0)."""
    return json.dumps({
        "entity": entity, "check": check, "type": "service", "state": state, "time": now,
        "summary": summary or event_summary(check, state),
        "details": DETAILS, "perfdata": _PERFDATA, "tags": list(TAGS),
        "initial_failure_delay": 0, "repeat_failure_delay": 0,
    })


def seed_events(pop: Population, now: int) -> list[str]:
    """One `ok` event per check, so every check is known and ok before timing."""
    return [make_event(*pop.check(i), "ok", now) for i in range(pop.size)]


@dataclass(frozen=True)
class Workload:
    """Events to push, the last state sent per check and how many of them notify."""

    raws: list[str]
    last: dict[tuple[str, str], str]
    notifying: int


def round_robin(pop: Population, events: int, now: int) -> Workload:
    """`events` round-robin events; every event of a flapping check notifies (problem, then recovery)."""
    raws, last = [], {}
    for n in range(events):
        ids, state = pop.check(n % pop.size), pop.state(n)
        raws.append(make_event(*ids, state, now))
        last[ids] = state
    return Workload(raws, last, pop.flapping_events(events))


def everyone_fails(pop: Population, events: int, now: int) -> Workload:
    """One `critical` event per check (the storm; `events` is ignored): each notifies."""
    ids = [pop.check(i) for i in range(pop.size)]
    return Workload([make_event(*i, "critical", now) for i in ids], dict.fromkeys(ids, "critical"), len(ids))


GATEWAYS = {"email": {"enabled": True}, "sms": {"enabled": True, "username": "bench", "password": "unused"}}
"""Enabled so the notifier queues jobs; no gateway runs, nothing is sent (sms requires credentials when enabled)."""


def executive_config(url: str) -> dict[str, Any]:
    """The executive's config: no new-check maintenance, email and sms enabled (jobs queued, nobody delivers),
    incidents by check: every failure opens (and its recovery resolves) an incident of its own, so each alert
    pays the incident bookkeeping and the alerts are those of checks without incidents (issue 33)."""
    return {
        "redis": {"url": url},
        "executive": {"new_check_scheduled_maintenance_duration": 0},
        "incidents": {"group_by": "check"},
        "gateways": GATEWAYS,
        "logging": {"level": "WARNING"},
    }


def address_of(medium: str, n: int) -> str:
    """The address of the bench's contact number `n` on `medium` (a PagerDuty routing key is 32 characters)."""
    if medium == "email":
        return f"oncall{n}@example.com"
    if medium == "pagerduty":
        return f"benchroutingkey{n:017d}"
    return f"+1555000{n:04d}"


def add_contacts(client: StrRedis, count: int = CONTACTS, media: Sequence[str] = MEDIA) -> list[str]:
    """`count` contacts for every entity (ALL), each with `media` (interval 0; addresses address_of) and one
    rule matching everything with those media as critical and warning media; return their ids."""
    ids = []
    for n in range(count):
        cid = contact_store.create_contact(client, {"first_name": f"Bench{n}", "last_name": "Oncall",
                                                    "email": address_of("email", n)})
        for medium in media:
            media_store.set_medium(client, cid, medium, address_of(medium, n), interval=0)
        rule_id = rule_store.rule_ids(client, cid)[0]  # the automatic general rule, replaced by ours
        rule = replace(general_rule(cid, rule_id), critical_media=list(media), warning_media=list(media))
        rule_store.save_rule(client, rule)
        ids.append(cid)
    entity_store.add_entity_contacts(client, keys.ALL_ENTITIES_ID, ids)
    return ids
