"""`flapjack audit`: the audit trail (who acted, through which channel, on what), oldest first.

`--since` is a duration back from now (`24h`, `7 days`) or a time (`yesterday 09:00`, ISO 8601).
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict
from datetime import UTC, datetime

import click

from flapjack_py.config.settings import Config
from flapjack_py.runtime.session import redis_client
from flapjack_py.store import audit as store
from flapjack_py.timeparse import TimeParseError, parse_duration, parse_time
from flapjack_py.tools.table import render_table

HEADINGS = ("Time (UTC)", "Actor", "Channel", "From", "Action", "Target", "Outcome", "Detail")


def since_time(typed: str, now: int) -> int:
    """Unix time of `--since`: a duration ago (`24h`) or a time; raises click.BadParameter."""
    try:
        return now - parse_duration(typed)
    except TimeParseError:
        pass
    try:
        return int(parse_time(typed, datetime.fromtimestamp(now, UTC), "UTC").timestamp())
    except TimeParseError as exc:
        raise click.BadParameter(f"{typed!r}: {exc}", param_hint="--since") from None


@click.command("audit")
@click.option("--since", default="24h", show_default=True, help="A duration back from now (24h, 7 days) or a time.")
@click.option("--actor", default="", help="Only entries of this actor (user name, token:NAME, jabber:JID, ...).")
@click.option("--target", default="", help="Only entries on this target (E:C, an entity, an id).")
@click.option("--action", default="", help="Only this action (acknowledge, login, post_contacts, ...).")
@click.option("--limit", type=click.IntRange(1, 1_000_000), default=10_000, show_default=True,
              help="At most this many entries (the newest).")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per line.")
@click.pass_obj
def audit(config: Config, since: str, actor: str, target: str, action: str, limit: int, as_json: bool) -> None:
    """The audit trail: every write, login and action, with its actor, channel and outcome."""
    now = int(time.time())
    start = since_time(since, now)
    with redis_client(config) as client:
        found = store.search(client, start, now, limit=1_000_000, actor=actor, target=target, action=action)
    found = found[-limit:]
    if as_json:
        for item in found:
            click.echo(json.dumps(asdict(item), separators=(",", ":")))
        return
    if not found:
        click.echo("no audit entries")
        return
    click.echo(render_table(HEADINGS, [(_utc(e.time), e.actor, e.channel, e.address, e.action,
                                        f"{e.kind} {e.target}".strip(), e.outcome, e.detail[:60]) for e in found]))


def _utc(ts: int) -> str:
    return datetime.fromtimestamp(ts, UTC).strftime("%Y-%m-%d %H:%M:%S")
