"""Incidents in Redis (issue 33 item 2; flapjack_py.model.incidents decides).

The executive reads the live state of each incident group its batch notifies (`keys.incident_group`, one
hash, WATCHed first: a commit fails when another executive changed the group meanwhile) and writes every
change on the notifying event's writes, so it commits in the batch's one MULTI with the alerts. The incident
itself (`keys.incident`), its checks and its timeline are written alongside for the API and the UI.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from flapjack_py import keys
from flapjack_py.model.actors import Actor
from flapjack_py.model.incidents import Head, Live, entry, head_from_hash, live_to_json, paged_field
from flapjack_py.store.plumbing import staged
from flapjack_py.store.plumbing.client import StrRedis
from flapjack_py.store.plumbing.writes import Writes

log = logging.getLogger(__name__)

RETENTION = 90 * 86400
"""Seconds a resolved incident is kept."""
MAX_TIMELINE = 10_000
"""Timeline entries kept per incident (the oldest are dropped beyond)."""


# --- the executive's reads and writes --------------------------------------------------


def heads_reads(groups: Sequence[str], watch: Callable[[list[str]], None] | None) -> staged.Reads[dict[str, Head]]:
    """The live state of each group, WATCHed (when `watch`) before it is read: one step."""
    names = [keys.incident_group(g) for g in dict.fromkeys(groups)]
    if not names:
        return {}
    if watch is not None:
        watch(names)

    def queue(p: Any) -> None:
        for name in names:
            p.hgetall(name)

    replies = yield staged.Step(queue)
    return {g: head_from_hash(stored or {}) for g, stored in zip(dict.fromkeys(groups), replies, strict=True)}


def opened(writes: Writes, group: str, incident_id: str, live: Live) -> None:
    writes.hset(keys.incident_group(group), mapping={"current": incident_id, f"i:{incident_id}": live_to_json(live)})
    writes.hset(keys.incident(incident_id), mapping={"id": incident_id, "group": group, "title": live.title,
                                                     "state": "open", "opened_at": live.opened_at})
    writes.zadd(keys.incidents(), {incident_id: live.opened_at})
    timeline(writes, incident_id, entry(live.opened_at, "opened", title=live.title))


def joined(writes: Writes, group: str, incident_id: str, live: Live, check_id: str, now: int) -> None:
    writes.hset(keys.incident_group(group), mapping={f"c:{check_id}": incident_id,
                                                     f"i:{incident_id}": live_to_json(live)})
    writes.hset(keys.incident(incident_id), f"c:{check_id}", now)
    writes.set(keys.check_incident(*keys.split_check_id(check_id)), incident_id)
    timeline(writes, incident_id, entry(now, "joined", check=check_id))


def left(writes: Writes, group: str, check_id: str) -> None:
    """A check of the group recovered: it is no longer in its open incident."""
    writes.hset(keys.incident_group(group), f"c:{check_id}", "")


def paged(writes: Writes, group: str, incident_id: str, pair: tuple[str, str], now: int) -> None:
    writes.hset(keys.incident_group(group), paged_field(incident_id, pair), now)


def acknowledged(writes: Writes, group: str, incident_id: str, live: Live, actor: str, channel: str) -> None:
    writes.hset(keys.incident_group(group), f"i:{incident_id}", live_to_json(live))
    writes.hset(keys.incident(incident_id), mapping={"acknowledged_at": live.acknowledged_at or 0,
                                                     "acknowledged_by": actor, "acknowledged_channel": channel})


def resolved(writes: Writes, group: str, incident_id: str, head: Head, now: int, retention: int = RETENTION) -> None:
    """The incident's last check recovered: it leaves the group's head (which is deleted once it holds no
    open incident), is marked resolved, and expires after `retention` seconds (incidents.retention)."""
    name = keys.incident_group(group)
    if not set(head.live) - {incident_id}:
        writes.delete(name)
    else:
        gone = [f"i:{incident_id}", *(f"c:{c}" for c, i in head.checks.items() if i in ("", incident_id)),
                *(paged_field(incident_id, p) for p in head.paged.get(incident_id, {}))]
        writes.hdel(name, *gone)
    # also as merged writes, which apply after the DEL/HDEL: an earlier event of the batch may have set them
    writes.hset(name, mapping={f"i:{incident_id}": "", **({"current": ""} if head.current == incident_id else {})})
    writes.hset(keys.incident(incident_id), mapping={"state": "resolved", "resolved_at": now})
    for key in (keys.incident(incident_id), keys.incident_timeline(incident_id)):
        writes.expire(key, retention)
    writes.zremrangebyscore(keys.incidents(), "-inf", now - retention)


def timeline(writes: Writes, incident_id: str, *entries: str) -> None:
    if entries:
        writes.rpush(keys.incident_timeline(incident_id), *entries)


# --- the API's reads and writes ---------------------------------------------------------


@dataclass(frozen=True)
class Incident:
    """An incident as the API shows it."""

    id: str
    group: str
    title: str
    state: str
    opened_at: int
    resolved_at: int | None
    acknowledged_at: int | None
    acknowledged_by: str | None
    acknowledged_channel: str | None
    checks: dict[str, int]  # E:C -> joined at


def load(client: StrRedis, incident_id: str) -> Incident | None:
    """One incident, or None."""
    found = load_many(client, [incident_id])
    return found[0] if found else None


def load_many(client: StrRedis, ids: Sequence[str]) -> list[Incident]:
    """Incidents by id (unknown ones left out), in one round trip."""
    with client.pipeline(transaction=False) as pipe:
        for i in ids:
            pipe.hgetall(keys.incident(i))
        replies = pipe.execute()
    return [_incident(h) for h in replies if h.get("id")]


def recent_ids(client: StrRedis, most: int = 200) -> list[str]:
    """Incident ids, newest first."""
    return list(client.zrevrange(keys.incidents(), 0, most - 1))


def check_incident(client: StrRedis, entity: str, check: str) -> str | None:
    """The latest incident a check joined (None: none, or it expired)."""
    found = client.get(keys.check_incident(entity, check))
    return found if found and client.exists(keys.incident(found)) else None


def load_timeline(client: StrRedis, incident_id: str) -> list[dict[str, Any]]:
    """The incident's timeline entries, oldest first (damaged ones left out)."""
    found = []
    for text in client.lrange(keys.incident_timeline(incident_id), 0, MAX_TIMELINE - 1):
        try:
            item = json.loads(text)
        except ValueError:
            continue
        if isinstance(item, dict):
            found.append(item)
    return found


def add_note(client: StrRedis, incident_id: str, text: str, actor: Actor, now: int) -> None:
    """Add a note by `actor` to the incident's timeline."""
    client.rpush(keys.incident_timeline(incident_id),
                 entry(now, "note", text=text, actor=actor.name, channel=actor.channel))


def _incident(h: dict[str, str]) -> Incident:
    def number(name: str) -> int | None:
        value = h.get(name)
        return int(value) if value and value.lstrip("-").isdigit() and int(value) else None

    return Incident(h["id"], h.get("group", ""), h.get("title", ""), h.get("state", "open"),
                    number("opened_at") or 0, number("resolved_at"), number("acknowledged_at"),
                    h.get("acknowledged_by") or None, h.get("acknowledged_channel") or None,
                    {name[2:]: int(t) for name, t in h.items() if name.startswith("c:") and t.isdigit()})


def check_states(client: StrRedis, check_ids: Sequence[str]) -> dict[str, str]:
    """The current state of each check (E:C), in one round trip."""
    ids = list(dict.fromkeys(check_ids))
    with client.pipeline(transaction=False) as pipe:
        for check_id in ids:
            pipe.hget(keys.check(*keys.split_check_id(check_id)), "state")
        found = pipe.execute()
    return {i: state for i, state in zip(ids, found, strict=True) if state}
