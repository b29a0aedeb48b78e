"""`flapjack maintenance create|show|delete`: scheduled and unscheduled maintenance from the command line (engine.md 8)."""

from __future__ import annotations

import logging
import sys
import time
from collections.abc import Callable
from datetime import datetime
from typing import Any

import click

from flapjack_py.config.settings import Config
from flapjack_py.runtime.session import comma_list, redis_client
from flapjack_py.timeparse import TimeParseError, describe, parse_duration, parse_time
from flapjack_py.tools.maintenance_series import create_recurring, series
from flapjack_py.tools.maintenance_windows import (
    SCHEDULED,
    UNSCHEDULED,
    Criteria,
    Found,
    create_windows,
    end_windows,
    find_windows,
)
from flapjack_py.tools.table import render_table
from flapjack_py.tools.timespec import duration_filter, stamp, time_filter

log = logging.getLogger(__name__)

HEADINGS = ("Entity", "Check", "State", "Start", "Duration (s)", "Reason", "End")
WOULD_DELETE = ("The following maintenances would be deleted.  Run this command again with --apply true "
                "to remove them.")
STATES = ("ok", "warning", "critical", "unknown")


def build_criteria(now: datetime, kind: str, entity: str | None, check: str | None, reason: str | None,
                   state: str | None, start: str | None, finish: str | None, duration: str | None) -> Criteria:
    """Criteria from the show/delete options; raise TimeParseError for a bad time or duration filter."""
    criteria = Criteria(kind=kind, entity=entity, check=check, reason=reason,
                        state=state.lower() if state else None,
                        end_ok=time_filter(finish or "after now", now, "Finish"))
    if start:
        criteria.start_ok = time_filter(start, now, "Start")
    if duration:
        criteria.duration_ok = duration_filter(duration)
    return criteria


def table_rows(found: list[Found]) -> list[tuple[Any, ...]]:
    """One table row per window: times printed as local time."""
    return [(f.entity, f.check, f.state, stamp(f.start), f.duration, f.reason, stamp(f.end)) for f in found]


def _now() -> datetime:
    return datetime.fromtimestamp(time.time()).astimezone()


def _filters(f: Callable[..., Any]) -> Callable[..., Any]:
    """The selection options of show and delete."""
    options = [
        click.option("-e", "--entity", metavar="REGEX", help="Entities whose name matches this regex."),
        click.option("-c", "--check", metavar="REGEX", help="Checks whose name matches this regex."),
        click.option("-r", "--reason", metavar="REGEX", help="Windows whose reason matches this regex."),
        click.option("--state", type=click.Choice(STATES, case_sensitive=False),
                     help="Only checks currently in this state."),
        click.option("-t", "--type", "kind", type=click.Choice([SCHEDULED, UNSCHEDULED]), default=SCHEDULED,
                     show_default=True, help="Type of maintenance."),
        click.option("-s", "--start", "--started", "--starting", "start", metavar="WHEN",
                     help="Start time filter: 'before X', 'after X', 'on DATE', 'less than X ago', "
                          "'more than X from now', 'between X and Y'."),
        click.option("-f", "--finish", "--finishing", "--end", "finish", metavar="WHEN",
                     help="Finish time filter, same forms as --start [default: 'after now', i.e. ongoing and future]."),
        click.option("-d", "--duration", metavar="DURATION",
                     help="Duration filter: 'less than D', 'more than D', 'between D1 and D2' or exactly D."),
    ]
    for option in reversed(options):
        f = option(f)
    return f


@click.group()
def maintenance() -> None:
    """Show, create and delete maintenance windows."""


@maintenance.command()
@_filters
@click.pass_obj
def show(config: Config, /, **opts: Any) -> None:
    """Show maintenance windows matching the filters (default: ongoing and future scheduled ones)."""
    criteria = _criteria(opts)
    with redis_client(config) as client:
        found = find_windows(client, criteria)
    click.echo(render_table(HEADINGS, table_rows(found)))


@maintenance.command()
@_filters
@click.option("-a", "--apply", type=click.BOOL, is_flag=False, flag_value=True, default=False, show_default=True,
              help="Really end the windows (`--apply` or `--apply true`); without it they are only shown.")
@click.pass_obj
def delete(config: Config, /, apply: bool, **opts: Any) -> None:
    """End the maintenance windows matching the filters (shows them first; needs --apply)."""
    criteria = _criteria(opts)
    with redis_client(config) as client:
        found = find_windows(client, criteria)
        click.echo(render_table(HEADINGS, table_rows(found)))
        if not apply:
            click.echo(WOULD_DELETE, err=True)
            sys.exit(1)
        errors = end_windows(client, found, criteria.kind, int(time.time()))
    for identifier, message in errors.items():
        click.echo(f"{identifier}: {message}")
    if errors:
        click.echo("Failed to delete maintenances", err=True)
        sys.exit(1)
    click.echo("The maintenances above have been deleted")


@maintenance.command()
@click.option("-e", "--entity", required=True, help="Entity name, or a comma-separated list of them.")
@click.option("-c", "--check", required=True, help="Check name, or a comma-separated list of them.")
@click.option("-r", "--reason", required=True, help="Why: stored as the window's summary.")
@click.option("-s", "--start", "--started", "--starting", "start", required=True, metavar="WHEN",
              help="Start time, e.g. 'now', 'in 3 hours', 'tomorrow 02:00', "
                   "'next sunday 01:30 Europe/Berlin', '2024-05-01T22:00:00+02:00'.")
@click.option("-d", "--duration", required=True, help="Duration, e.g. '90m', '1h30m', '2 hours', 'PT1H', 3600.")
@click.option("-t", "--type", "kind", type=click.Choice([SCHEDULED, UNSCHEDULED]), default=SCHEDULED,
              show_default=True, help="Type of maintenance.")
@click.option("--rrule", metavar="RRULE", help="Repeat as this RFC 5545 rule, e.g. "
              "'FREQ=WEEKLY;BYDAY=SU;BYHOUR=2;BYMINUTE=0' (a recurring scheduled series).")
@click.option("--tz", "zone", metavar="ZONE", help="IANA time zone the start (and --rrule) is read in "
              "[default: this machine's zone; UTC for --rrule].")
@click.pass_obj
def create(config: Config, entity: str, check: str, reason: str, start: str, duration: str, kind: str,
           rrule: str | None, zone: str | None) -> None:
    """Create a maintenance window (or, with --rrule, a recurring series) on every ENTITY x CHECK
    (unknown entities are created)."""
    entities, checks = comma_list(entity), comma_list(check)
    if not entities or not checks:
        raise click.UsageError("--entity and --check need at least one name each")
    if rrule is not None:
        if kind != SCHEDULED:
            raise click.UsageError("--rrule makes scheduled maintenance only")
        create_recurring(config, entities, checks, reason, start, duration, rrule, zone or "UTC")
        return
    now = _now()
    started, seconds = _start_and_duration(start, duration, now, zone)
    with redis_client(config) as client:
        create_windows(client, entities, checks, kind, started, seconds, reason, int(now.timestamp()))
    click.echo("The maintenances specified have been created")


def _criteria(opts: dict[str, Any]) -> Criteria:
    try:
        return build_criteria(_now(), **opts)
    except TimeParseError as exc:
        raise click.UsageError(str(exc)) from None


def _start_and_duration(start: str, duration: str, now: datetime, zone: str | None = None) -> tuple[int, int]:
    try:
        started = parse_time(start, now, zone)
    except TimeParseError as exc:
        raise click.UsageError(f"Failed to parse start time {start!r}: {exc}") from None
    try:
        seconds = parse_duration(duration)
    except TimeParseError as exc:
        raise click.UsageError(f"Failed to parse duration {duration!r}: {exc}") from None
    log.info("maintenance start %r read as %s", start, describe(started))
    return int(started.timestamp()), seconds


maintenance.add_command(series)
