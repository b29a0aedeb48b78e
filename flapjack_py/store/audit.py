"""The audit trail: one append-only stream entry per action, who made it, through which channel, on what.

Entries are written by the action path (flapjack_py.actions) and by the web gate for API and UI writes;
they are trimmed by age (`retention` seconds, approximately, on each write) and never changed.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import asdict, dataclass

from flapjack_py import keys
from flapjack_py.model.actors import Actor
from flapjack_py.store.plumbing.client import StrRedis
from flapjack_py.store.plumbing.writes import Writes

log = logging.getLogger(__name__)

DEFAULT_RETENTION = 400 * 86400
"""Seconds an entry is kept (config web.audit_retention)."""
PAGE_SIZE = 500
TOKEN_USE_EVERY = 3600
"""Seconds between two `token_use` entries of one token (a token is used on every API call)."""

_retention = DEFAULT_RETENTION
_written: ContextVar[int] = ContextVar("audit_written", default=0)


@dataclass(frozen=True)
class Entry:
    """One audit entry: `kind` is what sort of thing was acted on (check, entity, contact, rule, schedule,
    policy, user, token, team, series, config), `target` which one (`E:C`, an id, a name)."""

    time: int
    actor: str
    channel: str
    action: str
    kind: str
    target: str
    outcome: str = "ok"
    address: str = ""
    detail: str = ""
    id: str = ""

    def fields(self) -> dict[str, str]:
        return {name: str(value) for name, value in asdict(self).items() if name != "id"}


def entry(actor: Actor, action: str, kind: str, name: str, now: int, *, outcome: str = "ok",
          detail: str = "") -> Entry:
    """The entry of `actor` doing `action` on the `kind` called `name` at `now`."""
    return Entry(now, actor.name, actor.channel, action, kind, name, outcome, actor.address or "", detail[:500])


def set_retention(seconds: int) -> None:
    """Keep entries `seconds` (config web.audit_retention): set once per process from its configuration."""
    global _retention
    _retention = seconds


def written() -> int:
    """How many entries this thread (or task) has recorded: the web gate compares it before and after a request
    so that a write the action path already recorded is not recorded again."""
    return _written.get()


def record(pipe: Writes | StrRedis, entries: list[Entry], retention: int | None = None) -> None:
    """Append the entries (in the caller's pipeline when given one), trimming what is older than `retention`
    (default: the process's web.audit_retention)."""
    retention = _retention if retention is None else retention
    _written.set(_written.get() + len(entries))
    for item in entries:
        cutoff = max(0, item.time - retention) * 1000
        pipe.xadd(keys.audit(), item.fields(), minid=cutoff, approximate=True)
        log.info("audit: %s (%s) %s %s %s: %s", item.actor, item.channel, item.action, item.kind, item.target,
                 item.outcome)


def record_all(client: StrRedis, entries: list[Entry], retention: int | None = None) -> None:
    """record() in one round trip of its own."""
    with client.pipeline(transaction=False) as pipe:
        record(pipe, entries, retention)
        pipe.execute()


def read(client: StrRedis, since: int, until: int, *, count: int = PAGE_SIZE, after: str | None = None
         ) -> list[Entry]:
    """Entries from `since` to `until` (unix seconds), oldest first, at most `count`, after the id `after`."""
    start = f"({after}" if after else f"{since * 1000}-0"
    rows = client.xrange(keys.audit(), start, f"{until * 1000 + 999}-18446744073709551615", count=count)
    return list(_entries(rows))


def search(client: StrRedis, since: int, until: int, *, limit: int = PAGE_SIZE, **filters: str) -> list[Entry]:
    """At most `limit` entries from `since` to `until`, oldest first, that fit `filters` (see matches)."""
    found: list[Entry] = []
    after: str | None = None
    while len(found) < limit:
        page = read(client, since, until, after=after)
        found += [e for e in page if matches(e, filters)]
        if len(page) < PAGE_SIZE:
            break
        after = page[-1].id
    return found[:limit]


def matches(item: Entry, filters: dict[str, str]) -> bool:
    """Whether `item`'s fields (actor, action, kind, target, channel) equal the given ones; a blank filter
    matches all, and a `target` filter also matches the entity of an `E:C` target."""
    fields = item.fields()
    for name, wanted in filters.items():
        if wanted and wanted != fields.get(name) and not (name == "target" and wanted == item.target.split(":")[0]):
            return False
    return True


def token_used(client: StrRedis, token_id: str, item: Entry) -> bool:
    """Record `item` (a token's use) unless that token's use was recorded in the last TOKEN_USE_EVERY seconds."""
    if not client.set(keys.audit_token_seen(token_id), "1", nx=True, ex=TOKEN_USE_EVERY):
        return False
    record_all(client, [item])
    return True


def _entries(rows: list[tuple[str, dict[str, str]]]) -> Iterator[Entry]:
    for stream_id, fields in rows:
        try:
            yield Entry(int(fields.get("time", "0")), fields.get("actor", ""), fields.get("channel", ""),
                        fields.get("action", ""), fields.get("kind", ""), fields.get("target", ""),
                        fields.get("outcome", ""),
                        fields.get("address", ""), fields.get("detail", ""), stream_id)
        except ValueError:
            log.warning("audit entry %s unreadable: skipped", stream_id)
