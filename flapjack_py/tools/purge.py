"""`flapjack purge check_history`: delete state records older than a number of days (engine.md 8, deviation D14)."""

from __future__ import annotations

import logging
import time

import click
import redis

from .. import keys
from ..config import Config
from ..store import checks as check_store
from .session import redis_client

log = logging.getLogger(__name__)

DAY = 86400


def purge_check_history(client: redis.Redis, entity: str, check: str, cutoff: int) -> int:
    """Delete the state records of one check at or before `cutoff`; return how many went.

    Removes the per-timestamp state/summary/details/count/check_latency keys, the
    sorted_state_timestamps members and the same timestamps from the `states` list.
    """
    stamps = [_s(t) for t in client.zrangebyscore(keys.sorted_state_timestamps(entity, check), "-inf", cutoff)]
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


def report(counts: list[int]) -> str:
    """The closing line: `Purged N historical check states over M checks.` or `Nothing to do`."""
    if not counts:
        return "Nothing to do"
    return f"Purged {sum(counts)} historical check states over {len(counts)} checks."


def _record_keys(entity: str, check: str, ts: str) -> list[str]:
    return [keys.check_state_at(entity, check, ts), keys.check_summary_at(entity, check, ts),
            keys.check_details_at(entity, check, ts), keys.check_count_at(entity, check, ts),
            keys.check_latency_at(entity, check, ts)]


def _s(value: bytes | str) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else value


def _days(ctx: click.Context, param: click.Parameter, value: str) -> int:
    text = value.strip()
    if not text.isdigit():
        raise click.BadParameter("days must be resolvable to an integer")
    return int(text)


@click.group()
def purge() -> None:
    """Purge data from Flapjack's database."""


@purge.command("check_history")
@click.option("-d", "--days", default="90", show_default=True, callback=_days,
              help="Purge check history older than DAYS days ago (an integer).")
@click.option("-c", "--check", "check_id", metavar="ENTITY:CHECK",
              help="Only the check with this id [default: every check in all_checks].")
@click.pass_obj
def check_history(config: Config, days: int, check_id: str | None) -> None:
    """Purge check state history older than --days."""
    if check_id is not None and ":" not in check_id:
        raise click.BadParameter("expected ENTITY:CHECK", param_hint="'-c' / '--check'")
    cutoff = int(time.time()) - days * DAY
    with redis_client(config) as client:
        ids = [check_id] if check_id else check_store.all_check_ids(client)
        click.echo(report(purge_all(client, ids, cutoff)))
