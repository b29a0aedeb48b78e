"""Ack codes in Redis (issue 30): `ack_code:CODE` -> "ISSUED E:C" with the `executive.ack_code_ttl`, and the
time the check last recovered in the field `ack_closed` of its `check:E:C` hash; the counter codes are made
from (flapjack_py.model.ack_codes).

A code is open while its key lives, its check is failing and has not recovered since the code was issued:
every code of one failure (the first level's, an escalation's) keeps working until the recovery
(store/checks.py write_state_change stamps `ack_closed` in the check's HSET), after which the entry is
inert until its TTL drops it. A problem notification costs one SET on the notifying event's WriteBuffer, in
the batch's one MULTI; handing out codes costs one INCRBY per block of codes, not one per alert.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from flapjack_py import keys
from flapjack_py.model import ack_codes
from flapjack_py.store.contacts import all_contact_ids
from flapjack_py.store.plumbing.client import StrRedis
from flapjack_py.store.plumbing.writes import Writes

CLOSED_FIELD = "ack_closed"
"""The field of `check:E:C` holding when it last recovered: codes issued before are closed."""
MIN_BLOCK = 4096
"""Codes reserved per INCRBY at least (a storm's batch reserves as many as it has problem notifications)."""


class CodeBlock:
    """The codes one notifier hands out: counter values reserved in blocks (unique across executives)."""

    def __init__(self, client: StrRedis) -> None:
        self.client = client
        self._next = 0
        self._end = 0

    def reserve(self, wanted: int) -> None:
        """Make sure `wanted` more codes can be handed out without a round trip (one INCRBY when not)."""
        if self._end - self._next >= wanted:
            return
        size = max(wanted, MIN_BLOCK)
        self._end = int(self.client.incrby(keys.ack_code_counter(), size))
        self._next = self._end - size

    def take(self) -> str:
        """The next code (reserving a block when none is left)."""
        self.reserve(1)
        n = self._next
        self._next += 1
        return ack_codes.encode(n)


def record(pipe: Writes, code: str, check_id: str, ttl: int, now: int) -> None:
    """Open `code` for `check_id`, issued at `now`."""
    pipe.set(keys.ack_code(code), f"{now} {check_id}", ex=ttl)


class OpenCode(NamedTuple):
    """An open code and the check it acknowledges."""

    code: str
    check_id: str


def resolve(client: StrRedis, typed: str) -> OpenCode | None:
    """The open code `typed` names (any case) and its check, or None (no such code, closed, check not failing)."""
    code = ack_codes.normalize(typed)
    if code is None:
        return None
    issued, _, check_id = (client.get(keys.ack_code(code)) or "").partition(" ")
    if not check_id or not issued.isdigit():
        return None
    entity, check = keys.split_check_id(check_id)
    closed, state = client.hmget(keys.check(entity, check), [CLOSED_FIELD, "state"])
    if state in (None, "ok") or (closed and closed.isdigit() and int(closed) >= int(issued)):
        return None
    return OpenCode(code, check_id)


def alert_code(client: StrRedis, alert_id: str) -> str | None:
    """The ack code recorded with alert ALERT_ID, or None."""
    return client.hget(keys.alert(alert_id), "ack_code") or None


def claim_message(client: StrRedis, mailbox: str, uidvalidity: str, uid: str, keep: int) -> bool:
    """Claim IMAP message UIDVALIDITY:UID of `mailbox` for handling: True the first time only (across restarts
    and pollers); claims are kept `keep` seconds after the last one."""
    key = keys.email_reply_uids(mailbox)
    pipe = client.pipeline(transaction=True)
    pipe.sadd(key, f"{uidvalidity}:{uid}")
    pipe.expire(key, keep)
    added, _ = pipe.execute()
    return bool(added)


def contacts_with_address(client: StrRedis, media: tuple[str, ...], address: str) -> list[str]:
    """Ids of the contacts one of whose `media` (names, or prefixes ending `*`) has `address` (compared as
    same_address does). Reads every contact's media hash: for replies, which are rare, not for the executive."""
    ids = all_contact_ids(client)
    pipe = client.pipeline(transaction=False)
    for cid in ids:
        pipe.hgetall(keys.contact_media(cid))
    found = []
    for cid, stored in zip(ids, pipe.execute(), strict=True):
        if any(_medium_matches(name, media) and same_address(value, address) for name, value in stored.items()):
            found.append(cid)
    return sorted(found)


def _medium_matches(name: str, media: tuple[str, ...]) -> bool:
    return any(name == m or (m.endswith("*") and name.startswith(m[:-1])) for m in media)


def same_address(stored: str, given: str) -> bool:
    """Whether two addresses are one: e-mail addresses case-insensitively, phone numbers by their digits."""
    if "@" in stored or "@" in given:
        return stored.strip().lower() == given.strip().lower()
    digits = [re.sub(r"\D", "", a.replace("+", "")) for a in (stored, given)]
    return bool(digits[0]) and digits[0] == digits[1]
