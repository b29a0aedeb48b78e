"""A small world for notifier scenarios: contacts and entities in a real Redis, events through the Executive,
and the alerts each step produced (read back from the alert history, not from the code under test).

Used by tests/integration/test_notifier_*.py; the `notifications` fixture of
tests/integration/conftest.py stubs the notifier, so those modules override it.
"""

from __future__ import annotations

import json
from typing import Any

import redis

from flapjack_py.executive import Executive
from flapjack_py.runtime.connection import clients_for
from flapjack_py.store import contacts as contact_store
from flapjack_py.store import entities as entity_store
from flapjack_py.store import rules as rule_store

ENTITY = "foo"
CHECK = "PING"

Alert = tuple[str, str, str, str, str]
"""(contact, medium, type, rollup, state) of one recorded alert."""


def rule(**fields: Any) -> dict[str, Any]:
    """A notification rule's API-style fields (unset lists null, blackholes false)."""
    return fields


WEEKDAYS_8_TO_18 = {
    "start_time": "2013-02-01 08:00:00", "end_time": "2013-02-01 18:00:00",
    "rrules": [{"rule_type": "Weekly", "interval": 1, "week_start": 0, "validations": {"day": [1, 2, 3, 4, 5]}}],
    "exrules": [], "rtimes": [], "extimes": [],
}
"""Mon-Fri 08:00-18:00 in the contact's zone (engine.md 5.3's example)."""


class World:
    """Contacts, entities and an Executive on one real Redis, with time moved by the `clock` fixture."""

    def __init__(self, client: redis.Redis, clock: Any, **config: Any) -> None:
        clients = clients_for(client)  # this test world's composition: `r` bytes, `s` str (what store/ takes)
        self.r, self.s = client, clients.text
        self.clock = clock
        executive = {"new_check_scheduled_maintenance_duration": 0, **config.pop("executive", {})}
        # Flapjack 1.x's scenarios: no incidents (issue 33) unless a test asks for them
        self.config = {"executive": executive, "incidents": {"group_by": "none"}, **config}
        self.executive = Executive(clients, self.config)
        self._seen: set[str] = set()

    # --- set-up ----------------------------------------------------------

    def contact(self, cid: str, media: dict[str, Any], *, timezone: str | None = None,
                rules: list[dict[str, Any]] | None = None, entities: tuple[str, ...] = (ENTITY,)) -> None:
        """A contact with `media` ({medium: address or {address, interval, rollup_threshold}}) registered for
        `entities`; `rules` replaces its automatic general rule when given."""
        contact_store.create_contact(self.s, {"id": cid, "first_name": cid.title(), "last_name": "Test",
                                              "timezone": timezone, "media": media})
        if rules is not None:
            for rule_id in rule_store.rule_ids(self.s, cid):
                rule_store.delete_rule(self.s, rule_id)
            for i, fields in enumerate(rules):
                self.raw_rule(cid, f"{cid}-rule-{i}", fields)
        for name in entities:
            self.entity(name)
            entity_store.add_entity_contacts(self.s, f"id-{name}", [cid])

    def raw_rule(self, cid: str, rule_id: str, fields: dict[str, Any]) -> None:
        """Store a rule hash as the API would (lists as JSON, booleans 'true'/'false')."""
        data = {"id": rule_id, "contact_id": cid}
        for name in ("entities", "regex_entities", "tags", "regex_tags", "time_restrictions",
                     "unknown_media", "warning_media", "critical_media"):
            data[name] = json.dumps(fields.get(name))
        for name in ("unknown_blackhole", "warning_blackhole", "critical_blackhole"):
            data[name] = "true" if fields.get(name) else "false"
        self.r.hset(f"notification_rule:{rule_id}", mapping=data)
        self.r.sadd(f"contact_notification_rules:{cid}", rule_id)

    def entity(self, name: str) -> None:
        """Make sure entity `name` exists with id `id-<name>`."""
        if entity_store.entity_name(self.s, f"id-{name}") is None:
            entity_store.save_entity(self.s, f"id-{name}", name)

    # --- events and time ---------------------------------------------------

    def event(self, state: str, check: str = CHECK, entity: str = ENTITY, type: str = "service",
              **extra: Any) -> list[Alert]:
        """Push one event, drain the executive, return the alerts it produced."""
        event = {"type": type, "state": state, "entity": entity, "check": check, "summary": f"{check} is {state}"}
        event.update(extra)
        self.r.lpush("events", json.dumps(event))
        self.executive.drain()
        return self.new_alerts()

    def fail(self, state: str = "critical", check: str = CHECK, entity: str = ENTITY, **extra: Any) -> list[Alert]:
        """A failure held for the 30 s initial delay: event, 30 s, event; return the alerts of both."""
        first = self.event(state, check, entity, **extra)
        self.advance(30)
        return first + self.event(state, check, entity, **extra)

    def ack(self, check: str = CHECK, entity: str = ENTITY, **extra: Any) -> list[Alert]:
        """An acknowledgement action event."""
        return self.event("acknowledgement", check, entity, type="action", **extra)

    def test_notifications(self, check: str = CHECK, entity: str = ENTITY) -> list[Alert]:
        """A test_notifications action event."""
        return self.event("test_notifications", check, entity, type="action")

    def advance(self, seconds: float) -> int:
        """Move time (and Redis TTLs) forward."""
        return int(self.clock.advance(seconds))

    def advance_to(self, unix_time: int) -> int:
        """Move time forward to `unix_time`."""
        return self.advance(unix_time - self.clock.now)

    # --- observations -------------------------------------------------------

    def new_alerts(self) -> list[Alert]:
        """Alerts recorded since the last call, as sorted (contact, medium, type, rollup, state) tuples."""
        ids = [i.decode() for i in self.r.zrange("alerts", 0, -1)]
        fresh = [i for i in ids if i not in self._seen]
        self._seen.update(fresh)
        found = []
        for alert_id in fresh:
            data = {k.decode(): v.decode() for k, v in self.r.hgetall(f"alert:{alert_id}").items()}
            found.append((data["contact"], data["media"], data["type"], data["rollup"], data["state"]))
        return sorted(found)

    def alert_records(self) -> list[dict[str, str]]:
        """Every alert:ID hash, decoded."""
        ids = [i.decode() for i in self.r.zrange("alerts", 0, -1)]
        return [{k.decode(): v.decode() for k, v in self.r.hgetall(f"alert:{i}").items()} for i in ids]
