"""Retention: deleting a check's state history older than a cutoff (`flapjack purge`, engine.md 8)."""

from __future__ import annotations

import logging

import redis

from .. import keys
from .client import text

log = logging.getLogger(__name__)


def purge_check_history(client: redis.Redis, entity: str, check: str, cutoff: int) -> int:
    """Delete the state records of one check at or before `cutoff`; return how many went.

    Removes the per-timestamp state/summary/details/count/check_latency keys, the
    sorted_state_timestamps members and the same timestamps from the `states` list.
    """
    stamps = [text(t) for t in client.zrangebyscore(keys.sorted_state_timestamps(entity, check), "-inf", cutoff)]
    if not stamps:
        return 0
    with client.pipeline() as pipe:
        for ts in stamps:
            pipe.delete(*_record_keys(entity, check, ts))
            pipe.lrem(keys.check_states(entity, check), 0, ts)
        pipe.zremrangebyscore(keys.sorted_state_timestamps(entity, check), "-inf", cutoff)
        pipe.execute()
    log.info("%s:%s: purged %d historical states", entity, check, len(stamps))
    return len(stamps)


def purge_all(client: redis.Redis, check_ids: list[str], cutoff: int) -> list[int]:
    """Purge every check in `check_ids` (E:C); return the non-zero counts, one per check touched."""
    counts = [purge_check_history(client, *keys.split_check_id(cid), cutoff) for cid in check_ids]
    return [n for n in counts if n]


def _record_keys(entity: str, check: str, ts: str) -> list[str]:
    return [keys.check_state_at(entity, check, ts), keys.check_summary_at(entity, check, ts),
            keys.check_details_at(entity, check, ts), keys.check_count_at(entity, check, ts),
            keys.check_latency_at(entity, check, ts)]



