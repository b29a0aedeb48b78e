"""The reads of on-call analytics (issue 32): a period's facts in four round trips, whatever its size.

1. the ids of the alerts of [since, until] (the `alerts` index) and the checks flapping (flap detection); 2. their records (the fields analytics needs,
read by a Lua script per CHUNK records, the calls pipelined); 3. for each check that paged, its state changes in
the period with the one just before, and its acknowledgements (unscheduled maintenance starts) since LOOKBACK
before the period (scripts.CHECK_HISTORY), with each paged contact's time zone (MGET); 4. the state of each change
(MGET) and who made each acknowledgement (scripts.HASH_FIELDS). Scripts rather than one command per record: a
week of 100,000 alerts costs a tenth of the client CPU (benchmarks/analytics_cost.py).
Nothing here is on the executive's path: it is read when someone asks (API, UI, `flapjack report`, the digest).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from flapjack_py import keys
from flapjack_py.analysis.incidents import PAGE_TYPES, Ack, Facts, Page
from flapjack_py.store.maintenance import UNSCHEDULED
from flapjack_py.store.plumbing import scripts
from flapjack_py.store.plumbing.client import StrRedis, call_read_script

LOOKBACK = 30 * 86400
"""Acknowledgements looked at before the period (a failure that started before it may have been acked then)."""
FIELDS = ("timestamp", "contact", "media", "check", "type", "state", "escalation_policy")
CHUNK = 5_000
"""Keys per script call (bounds how long one call holds Redis) and per MGET."""


def read_facts(client: StrRedis, since: int, until: int) -> Facts:
    """The alerts of [since, until] and, for the checks they page about, state changes, acks and contact zones."""
    pipe = client.pipeline(transaction=False)
    pipe.zrangebyscore(keys.alerts(), since, until)
    pipe.zrangebyscore(keys.flapping_checks(), "-inf", until)
    ids, flapping = pipe.execute()
    pages = _pages(client, ids)
    checks = sorted({p.check for p in pages if p.type == "problem" and p.check})
    contacts = sorted({p.contact for p in pages})
    stamps_of, zones = _history(client, checks, contacts, since, until)
    changes, acks = _states_and_actors(client, stamps_of)
    return Facts(since, until, pages, changes, acks, zones, frozenset(flapping))


def _chunks(items: Sequence[str], size: int = CHUNK) -> list[Sequence[str]]:
    return [items[n:n + size] for n in range(0, len(items), size)]


def _hash_fields(client: StrRedis, names: Sequence[str], fields: Sequence[str]) -> list[str]:
    """Each hash's `fields` joined by the unit separator ('' for a missing one)."""
    found: list[str] = []
    for reply in call_read_script(client, scripts.HASH_FIELDS, [(chunk, fields) for chunk in _chunks(names)]):
        found += reply
    return found


def _pages(client: StrRedis, ids: Sequence[str]) -> list[Page]:
    found = []
    prefix = keys.alert("")  # alert:ID for 100,000 ids: a concatenation each
    for record in _hash_fields(client, [prefix + i for i in ids], FIELDS):
        ts, contact, medium, check, alert_type, state, policy = record.split("\x1f")
        if not ts or alert_type not in PAGE_TYPES:
            continue  # not a page (a test), or dropped by retention between the two reads
        found.append(Page(int(ts) if ts.isdigit() else int(float(ts)), contact, medium, check, alert_type, state,
                          policy))
    return found


def _history(client: StrRedis, checks: Sequence[str], contacts: Sequence[str], since: int,
             until: int) -> tuple[dict[str, tuple[list[int], list[int]]], dict[str, str]]:
    """check -> (state change times, acknowledgement times); contact -> time zone."""
    names = []
    for check in checks:
        entity, name = keys.split_check_id(check)
        names += [keys.sorted_state_timestamps(entity, name),
                  keys.sorted_maintenance_timestamps(entity, name, UNSCHEDULED)]
    calls: list[tuple[Sequence[Any], Sequence[Any]]] = [
        (chunk, (since, until, since - LOOKBACK)) for chunk in _chunks(names)]
    replies: list[Any] = []
    for reply in call_read_script(client, scripts.CHECK_HISTORY, calls):
        replies += reply
    stamps_of = {check: ([int(float(t)) for t in states], [int(float(t)) for t in starts])
                 for check, (states, starts) in zip(checks, replies, strict=True)}
    zones = {}
    for chunk in _chunks(contacts):
        zones.update({c: z for c, z in zip(chunk, client.mget([keys.contact_tz(c) for c in chunk]), strict=True) if z})
    return stamps_of, zones


def _states_and_actors(client: StrRedis, stamps_of: dict[str, tuple[list[int], list[int]]]
                       ) -> tuple[dict[str, list[tuple[int, str]]], dict[str, list[Ack]]]:
    state_keys, actor_keys = [], []
    for check, (states, starts) in stamps_of.items():
        entity, name = keys.split_check_id(check)
        state_keys += [keys.check_state_at(entity, name, ts) for ts in states]
        actor_keys += [keys.maintenance_actor(entity, name, UNSCHEDULED, ts) for ts in starts]
    pipe = client.pipeline(transaction=False)
    for chunk in _chunks(state_keys):
        pipe.mget(chunk)
    state_values = iter([value for reply in pipe.execute() for value in reply])
    actors = iter(_hash_fields(client, actor_keys, ("actor",)))
    changes: dict[str, list[tuple[int, str]]] = {}
    acks: dict[str, list[Ack]] = {}
    for check, (states, starts) in stamps_of.items():
        changes[check] = [(ts, state) for ts in states if (state := next(state_values)) is not None]
        acks[check] = [Ack(ts, next(actors)) for ts in starts]
    return changes, acks


def tagged(client: StrRedis, checks: Sequence[str], tag: str) -> set[str]:
    """Those of `checks` (E:C) that have `tag` (one round trip)."""
    pipe = client.pipeline(transaction=False)
    for check in checks:
        pipe.sismember(keys.check_tags(*keys.split_check_id(check)), tag)
    return {check for check, has in zip(checks, pipe.execute(), strict=True) if has}
