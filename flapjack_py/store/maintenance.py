"""Scheduled and unscheduled maintenance windows (engine.md 7.1, 7.2).

`kind` is "scheduled" or "unscheduled". Each window is a member of
E:C:<kind>_maintenances (member = start, score = duration) with a summary key
and a sorted mirror; E:C:<kind>_maintenance (string + TTL) exists while a
window is in force. Pipeline writers serve the executive's MULTI; the
client-level functions serve the API, CLI and chat bot.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from flapjack_py import keys
from flapjack_py.model.actors import Actor, from_fields
from flapjack_py.model.checks import current_scheduled_window
from flapjack_py.store.plumbing.client import StrRedis, to_int
from flapjack_py.store.plumbing.writes import Writes

log = logging.getLogger(__name__)

SCHEDULED = "scheduled"
UNSCHEDULED = "unscheduled"


@dataclass(frozen=True)
class Window:
    """One maintenance window."""

    start: int
    duration: int
    summary: str
    actor: Actor | None = None  # who made it (None: made before actors were kept, or by a feeder)

    @property
    def end(self) -> int:
        return self.start + self.duration


# --- pipeline writers ------------------------------------------------------


def add_window(pipe: Writes, entity: str, check: str, kind: str, start: int, duration: int,
               summary: str | None, actor: Actor | None = None) -> None:
    """Record a window (same start overwrites) with its summary, who made it and sorted mirror."""
    pipe.zadd(keys.maintenances(entity, check, kind), {str(start): duration})
    pipe.set(keys.maintenance_summary(entity, check, kind, start), summary or "")
    if actor is not None:
        pipe.hset(keys.maintenance_actor(entity, check, kind, start), mapping=actor.fields())
    pipe.zadd(keys.sorted_maintenance_timestamps(entity, check, kind), {str(start): start})


def set_in_force(pipe: Writes, entity: str, check: str, kind: str, start: int, ttl: int) -> None:
    """Mark the window starting at `start` as in force for `ttl` more seconds."""
    pipe.setex(keys.maintenance(entity, check, kind), ttl, start)


def clear_in_force(pipe: Writes, entity: str, check: str, kind: str) -> None:
    """No window of `kind` is in force."""
    pipe.delete(keys.maintenance(entity, check, kind))


def revalidate_scheduled(pipe: Writes, entity: str, check: str, windows: dict[int, int],
                         now: int) -> int | None:
    """Set the in-force key from `windows` (start -> duration); return the start in force or None."""
    clear_in_force(pipe, entity, check, SCHEDULED)
    current = current_scheduled_window(windows, now)
    if current is None:
        return None
    set_in_force(pipe, entity, check, SCHEDULED, current[0], current[1] - now)
    return current[0]


def start_unscheduled(pipe: Writes, entity: str, check: str, start: int, duration: int,
                      summary: str | None, now: int, current_start: int | None,
                      actor: Actor | None = None) -> int | None:
    """Create an unscheduled window (ending the current one at `start`); return the start in force."""
    in_force = current_start
    remaining = start + duration - now
    if remaining > 0:
        if current_start is not None:
            finish_unscheduled(pipe, entity, check, current_start, start)
        set_in_force(pipe, entity, check, UNSCHEDULED, start, remaining)
        in_force = start
    add_window(pipe, entity, check, UNSCHEDULED, start, duration, summary, actor)
    return in_force


def finish_unscheduled(pipe: Writes, entity: str, check: str, current_start: int,
                       end_time: int) -> None:
    """End the unscheduled window in force (started at `current_start`) at `end_time`."""
    pipe.zadd(keys.maintenances(entity, check, UNSCHEDULED), {str(current_start): end_time - current_start})
    clear_in_force(pipe, entity, check, UNSCHEDULED)


# --- client-level operations (API, CLI, bot) -------------------------------


def load_windows(client: StrRedis, entity: str, check: str, kind: str) -> dict[int, int]:
    """start -> duration of every window of `kind`."""
    pairs = client.zrange(keys.maintenances(entity, check, kind), 0, -1, withscores=True)
    return {int(float(m)): int(s) for m, s in pairs}


def checks_with_windows(client: StrRedis, kind: str) -> list[tuple[str, str]]:
    """(entity, check) of every check that has `kind` windows, sorted."""
    suffix = keys.maintenances_suffix(kind)
    found = set()
    for key in client.scan_iter(match=keys.maintenances_pattern(kind), count=1000):
        name = key
        if name.endswith(suffix):
            found.add(keys.split_check_id(name[: -len(suffix)]))
    return sorted(found)


def in_force(client: StrRedis, entity: str, check: str, kind: str) -> int | None:
    """Start of the `kind` window in force, or None."""
    return to_int(client.get(keys.maintenance(entity, check, kind)))


def remaining(client: StrRedis, entity: str, check: str, kind: str) -> int | None:
    """Seconds the `kind` window in force has left, or None."""
    ttl = client.ttl(keys.maintenance(entity, check, kind))
    return ttl if ttl is not None and ttl >= 0 else None


def create_scheduled(client: StrRedis, entity: str, check: str, start: int, duration: int,
                     summary: str | None, now: int, actor: Actor | None = None) -> None:
    """Add a scheduled window and re-evaluate which one is in force."""
    windows = load_windows(client, entity, check, SCHEDULED)
    windows[start] = duration
    with client.pipeline() as pipe:
        add_window(pipe, entity, check, SCHEDULED, start, duration, summary, actor)
        revalidate_scheduled(pipe, entity, check, windows, now)
        pipe.execute()
    log.info("%s:%s: scheduled maintenance from %s for %ss", entity, check, start, duration)


def refresh_scheduled(client: StrRedis, entity: str, check: str, now: int) -> None:
    """Activate a window that has begun, if none is in force (non-revalidating)."""
    if in_force(client, entity, check, SCHEDULED) is not None:
        return
    with client.pipeline() as pipe:
        revalidate_scheduled(pipe, entity, check, load_windows(client, entity, check, SCHEDULED), now)
        pipe.execute()


def end_scheduled(client: StrRedis, entity: str, check: str, start: int, now: int) -> bool:
    """End (or, if future, delete) the window starting at `start`; False if unknown or already over."""
    windows = load_windows(client, entity, check, SCHEDULED)
    if start not in windows:
        return False
    with client.pipeline() as pipe:
        if start > now:
            del windows[start]
            pipe.delete(keys.maintenance_summary(entity, check, SCHEDULED, start),
                        keys.maintenance_actor(entity, check, SCHEDULED, start))
            pipe.zrem(keys.maintenances(entity, check, SCHEDULED), str(start))
            pipe.zrem(keys.sorted_maintenance_timestamps(entity, check, SCHEDULED), str(start))
        elif now < start + windows[start]:
            windows[start] = now - start
            pipe.zadd(keys.maintenances(entity, check, SCHEDULED), {str(start): now - start})
        else:
            return False
        revalidate_scheduled(pipe, entity, check, windows, now)
        pipe.execute()
    log.info("%s:%s: scheduled maintenance starting %s ended", entity, check, start)
    return True


def create_unscheduled(client: StrRedis, entity: str, check: str, start: int, duration: int,
                       summary: str | None, now: int, actor: Actor | None = None) -> None:
    """Acknowledge: create unscheduled maintenance, replacing the one in force."""
    current = in_force(client, entity, check, UNSCHEDULED)
    with client.pipeline() as pipe:
        start_unscheduled(pipe, entity, check, start, duration, summary, now, current, actor)
        pipe.execute()
    log.info("%s:%s: unscheduled maintenance from %s for %ss", entity, check, start, duration)


def end_unscheduled(client: StrRedis, entity: str, check: str, end_time: int) -> bool:
    """End the unscheduled maintenance in force at `end_time`; False if none."""
    current = in_force(client, entity, check, UNSCHEDULED)
    if current is None:
        return False
    with client.pipeline() as pipe:
        finish_unscheduled(pipe, entity, check, current, end_time)
        pipe.execute()
    return True


def list_windows(client: StrRedis, entity: str, check: str, kind: str) -> list[Window]:
    """Every window of `kind` with its summary, by start."""
    windows = sorted(load_windows(client, entity, check, kind).items())
    if not windows:
        return []
    with client.pipeline(transaction=False) as pipe:
        pipe.mget([keys.maintenance_summary(entity, check, kind, s) for s, _ in windows])
        for start, _ in windows:
            pipe.hgetall(keys.maintenance_actor(entity, check, kind, start))
        summaries, *actors = pipe.execute()
    return [Window(s, d, t if t is not None else "", from_fields(a.get("actor"), a.get("channel")))
            for (s, d), t, a in zip(windows, summaries, actors, strict=True)]

