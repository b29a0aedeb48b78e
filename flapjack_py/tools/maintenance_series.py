"""`flapjack maintenance create --rrule`, `flapjack maintenance series list|delete`: recurring scheduled
maintenance from the command line (the series live in flapjack_py.store.maintenance_series)."""

from __future__ import annotations

import logging
import sys
import time
import uuid

import click

from flapjack_py.config.settings import Config
from flapjack_py.oncall import recurrence
from flapjack_py.runtime.session import redis_client
from flapjack_py.store import maintenance_series as store
from flapjack_py.tools.maintenance_windows import ensure_entity
from flapjack_py.tools.table import render_table
from flapjack_py.tools.timespec import stamp

log = logging.getLogger(__name__)

HEADINGS = ("Id", "Rule", "Time zone", "Duration (s)", "Reason", "Targets", "Next")


def create_recurring(config: Config, entities: list[str], checks: list[str], reason: str, start: str,
                     duration: str, rrule: str, zone: str) -> None:
    """Create a series on every entity x check, materialise it, and say when it next starts."""
    now = int(time.time())
    fields = {"rrule": rrule, "timezone": zone, "start_time": start, "duration": duration, "summary": reason,
              "checks": [f"{e}:{c}" for e in entities for c in checks]}
    try:
        made = recurrence.new_series(str(uuid.uuid4()), fields, now)
    except recurrence.InvalidSeries as exc:
        raise click.UsageError(str(exc)) from None
    with redis_client(config) as client:
        for entity in entities:
            ensure_entity(client, entity)
        try:
            store.check_plan(client, made, now, known_checks=False)
        except recurrence.InvalidSeries as exc:
            raise click.UsageError(str(exc)) from None
        store.save_series(client, made)
        store.materialise(client, made, now)
    upcoming = recurrence.next_occurrences(made, now, 1)
    click.echo(f"The recurring maintenance {made.id} has been created"
               + (f"; next window starts {stamp(upcoming[0])}" if upcoming else ""))


@click.group()
def series() -> None:
    """List and delete recurring maintenance series."""


@series.command("list")
@click.pass_obj
def list_command(config: Config) -> None:
    """Show every recurring maintenance series and its next window."""
    now = int(time.time())
    with redis_client(config) as client:
        found = store.list_series(client)
    rows = []
    for s in found:
        upcoming = recurrence.next_occurrences(s, now, 1)
        rows.append((s.id, s.rrule, s.timezone, s.duration, s.summary, recurrence.describe_targets(s),
                     stamp(upcoming[0]) if upcoming else ""))
    click.echo(render_table(HEADINGS, rows))


@series.command("delete")
@click.argument("series_ids", nargs=-1, required=True, metavar="ID...")
@click.pass_obj
def delete_command(config: Config, series_ids: tuple[str, ...]) -> None:
    """Delete series and their future windows (past and in-progress windows stay)."""
    now = int(time.time())
    with redis_client(config) as client:
        missing = [i for i in series_ids if store.load_series(client, i) is None]
        if missing:
            click.echo(f"No such series: {', '.join(missing)}", err=True)
            sys.exit(1)
        for series_id in series_ids:
            removed = store.delete_series(client, series_id, now)
            click.echo(f"Deleted series {series_id} and {removed} future windows")
