"""`flapjack explain ENTITY:CHECK [--at TIME]`: why each contact and medium was or was not alerted (decision trace)."""

from __future__ import annotations

import json
import logging
import time
from datetime import UTC, datetime

import click

from flapjack_py.config.settings import Config
from flapjack_py.notify import decisions
from flapjack_py.runtime.session import redis_client
from flapjack_py.store import decisions as decision_store
from flapjack_py.timeparse import TimeParseError, parse_time

log = logging.getLogger(__name__)

DAY = 86400


@click.command("explain")
@click.argument("check_id", metavar="ENTITY:CHECK")
@click.option("--at", "at", metavar="TIME",
              help="Explain the decisions at or before TIME ('03:12' = the last 03:12, '2 hours ago', ISO 8601, unix time) "
                   "[default: now].")
@click.option("-n", "--limit", type=click.IntRange(1, decision_store.MAX_READ), default=5, show_default=True,
              help="How many decisions to show, newest first.")
@click.option("--json", "as_json", is_flag=True, help="Print the stored trace entries as JSON.")
@click.pass_obj
def explain(config: Config, check_id: str, at: str | None, limit: int, as_json: bool) -> None:
    """Why was (or wasn't) anyone alerted for a check: the filter that stopped each event, or per contact
    the rules that matched and per medium what happened (executive.decision_trace_length are kept per check)."""
    entity, sep, check = check_id.partition(":")
    if not (sep and entity and check):
        raise click.BadParameter("expected ENTITY:CHECK", param_hint="'ENTITY:CHECK'")
    moment = _moment(at)
    with redis_client(config) as client:
        entries = decisions.at_or_before(decision_store.load(client, entity, check), moment)[:limit]
    if as_json:
        click.echo(json.dumps(entries, indent=2))
        return
    if not entries:
        when = "" if moment is None else f" at or before {datetime.fromtimestamp(moment, UTC):%Y-%m-%d %H:%M:%S UTC}"
        click.echo(f"No decision recorded for {check_id}{when} (the last "
                   f"{config.executive.decision_trace_length} per check are kept; an ok after an ok is not traced).")
        return
    for entry in entries:
        click.echo("\n".join(decisions.describe(entry)))


def _moment(at: str | None) -> int | None:
    if at is None:
        return None
    now = datetime.fromtimestamp(time.time()).astimezone()
    try:
        moment = int(parse_time(at, now).timestamp())
    except TimeParseError as exc:
        raise click.BadParameter(str(exc), param_hint="'--at'") from None
    if 0 < moment - now.timestamp() <= DAY:  # a time of day ('03:12') asks about the last one, not the next
        moment -= DAY
    return moment
