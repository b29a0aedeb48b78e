"""`flapjack backtest --rules FILE --since 24h`: replay archived events through the real engine with proposed
contacts and rules (and dependencies, issue 33), and print which alerts would have been sent differently (issue 14
point 7).

Both replays run in a private scratch Redis (never the live one, which is only
read): first the current contacts, rules and entity links, then the same with
the proposal overlaid. The executive runs on a replay clock: time.time() reads
each event's time, and the TTLs that time intervals, rollup and maintenance are
cut as the clock moves (store/backtest.shift_ttls).
"""

from __future__ import annotations

import json
import logging
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from itertools import groupby
from pathlib import Path
from unittest import mock

import click

from flapjack_py import keys
from flapjack_py.analysis import backtest
from flapjack_py.analysis.backtest import Alert, ProposedContact
from flapjack_py.analysis.suggestions import read_check_changes, with_check_changes
from flapjack_py.config.settings import Config
from flapjack_py.executive import Executive
from flapjack_py.executive.steps import new_entity_id
from flapjack_py.model.dependencies import Dependency, InvalidDependency
from flapjack_py.model.rules import rule_from_fields
from flapjack_py.runtime.connection import embedded_clients
from flapjack_py.runtime.embedded_redis import EmbeddedRedis
from flapjack_py.runtime.session import redis_clients
from flapjack_py.store import backtest as store
from flapjack_py.store import contacts as contact_store
from flapjack_py.store import dependencies as dependency_store
from flapjack_py.store import entities as entity_store
from flapjack_py.store import rules as rule_store
from flapjack_py.store.plumbing.client import Clients, StrRedis
from flapjack_py.timeparse import TimeParseError, parse_duration

log = logging.getLogger(__name__)


@click.command("backtest")
@click.option("--rules", "rules_file", required=True, type=click.Path(exists=True, dir_okay=False),
              help='JSON file of proposed contacts, dependencies and check fields: {"contacts": [{"id", "media", '
                   '"rules": [...], "entities": [...]}], "dependencies": [{"parent": "E:C", "child": {...}}], '
                   '"checks": [{"check": "E:C", "initial_failure_delay": 120}]}.')
@click.option("--since", default="24h", show_default=True, help="Replay the archived events of this long ago on.")
@click.option("--json", "as_json", is_flag=True, help="Print the comparison as JSON.")
@click.pass_obj
def backtest_command(config: Config, rules_file: str, since: str, as_json: bool) -> None:
    """Replay archived events (executive.archive_events) with proposed contacts/rules and dependencies (in place of
    the stored ones) in a scratch Redis and print the alerts that would have been sent differently, added and
    removed per contact and medium."""
    try:
        start = int(time.time()) - parse_duration(since)
    except TimeParseError as exc:
        raise click.BadParameter(str(exc), param_hint="'--since'") from None
    text = Path(rules_file).read_bytes()
    proposal, dependencies = backtest.read_proposal(text), backtest.read_dependencies(text)
    with redis_clients(config) as live:
        stored = _check_dependencies(live.text, dependencies)
        events = archived(live, start)
        if not events:
            raise click.ClickException(f"no archived events since {since} ago (is executive.archive_events on, "
                                       f"and executive.events_archive_maxage long enough?)")
        current = replay(live, events, config, lambda scratch: None)
        changed = with_check_changes(events, read_check_changes(json.loads(text)))  # issue 32: per-check fields
        proposed = replay(live, changed, config, lambda scratch: apply_proposal(scratch, proposal, dependencies))
    comparison = backtest.compare(current, proposed)
    counts = None if dependencies is None else {"current": stored, "proposed": len(dependencies)}
    if as_json:
        click.echo(json.dumps({**backtest.to_json(comparison), **({"dependencies": counts} if counts else {})},
                              indent=2))
        return
    lines = backtest.report(comparison, len(events))
    if counts:
        lines.insert(1, f"{counts['proposed']} proposed dependencies in place of the {counts['current']} stored")
    click.echo("\n".join(lines))


def _check_dependencies(live: StrRedis, dependencies: Sequence[Dependency] | None) -> int:
    """How many dependencies are stored; BadProposal when the proposed ones make a cycle with the live tags."""
    if dependencies is not None:
        try:
            dependency_store.check_all(live, dependencies)
        except InvalidDependency as exc:
            raise backtest.BadProposal(f"dependencies: {exc}") from None
    return len(dependency_store.load_all(live))


def archived(live: Clients, start: int) -> list[tuple[int, bytes]]:
    """The archived events from `start` on with their times, oldest first."""
    found = []
    for hour, key in store.archived_hours(live.text, start):
        found += [e for e in backtest.event_times(hour, store.archived_events(live.raw, key)) if e[0] >= start]
    return found


def replay(live: Clients, events: Sequence[tuple[int, bytes]], config: Config,
           setup: Callable[[StrRedis], None]) -> list[Alert]:
    """The alerts the executive records for `events` in a scratch Redis holding the live configuration, changed
    by `setup`."""
    with tempfile.TemporaryDirectory(prefix="flapjack-backtest-") as tmp, EmbeddedRedis(tmp, persistent=False) as server:
        scratch = embedded_clients(server)
        store.copy_keys(live.text, scratch.text, keys.configuration_patterns())
        setup(scratch.text)
        executive = Executive(scratch, replay_config(config))
        with _clock(events[0][0]) as move_to:
            for at, group in groupby(events, key=lambda e: e[0]):
                store.shift_ttls(scratch.text, move_to(at))
                store.push_raw(scratch.raw, config.executive.queue, [raw for _, raw in group])
                executive.drain()
        alerts = store.recorded_alerts(scratch.text)
        scratch.close()
    return alerts


def replay_config(config: Config) -> Config:
    """The live config for a replay: no archive, no notify log, no new-check maintenance (every check is new in the
    scratch database), no staleness sweep, no decision trace."""
    executive = config.executive.model_copy(update={
        "archive_events": False, "notification_log_file": None, "new_check_scheduled_maintenance_duration": 0,
        "stale_after": 0, "decision_trace_length": 0})
    return config.model_copy(update={"executive": executive})


@contextmanager
def _clock(start: int) -> Iterator[Callable[[int], int]]:
    """time.time() reads the replay clock; the callable moves it to a time and returns the seconds moved."""
    now = [float(start)]

    def move_to(at: int) -> int:
        moved = max(int(at - now[0]), 0)
        now[0] = max(now[0], float(at))
        return moved

    with mock.patch("time.time", lambda: now[0]):
        yield move_to


def apply_proposal(scratch: StrRedis, proposal: Sequence[ProposedContact],
                   dependencies: Sequence[Dependency] | None = None) -> None:
    """Replace each proposed contact (media, rules, and entity links when given) in the scratch database, and the
    dependencies when `dependencies` is not None."""
    if dependencies is not None:
        dependency_store.replace_all(scratch, dependencies)
    for contact in proposal:
        links = store.link_keys(scratch, contact.id)
        if contact_store.contact_key_exists(scratch, contact.id):
            contact_store.delete_contact(scratch, contact.id)
        contact_store.create_contact(scratch, {"id": contact.id, **contact.fields})
        if contact.rules is not None:
            for rule_id in rule_store.rule_ids(scratch, contact.id):
                rule_store.delete_rule(scratch, rule_id)
            for fields in contact.rules:
                rule_store.create_rule(scratch, rule_from_fields(str(uuid.uuid4()), contact.id, fields))
        if contact.entities is None:
            store.add_links(scratch, contact.id, links)
            continue
        for name in contact.entities:
            entity_id = entity_store.entity_id(scratch, name)
            if entity_id is None:
                entity_id = new_entity_id(name)
                entity_store.save_entity(scratch, entity_id, name)
            entity_store.add_entity_contacts(scratch, entity_id, [contact.id])
