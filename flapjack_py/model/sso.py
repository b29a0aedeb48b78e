"""Who a directory (LDAP) or identity provider (OIDC) says a user is, mapped to a role and teams. Pure.

Groups are matched by name (an LDAP group's cn) or by full DN; the highest role of the user's mapped groups
wins, and a user in no mapped group gets no role (and does not get in).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from flapjack_py.access import Role

RANK = {Role.VIEWER: 1, Role.RESPONDER: 2, Role.ADMIN: 3}


@dataclass(frozen=True)
class Identity:
    """A user as an external source vouches for them: their name, role and the teams their groups map to."""

    name: str
    role: Role
    teams: tuple[str, ...]
    method: str
    """How they proved it: ldap or oidc."""


class Refused(Exception):
    """The external source refused the user, or they are in no mapped group: the message says which."""


def role_from_groups(groups: Iterable[str], role_map: Mapping[str, str]) -> Role | None:
    """The highest role `role_map` gives any of `groups` (case-insensitive names or DNs), None for none."""
    wanted = {key.lower(): Role(value) for key, value in role_map.items()}
    found = [wanted[g.lower()] for g in groups if g.lower() in wanted]
    return max(found, key=RANK.__getitem__) if found else None


def teams_from_groups(groups: Iterable[str], team_map: Mapping[str, str]) -> tuple[str, ...]:
    """The teams `team_map` gives `groups`, each once, in map order."""
    have = {g.lower() for g in groups}
    return tuple(dict.fromkeys(team for group, team in team_map.items() if group.lower() in have))


def identity(name: str, groups: Iterable[str], role_map: Mapping[str, str], team_map: Mapping[str, str],
             method: str) -> Identity:
    """The Identity of `name` in `groups`; raises Refused when no group of theirs maps to a role."""
    groups = list(groups)
    role = role_from_groups(groups, role_map)
    if role is None:
        raise Refused(f"{name} is in no group that gives a role")
    return Identity(name, role, teams_from_groups(groups, team_map), method)
