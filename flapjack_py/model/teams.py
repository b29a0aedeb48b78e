"""Teams: who owns which checks, and who may act on them. Pure.

A team has a name, members (user names) and what it owns: entities, tags (entity or check tags),
schedules, escalation policies and contacts. A check is owned by every team that owns its entity or one
of its tags. Responders may act (acknowledge, maintenance, test notifications, enable/disable) only on
checks their teams own; admins on all; a check no team owns by every responder, or by admins only
(config web.unowned_checks). flapjack_py.actions enforces it for every channel.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from flapjack_py.access import Role

MAX_NAME = 100
MAX_ITEMS = 1000
MAX_ITEM = 200
LISTS = ("members", "entities", "tags", "schedules", "policies", "contacts")
"""The team's list fields, each a list of names or ids."""
UNOWNED = ("everyone", "admins")
_NAME = re.compile(r"^[^\x00-\x1f\x7f]{1,100}$")


@dataclass(frozen=True)
class Team:
    """A team: `id`, `name`, its members (user names) and what it owns."""

    id: str
    name: str
    members: tuple[str, ...] = ()
    entities: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    schedules: tuple[str, ...] = ()
    policies: tuple[str, ...] = ()
    contacts: tuple[str, ...] = ()

    def as_json(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, **{name: list(getattr(self, name)) for name in LISTS}}


@dataclass(frozen=True)
class Acting:
    """Who acts, as far as ownership goes: a user and their role, the rule for unowned checks, and the contact
    whose address acted (chat bots: the teams listing that contact count as the actor's)."""

    user: str
    role: Role
    unowned: str = "everyone"
    contact: str | None = None


@dataclass(frozen=True)
class CheckOwnership:
    """What ownership needs to know about one check: its entity and every tag it carries (check and entity)."""

    entity: str
    check: str
    tags: frozenset[str] = field(default_factory=frozenset)


class NotOwned(PermissionError):
    """An action refused: the acting user's teams do not own the check(s)."""

    def __init__(self, user: str, refused: Sequence[str]) -> None:
        shown = ", ".join(refused[:10]) + (" ..." if len(refused) > 10 else "")
        super().__init__(f"{user} may not act on {shown}: no team of theirs owns it")
        self.refused = list(refused)


def owners(teams: Iterable[Team], item: CheckOwnership) -> list[Team]:
    """The teams owning the check (by its entity or one of its tags)."""
    return [t for t in teams if item.entity in t.entities or item.tags & set(t.tags)]


def teams_of(teams: Iterable[Team], user: str) -> list[Team]:
    """The teams `user` is a member of."""
    return [t for t in teams if user in t.members]


def may_act(teams: Sequence[Team], item: CheckOwnership, acting: Acting) -> bool:
    """Whether `acting` may act on the check (see the module docstring)."""
    if acting.role is Role.ADMIN:
        return True
    if acting.role is not Role.RESPONDER:
        return False
    owning = owners(teams, item)
    if not owning:
        return acting.unowned == "everyone"
    return any(acting.user in t.members or (acting.contact is not None and acting.contact in t.contacts)
               for t in owning)


def team_problems(fields: Mapping[str, Any], *, partial: bool = False) -> list[str]:
    """What is wrong with a team's fields as a client sent them ([] when fine; `partial` for a PATCH)."""
    problems = [f"unknown field {name!r}" for name in fields if name not in ("id", "name", *LISTS)][:5]
    name = fields.get("name")
    if (name is not None or not partial) and not (isinstance(name, str) and _NAME.match(name.strip() or "\0")):
        problems.append(f"name must be a string of 1 to {MAX_NAME} characters")
    for key in LISTS:
        value = fields.get(key)
        if value is None:
            continue
        if not isinstance(value, list) or len(value) > MAX_ITEMS or not all(
                isinstance(v, str) and 0 < len(v) <= MAX_ITEM for v in value):
            problems.append(f"{key} must be a list of at most {MAX_ITEMS} strings of 1 to {MAX_ITEM} characters")
    return problems


def make_team(team_id: str, fields: Mapping[str, Any], base: Team | None = None) -> Team:
    """The team with `fields` (checked by team_problems) over `base` (a PATCH) or from nothing."""
    values: dict[str, Any] = base.as_json() if base else {"name": ""}
    values.update({k: v for k, v in fields.items() if k in ("name", *LISTS)})
    return Team(team_id, str(values["name"]).strip(),
                **{k: tuple(dict.fromkeys(values.get(k) or ())) for k in LISTS})


def from_json(raw: Mapping[str, Any]) -> Team:
    """A stored team."""
    return Team(str(raw.get("id", "")), str(raw.get("name", "")),
                **{k: tuple(str(v) for v in raw.get(k) or ()) for k in LISTS})
