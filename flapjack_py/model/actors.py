"""Who did it: the actor every action (acknowledgement, maintenance, test, incident action) carries. Pure.

An actor is a name and the channel it acted through. The name says who, in the form the channel knows
them: a user name for the UI and API sessions, `token:NAME` for an API token, `jabber:JID`, `matrix:@u:hs`,
`slack:U123`, `email:ADDRESS`, `sms:+NUMBER`, `pagerduty:USER`, `system` for the engine itself. The same
pair travels on the action event (fields `actor`, `channel`), is stored with the maintenance window it
makes, is written on the acknowledgement's alerts and in the audit trail: one field, read everywhere.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

CHANNELS = ("ui", "api", "cli", "jabber", "pagerduty", "matrix", "slack", "mattermost", "email", "sms", "voice",
            "system")
"""Where an action can come from."""
MAX_ACTOR_LENGTH = 200
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


@dataclass(frozen=True)
class Actor:
    """Who acted (`name`), through which channel, and from where when there is an address (a client IP)."""

    name: str
    channel: str
    address: str | None = None

    def label(self) -> str:
        """How the actor is shown: `rex`, `jabber:alice@example.org`."""
        return self.name

    def fields(self) -> dict[str, str]:
        """The action event's / stored record's fields."""
        return {"actor": self.name, "channel": self.channel}


SYSTEM = Actor("system", "system")
"""The engine itself (expiry, housekeeping, the executive's own decisions)."""


def actor_problem(name: object) -> str | None:
    """Why `name` cannot be an actor name, or None."""
    if not isinstance(name, str) or not name.strip():
        return "actor must be a non-empty string"
    if len(name) > MAX_ACTOR_LENGTH:
        return f"actor must be at most {MAX_ACTOR_LENGTH} characters"
    if _CONTROL.search(name):
        return "actor must not contain control characters"
    return None


def channel_problem(channel: object) -> str | None:
    """Why `channel` is not a known channel, or None."""
    if channel in CHANNELS:
        return None
    return f"channel must be one of {', '.join(CHANNELS)}, got {str(channel)[:40]!r}"


def from_fields(actor: str | None, channel: str | None) -> Actor | None:
    """The actor of stored/evented fields; None when no actor was recorded (data from before actors)."""
    if not actor:
        return None
    return Actor(actor, channel if channel in CHANNELS else "api")


def described(actor: Actor | None) -> str:
    """`rex (ui)`, `jabber:alice@x (jabber)`, or `unknown` for records made before actors were kept."""
    if actor is None:
        return "unknown"
    return f"{actor.name} ({actor.channel})"
