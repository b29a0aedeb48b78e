"""Counters and histograms flapjack-py keeps for Prometheus, and the Redis reads `/metrics` is built from.

Counters live in hashes outside Flapjack's key space (keys.metrics_*), so every
web process reports the whole system, whichever process did the work.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from flapjack_py import keys
from flapjack_py.model.events import FAILURE_STATES
from flapjack_py.store.dependencies import inhibitors
from flapjack_py.store.events import queue_length
from flapjack_py.store.plumbing.client import StrRedis, to_int
from flapjack_py.views.rows import is_handled

DELIVERY_BUCKETS = (0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 300.0, 1800.0)
"""Upper bounds (s) of the enqueue -> delivered histogram; alert timestamps are whole seconds."""

BATCH_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)
"""Upper bounds (s) of the executive's batch processing histogram."""


@dataclass(frozen=True)
class Histogram:
    """Cumulative bucket counts (upper bound -> count), sum and count, as Prometheus wants them."""

    buckets: tuple[tuple[float, int], ...]
    total: float
    count: int


@dataclass(frozen=True)
class CheckCounts:
    """Current checks by state, and how many are failing with nobody handling them."""

    by_state: dict[str, int]
    unhandled: int


# --- writes (on the caller's pipeline) -------------------------------------


def count_alert(pipe: Any, medium: str, alert_type: str, status: str, n: int = 1) -> None:
    """`n` more alerts of `medium` and `alert_type` reached `status`."""
    pipe.hincrby(keys.metrics_alerts(), f"{medium}|{alert_type}|{status}", n)


def observe_many(pipe: Any, key: str, bounds: Sequence[float], values: Sequence[float]) -> None:
    """Add observations to the histogram hash `key`: one HINCRBY per bucket they fall in, one for the count."""
    buckets = Counter(next((f"{b:g}" for b in bounds if seconds <= b), "+Inf") for seconds in values)
    for bucket, n in buckets.items():
        pipe.hincrby(key, bucket, n)
    pipe.hincrby(key, "count", len(values))
    pipe.hincrbyfloat(key, "sum", round(sum(values), 6))


def observe_deliveries(pipe: Any, medium: str, seconds: Sequence[float]) -> None:
    """Alerts of `medium` were delivered `seconds` (each) after they were queued."""
    observe_many(pipe, keys.metrics_delivery_seconds(medium), DELIVERY_BUCKETS, [max(s, 0.0) for s in seconds])


def observe_batches(client: StrRedis, seconds: Sequence[float]) -> None:
    """The executive processed batches in `seconds` each (one pipeline, one write per bucket, however many)."""
    if seconds:
        pipe = client.pipeline(transaction=False)
        observe_many(pipe, keys.metrics_batch_seconds(), BATCH_BUCKETS, seconds)
        pipe.execute()


def count_rejected(pipe: Any, reason: str) -> None:
    """One more event rejected; `reason` is classed by its text before the first ':' or '('."""
    pipe.hincrby(keys.metrics_rejected(), reject_class(reason), 1)


def reject_class(reason: str) -> str:
    """A short, bounded label for a reject reason ("internal error: KeyError(..)" -> "internal error")."""
    head = reason.split(":", 1)[0].split("(", 1)[0].strip().lower()
    return head[:40] or "unknown"


# --- reads ----------------------------------------------------------------


def alert_counts(client: StrRedis) -> dict[tuple[str, str, str], int]:
    """(medium, type, status) -> alerts that reached that status."""
    found = {}
    for field, value in client.hgetall(keys.metrics_alerts()).items():
        medium, _, rest = field.partition("|")
        alert_type, _, status = rest.partition("|")
        found[(medium, alert_type, status)] = to_int(value) or 0
    return found


def rejected_counts(client: StrRedis) -> dict[str, int]:
    """Reject reason class -> events rejected for it."""
    return {k: to_int(v) or 0 for k, v in client.hgetall(keys.metrics_rejected()).items()}


def delivery_histograms(client: StrRedis) -> dict[str, Histogram]:
    """Medium -> its enqueue -> delivered histogram."""
    prefix = keys.metrics_delivery_seconds("")
    return {key[len(prefix):]: _histogram(client.hgetall(key), DELIVERY_BUCKETS)
            for key in client.scan_iter(match=keys.metrics_delivery_seconds_pattern(), count=500)}


def batch_histogram(client: StrRedis) -> Histogram:
    """The executive's batch processing histogram."""
    return _histogram(client.hgetall(keys.metrics_batch_seconds()), BATCH_BUCKETS)


def oldest_queued_age(client: StrRedis, queue: str, now: float) -> float:
    """Seconds since the oldest queued event's `time` (0 when the queue is empty or its time unreadable)."""
    raw = client.lindex(keys.events(queue), -1)
    if raw is None:
        return 0.0
    try:
        stamp = float(json.loads(raw).get("time"))
    except (ValueError, TypeError, AttributeError):
        return 0.0
    return max(now - stamp, 0.0) if stamp < 1e11 else 0.0


def check_counts(client: StrRedis) -> CheckCounts:
    """Every known check's state; failing ones not acknowledged, not in maintenance, enabled and not inhibited by a
    failing check they depend on are unhandled."""
    ids = [m for m in client.zrange(keys.all_checks(), 0, -1)]
    p = client.pipeline(transaction=False)
    for check_id in ids:
        entity, check = keys.split_check_id(check_id)
        p.hget(keys.check(entity, check), "state")
        p.exists(keys.maintenance(entity, check, "scheduled"), keys.maintenance(entity, check, "unscheduled"))
        p.zscore(keys.current_checks(entity), check)
    replies = p.execute() if ids else []
    by_state: dict[str, int] = {}
    failing = []
    for check_id, (state, in_maintenance, current) in zip(ids, _triples(replies), strict=True):
        label = state or "unknown"
        by_state[label] = by_state.get(label, 0) + 1
        if label in FAILURE_STATES and not is_handled(bool(in_maintenance), bool(in_maintenance), current is not None):
            failing.append(check_id)
    unhandled = len(failing) - len(inhibitors(client, failing))
    return CheckCounts(by_state, unhandled)


# --- the JSON API's metrics (api-v1.md 12) ------------------------------------------

FRESHNESS_BUCKETS = (0, 60, 300, 900, 3600)


def current_check_ages(client: StrRedis, now: int) -> dict[str, dict[str, int]]:
    """entity name -> current check name -> seconds since its last update, for current entities."""
    names = sorted(client.zrange(keys.current_entities(), 0, -1))
    p = client.pipeline(transaction=False)
    for name in names:
        p.zrange(keys.current_checks(name), 0, -1, withscores=True)
    return {name: {check: now - int(score) for check, score in pairs}
            for name, pairs in zip(names, p.execute(), strict=True)}


def freshness(ages: dict[str, dict[str, int]]) -> dict[int, int]:
    """Count of current checks per age bucket (keyed by lower bound)."""
    counts = dict.fromkeys(FRESHNESS_BUCKETS, 0)
    for checks in ages.values():
        for age in checks.values():
            counts[max(b for b in FRESHNESS_BUCKETS if age >= b or b == 0)] += 1
    return counts


def entity_check_counts(client: StrRedis, ages: dict[str, dict[str, int]]) -> dict[str, dict[str, int]]:
    """`entities` (all, enabled, failing) and `checks` (all, failing) counts of the metrics endpoint."""
    failing = set(client.zrange(keys.failed_checks(), 0, -1))
    failing_current = {(e, ch) for e, checks in ages.items() for ch in checks if keys.check_id(e, ch) in failing}
    return {"entities": {"all": client.hlen(keys.entity_names_by_id()), "enabled": len(ages),
                         "failing": len({e for e, _ in failing_current})},
            "checks": {"all": sum(len(checks) for checks in ages.values()), "failing": len(failing_current)}}


def event_counts(client: StrRedis) -> tuple[dict[str, int], int]:
    """(the event_counters hash as ints, length of the events queue)."""
    counters = {k: to_int(v) or 0 for k, v in client.hgetall(keys.event_counters()).items()}
    return counters, queue_length(client)


def _triples(replies: list[Any]) -> Iterable[tuple[Any, Any, Any]]:
    return zip(replies[0::3], replies[1::3], replies[2::3], strict=True)


def _histogram(data: dict[str, str], bounds: Sequence[float]) -> Histogram:
    running, buckets = 0, []
    for bound in bounds:
        running += to_int(data.get(f"{bound:g}")) or 0
        buckets.append((bound, running))
    running += to_int(data.get("+Inf")) or 0
    buckets.append((float("inf"), running))
    try:
        total = float(data.get("sum") or 0)
    except ValueError:
        total = 0.0
    return Histogram(tuple(buckets), total, running)


def live_executives(client: StrRedis) -> list[str]:
    """`HOST:PID` of every executive whose heartbeat key is alive."""
    prefix = keys.executive_heartbeat("", 0)[:-len(":0")]
    return sorted(k[len(prefix):] for k in client.scan_iter(match=keys.executive_heartbeat_pattern(),
                                                                         count=500))
