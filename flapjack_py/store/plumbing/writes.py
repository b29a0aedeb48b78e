"""A buffer of Redis writes that merges a batch of events' writes into few commands per key."""

from __future__ import annotations

from itertools import chain
from typing import Any, Union

import redis

_PLAIN_COMMANDS = {"delete": "DEL", "hdel": "HDEL", "lpush": "LPUSH", "lrem": "LREM", "ltrim": "LTRIM", "sadd": "SADD",
                   "setex": "SETEX", "srem": "SREM", "zremrangebyscore": "ZREMRANGEBYSCORE"}
"""Recorded calls whose redis-py method only hands its arguments on (`execute_command(NAME, *args)`), replayed as
that command without the method (a notifying event records a dozen: drop keys, its decision trace)."""


class WriteBuffer:
    """One event's (or a batch's) writes, replayed into whichever MULTI commits them.

    Store functions that take a pipeline accept a WriteBuffer in its place.

    HSET, HINCRBY, SET, RPUSH, ZADD and ZREM are merged per key (last write wins,
    increments add up, pushes keep their order) so a batch of events costs a few
    commands per key instead of a dozen per event. Within the executive no key
    mixes these with the other, recorded-in-order commands (DEL, SETEX, SET with
    `ex`, LPUSH...), so applying the merged ones after those keeps every key's
    final value. EXPIREs are applied last, once the keys they time exist.

    `jobs` holds rq job data (flapjack_py.notify.enqueue) the committer enqueues on
    the same MULTI after the writes; `notify_log` the notify-log lines the
    committer writes once the MULTI succeeded (a discarded decision logs nothing).
    """

    def __init__(self) -> None:
        self.calls: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = []
        self.hashes: dict[str, dict[str, Any]] = {}
        self.incrs: dict[str, dict[str, int]] = {}
        self.strings: dict[str, Any] = {}
        self.lists: dict[str, list[Any]] = {}
        self.zsets: dict[str, dict[str, Any]] = {}  # member -> score, or None when removed
        self.expires: dict[str, int] = {}
        self.jobs: list[Any] = []
        self.notify_log: list[tuple[str, ...]] = []  # flapjack_py.notify.notifier.write_notify_log fields, after commit
        self.raw: bytes = b""  # the event these writes belong to (for the reject fallback)
        self.claim = ""  # its check's claim key ('' = none), released when the writes commit

    def __getattr__(self, name: str) -> Any:
        def record(*args: Any, **kwargs: Any) -> None:
            self.calls.append((name, args, kwargs))
        return record

    def hset(self, key: str, field: str | None = None, value: Any = None, mapping: dict[str, Any] | None = None) -> None:
        fields = self.hashes.setdefault(key, {})
        if field is not None:
            fields[field] = value
        fields.update(mapping or {})

    def hincrby(self, key: str, field: str, amount: int = 1) -> None:
        fields = self.incrs.setdefault(key, {})
        fields[field] = fields.get(field, 0) + amount

    def set(self, key: str, value: Any, ex: int | None = None) -> None:
        if ex is None:
            self.strings[key] = value
        else:  # as its arguments: redis-py's set() weighs a dozen options first (one per alert in a storm)
            self.calls.append(("execute_command", ("SET", key, value, "EX", ex), {}))

    def expire(self, key: str, seconds: int) -> None:
        self.expires[key] = seconds

    def rpush(self, key: str, *values: Any) -> None:
        self.lists.setdefault(key, []).extend(values)

    def zadd(self, key: str, mapping: dict[str, Any]) -> None:
        self.zsets.setdefault(key, {}).update(mapping)

    def zrem(self, key: str, *members: str) -> None:
        self.zsets.setdefault(key, {}).update(dict.fromkeys(members))

    def snapshot(self) -> dict[str, Any]:
        """A copy of the writes so far, for `restore` (the executive redoes a batch's notifications with it)."""
        return _copied_state(vars(self))

    def restore(self, snapshot: dict[str, Any]) -> None:
        """Forget every write made since `snapshot`."""
        vars(self).update(_copied_state(snapshot))

    def merge(self, other: WriteBuffer) -> None:
        """Add another event's writes after these (never sharing its containers: it may be replayed again)."""
        self.calls += other.calls
        _merge_updates(self.hashes, other.hashes)
        for key, incrs in other.incrs.items():
            mine = self.incrs.setdefault(key, {})
            for field, amount in incrs.items():
                mine[field] = mine.get(field, 0) + amount
        self.strings.update(other.strings)
        for key, values in other.lists.items():
            self.lists.setdefault(key, []).extend(values)
        _merge_updates(self.zsets, other.zsets)
        self.expires.update(other.expires)
        self.jobs += other.jobs

    def replay(self, pipe: Any) -> None:
        """Queue the writes on `pipe`, the merged ones as their commands' arguments (not through redis-py's
        per-command methods, which rebuild them from mappings: a storm commits ~6 commands per alert)."""
        _replay_calls(self.calls, pipe)
        command = pipe.execute_command
        if self.strings:
            command("MSET", *chain.from_iterable(self.strings.items()))
        for key, fields in self.hashes.items():
            if fields:
                command("HSET", key, *chain.from_iterable(fields.items()))
        for key, incrs in self.incrs.items():
            for field, amount in incrs.items():
                command("HINCRBY", key, field, amount)
        for key, values in self.lists.items():
            if values:
                command("RPUSH", key, *values)
        for key, members in self.zsets.items():
            scored = [x for member, score in members.items() if score is not None for x in (score, member)]
            removed = [member for member, score in members.items() if score is None]
            if scored:
                command("ZADD", key, *scored)
            if removed:
                command("ZREM", key, *removed)
        for key, seconds in self.expires.items():
            command("EXPIRE", key, seconds)


def _replay_calls(calls: list[tuple[str, tuple[Any, ...], dict[str, Any]]], pipe: Any) -> None:
    """Queue recorded calls on `pipe` in order, those of _PLAIN_COMMANDS as their commands."""
    command = pipe.execute_command
    for name, args, kwargs in calls:
        plain = _PLAIN_COMMANDS.get(name)
        if plain is not None and not kwargs:
            command(plain, *args)
        else:
            getattr(pipe, name)(*args, **kwargs)


def _merge_updates(mine: dict[str, dict[str, Any]], other: dict[str, dict[str, Any]]) -> None:
    """Per key, `other`'s fields over `mine`'s (a key new to `mine` gets a copy)."""
    for key, fields in other.items():
        found = mine.get(key)
        if found is None:
            mine[key] = dict(fields)
        else:
            found.update(fields)


_NESTED = frozenset({"hashes", "incrs", "zsets", "lists"})  # key -> its fields, members or values
_FLAT = frozenset({"calls", "jobs", "notify_log", "strings", "expires"})


def _copied_state(state: dict[str, Any]) -> dict[str, Any]:
    """A WriteBuffer's attributes copied as _copied would, without looking at every value of the containers
    it knows the shape of (a notifying event's snapshot copies each of its writes: 4x faster)."""
    copied: dict[str, Any] = {}
    for name, value in state.items():
        if name in _NESTED:
            copied[name] = {key: inner.copy() for key, inner in value.items()}
        elif name in _FLAT:
            copied[name] = value.copy()
        else:
            copied[name] = _copied(value)
    return copied


def _copied(value: Any) -> Any:
    """Containers copied as deep as the buffer nests them (values themselves are never changed in place)."""
    if isinstance(value, dict):
        return {k: _copied(v) for k, v in value.items()}
    if isinstance(value, list):
        return list(value)
    return value


Writes = Union["redis.client.Pipeline", WriteBuffer]
"""What store write functions accept: a MULTI pipeline, or the executive's WriteBuffer."""
