"""Teams in Redis (one hash, id -> JSON; flapjack_py.model.teams) and the ownership facts of checks."""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from dataclasses import replace

from flapjack_py import keys
from flapjack_py.model.teams import CheckOwnership, Team, from_json
from flapjack_py.store.plumbing.client import StrRedis

log = logging.getLogger(__name__)


def list_teams(client: StrRedis) -> list[Team]:
    """Every team, by name."""
    found = []
    for team_id, raw in client.hgetall(keys.teams()).items():
        try:
            found.append(from_json({**json.loads(raw), "id": team_id}))
        except (ValueError, TypeError, AttributeError):
            log.warning("team %s unreadable: skipped", team_id)
    return sorted(found, key=lambda t: (t.name.lower(), t.id))


def load_team(client: StrRedis, team_id: str) -> Team | None:
    """The team with id `team_id`, or None."""
    return next((t for t in list_teams(client) if t.id == team_id), None)


def save_team(client: StrRedis, team: Team) -> None:
    """Create or replace the team."""
    client.hset(keys.teams(), team.id, json.dumps(team.as_json(), separators=(",", ":")))


def delete_team(client: StrRedis, team_id: str) -> bool:
    """Delete the team; False when there was none."""
    return bool(client.hdel(keys.teams(), team_id))


def set_membership(client: StrRedis, user: str, member_of: set[str], managed: set[str]) -> None:
    """Make `user` a member of the teams `member_of` and of no other team of `managed` (teams an external
    source maps; a team named there and not existing yet is made, named after its id)."""
    teams = {t.id: t for t in list_teams(client)}
    for team_id in sorted(managed | member_of):
        team = teams.get(team_id) or Team(team_id, team_id)
        members = tuple(m for m in team.members if m != user) + ((user,) if team_id in member_of else ())
        if members != team.members or team_id not in teams:
            save_team(client, replace(team, members=members))


def contact_for_address(client: StrRedis, medium: str, address: str) -> str | None:
    """The id of a contact listed by some team whose `medium` address is `address` (case-insensitive), or None:
    who acted through a chat bot, as teams know them."""
    contacts = sorted({c for team in list_teams(client) for c in team.contacts})
    if not contacts or not address:
        return None
    with client.pipeline(transaction=False) as pipe:
        for contact in contacts:
            pipe.hget(keys.contact_media(contact), medium)
        found = pipe.execute()
    return next((c for c, a in zip(contacts, found, strict=True) if a and a.lower() == address.lower()), None)


def ownership(client: StrRedis, checks: Sequence[tuple[str, str]], tags: Sequence[str]) -> list[CheckOwnership]:
    """Each check's entity and which of `tags` (the tags teams own) it carries, as a check or entity tag."""
    wanted = sorted(set(tags))
    if not wanted:
        return [CheckOwnership(entity, check) for entity, check in checks]
    ids = client.hmget(keys.entity_ids_by_name(), [entity for entity, _ in checks]) if checks else []
    with client.pipeline(transaction=False) as pipe:
        for (entity, check), entity_id in zip(checks, ids, strict=True):
            pipe.smembers(keys.check_tags(entity, check))
            for tag in wanted:
                pipe.sismember(keys.entity_tag(tag), entity_id or "")
        replies = pipe.execute()
    found = []
    step = 1 + len(wanted)
    for index, (entity, check) in enumerate(checks):
        row = replies[index * step:(index + 1) * step]
        carried = set(row[0]) | {tag for tag, member in zip(wanted, row[1:], strict=True) if member}
        found.append(CheckOwnership(entity, check, frozenset(carried & set(wanted))))
    return found
