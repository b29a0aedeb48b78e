"""The reads of on-call analytics (issue 32): a period's facts in four round trips, whatever its size.

1. the ids of the alerts of [since, until] (the `alerts` index); 2. their records (HMGET of the fields
analytics needs, one pipeline); 3. for each check that paged, its state changes in the period with the one
just before, and its acknowledgements (unscheduled maintenance starts) since LOOKBACK before the period, and
each paged contact's time zone; 4. the state of each change and who made each acknowledgement.
Nothing here is on the executive's path: it is read when someone asks (API, UI, `flapjack report`, the digest).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from flapjack_py import keys
from flapjack_py.analysis.incidents import Ack, Facts, Page
from flapjack_py.store.maintenance import UNSCHEDULED
from flapjack_py.store.plumbing.client import StrRedis

LOOKBACK = 30 * 86400
"""Acknowledgements looked at before the period (a failure that started before it may have been acked then)."""
FIELDS = ("timestamp", "contact", "media", "check", "type", "state")
CHUNK = 10_000
"""Commands per pipeline write (the replies are read in the same round trip)."""


def read_facts(client: StrRedis, since: int, until: int) -> Facts:
    """The alerts of [since, until] and, for the checks they page about, state changes, acks and contact zones."""
    ids = client.zrangebyscore(keys.alerts(), since, until)
    pages = _pages(client, ids)
    checks = sorted({p.check for p in pages if p.type == "problem" and p.check})
    contacts = sorted({p.contact for p in pages})
    changes, acks, zones = _history(client, checks, contacts, since, until)
    return Facts(since, until, pages, changes, acks, zones)


def _pipelined(client: StrRedis, commands: Sequence[tuple[str, tuple[object, ...]]]) -> list[Any]:
    replies: list[Any] = []
    for offset in range(0, len(commands), CHUNK):
        pipe = client.pipeline(transaction=False)
        for name, args in commands[offset:offset + CHUNK]:
            pipe.execute_command(name, *args)
        replies += pipe.execute()
    return replies


def _pages(client: StrRedis, ids: Sequence[str]) -> list[Page]:
    found = []
    for values in _pipelined(client, [("HMGET", (keys.alert(i), *FIELDS)) for i in ids]):
        ts, contact, medium, check, alert_type, state = values
        if ts is None or alert_type is None:
            continue  # dropped by retention between the two reads
        found.append(Page(int(float(ts)), contact or "", medium or "", check or "", alert_type, state or ""))
    return found


def _history(client: StrRedis, checks: Sequence[str], contacts: Sequence[str], since: int,
             until: int) -> tuple[dict[str, list[tuple[int, str]]], dict[str, list[Ack]], dict[str, str]]:
    commands: list[tuple[str, tuple[object, ...]]] = []
    for check in checks:
        entity, name = keys.split_check_id(check)
        stamps = keys.sorted_state_timestamps(entity, name)
        commands += [("ZRANGEBYSCORE", (stamps, since, until)),
                     ("ZREVRANGEBYSCORE", (stamps, f"({since}", "-inf", "LIMIT", 0, 1)),
                     ("ZRANGEBYSCORE", (keys.sorted_maintenance_timestamps(entity, name, UNSCHEDULED),
                                        since - LOOKBACK, until))]
    commands += [("GET", (keys.contact_tz(c),)) for c in contacts]
    replies = _pipelined(client, commands)
    zones = {c: z for c, z in zip(contacts, replies[len(checks) * 3:], strict=True) if isinstance(z, str) and z}
    stamps_of = {check: ([int(float(t)) for t in replies[3 * n + 1] + replies[3 * n]],
                         [int(float(t)) for t in replies[3 * n + 2]]) for n, check in enumerate(checks)}
    return (*_states_and_actors(client, stamps_of), zones)


def _states_and_actors(client: StrRedis, stamps_of: dict[str, tuple[list[int], list[int]]]
                       ) -> tuple[dict[str, list[tuple[int, str]]], dict[str, list[Ack]]]:
    commands: list[tuple[str, tuple[object, ...]]] = []
    for check, (states, starts) in stamps_of.items():
        entity, name = keys.split_check_id(check)
        commands += [("GET", (keys.check_state_at(entity, name, ts),)) for ts in states]
        commands += [("HGET", (keys.maintenance_actor(entity, name, UNSCHEDULED, ts), "actor")) for ts in starts]
    replies = iter(_pipelined(client, commands))
    changes: dict[str, list[tuple[int, str]]] = {}
    acks: dict[str, list[Ack]] = {}
    for check, (states, starts) in stamps_of.items():
        changes[check] = [(ts, str(state)) for ts in states if (state := next(replies)) is not None]
        acks[check] = [Ack(ts, str(next(replies) or "")) for ts in starts]
    return changes, acks
