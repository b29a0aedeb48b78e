"""`flapjack purge check_history`: delete state records older than a number of days (engine.md 8, deviation D14),
and the rest of each check's history up to then (ended maintenance windows, decision traces, actions,
notification times) and, for every check, the records of the maintenance series' ended occurrences;
`flapjack purge alerts`: delete alert records and their undelivered rq jobs older than a number of days;
`flapjack purge rejected_events`: delete the hourly lists of rejected events older than a number of days."""

from __future__ import annotations

import logging
import time

import click

from flapjack_py.config.settings import Config
from flapjack_py.runtime.session import redis_client
from flapjack_py.store import checks as check_store
from flapjack_py.store import maintenance_series as series_store
from flapjack_py.store.retention import purge_alerts, purge_all, purge_rejected

log = logging.getLogger(__name__)

DAY = 86400


def report(counts: list[int]) -> str:
    """The closing line: `Purged N historical check states over M checks.` or `Nothing to do`."""
    if not counts:
        return "Nothing to do"
    return f"Purged {sum(counts)} historical check states over {len(counts)} checks."


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
    """Purge check state history older than --days (with ended maintenance windows, decision traces, actions
    and notification times)."""
    if check_id is not None and ":" not in check_id:
        raise click.BadParameter("expected ENTITY:CHECK", param_hint="'-c' / '--check'")
    cutoff = int(time.time()) - days * DAY
    with redis_client(config) as client:
        ids = [check_id] if check_id else check_store.all_check_ids(client)
        counts = purge_all(client, ids, cutoff)
        if check_id is None:
            series_store.forget_ended(client, cutoff)
        click.echo(report(counts))


@purge.command("alerts")
@click.option("-d", "--days", callback=lambda ctx, param, value: None if value is None else _days(ctx, param, value),
              help="Purge alert records older than DAYS days ago [default: executive.alert_retention].")
@click.pass_obj
def alerts(config: Config, days: int | None) -> None:
    """Purge alert records (and their rq jobs still queued) older than --days."""
    age = config.executive.alert_retention if days is None else days * DAY
    with redis_client(config) as client:
        records, jobs = purge_alerts(client, int(time.time()) - age)
    click.echo(f"Purged {records} alert records and {jobs} queued jobs." if records else "Nothing to do")


@purge.command("rejected_events")
@click.option("-d", "--days", default="7", show_default=True, callback=_days,
              help="Purge the rejected events of UTC hours that ended more than DAYS days ago.")
@click.pass_obj
def rejected_events(config: Config, days: int) -> None:
    """Purge the hourly lists of rejected events (events_rejected:HOUR, with their reasons) older than --days."""
    with redis_client(config) as client:
        lists = purge_rejected(client, int(time.time()) - days * DAY)
    click.echo(f"Purged {lists} lists of rejected events." if lists else "Nothing to do")
