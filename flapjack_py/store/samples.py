"""Redis side of the UI's pictures: rate samples written on executives' heartbeats, alerts counted between
them, and what a check's state timeline is drawn from (state changes, maintenance windows, alert times).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from flapjack_py import keys
from flapjack_py.store.history import state_changes
from flapjack_py.store.maintenance import SCHEDULED, UNSCHEDULED, list_windows
from flapjack_py.store.plumbing import scripts
from flapjack_py.store.plumbing.client import StrRedis, registered_script
from flapjack_py.views.pictures import SAMPLE_BUCKET, SAMPLES_KEPT


def record_sample(client: StrRedis, queue: str, now: int) -> bool:
    """Push a `TIME EVENTS QUEUE` sample unless one exists for now's SAMPLE_BUCKET; True when pushed."""
    pushed = registered_script(client, scripts.RECORD_SAMPLE)(
        keys=[keys.rate_samples(), keys.event_counters(), keys.events(queue)], args=[now, SAMPLE_BUCKET, SAMPLES_KEPT])
    return bool(pushed)


def load_samples(client: StrRedis, since: int) -> list[tuple[int, int, int]]:
    """(time, events counter, queue length) of the samples taken at or after `since`, oldest first."""
    found = []
    for raw in client.lrange(keys.rate_samples(), 0, SAMPLES_KEPT - 1):
        parts = raw.split()
        if len(parts) == 3 and all(p.isdigit() for p in parts) and int(parts[0]) >= since:
            found.append((int(parts[0]), int(parts[1]), int(parts[2])))
    return sorted(found)


def alerts_between(client: StrRedis, times: Sequence[int]) -> list[int]:
    """Alerts recorded in each interval (times[i], times[i + 1]] (the `alerts` index), one round trip."""
    p = client.pipeline(transaction=False)
    for lo, hi in zip(times, times[1:], strict=False):
        p.zcount(keys.alerts(), f"({lo}", hi)
    return [int(n) for n in p.execute()] if len(times) > 1 else []


def timeline_data(client: StrRedis, entity: str, check: str, start: int,
                  end: int) -> tuple[list[tuple[int, str | None]], list[tuple[int, int, str, str]], list[int]]:
    """What a check's timeline over [start, end] is drawn from: (time, state) changes (the one before
    `start` included), (start, duration, kind, summary) maintenance windows of both kinds, alert times."""
    changes = [(s.ts, s.state) for s in state_changes(client, entity, check, start, end)]
    if not changes:  # nothing changed in the span: the state it was in all along
        before = client.zrevrangebyscore(keys.sorted_state_timestamps(entity, check), start, "-inf", start=0, num=1)
        if before:
            ts = int(float(before[0]))
            changes = [(ts, client.get(keys.check_state_at(entity, check, ts)))]
    windows = [(w.start, w.duration, kind, w.summary) for kind in (SCHEDULED, UNSCHEDULED)
               for w in list_windows(client, entity, check, kind)]
    alerts: list[Any] = client.zrangebyscore(keys.alerts_by_check(entity, check), start, end, withscores=True)
    return changes, windows, [int(score) for _, score in alerts]
