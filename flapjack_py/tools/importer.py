"""`flapjack import contacts|entities -f FILE`: load Flapjack 1.x JSON exports (engine.md 8);
`flapjack import dependencies -f FILE`: load dependencies (issue 33.1) as the API takes them.

A progress bar (rich, on stderr, only on a terminal) while importing; then one summary: how many went in
and why the others did not.
"""

from __future__ import annotations

import json
import logging
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from flapjack_py.config.settings import Config
from flapjack_py.errors import FlapjackError
from flapjack_py.model.dependencies import id_problem, parse_item
from flapjack_py.model.names import entity_name_problem
from flapjack_py.runtime.session import redis_client
from flapjack_py.store import contacts as contact_store
from flapjack_py.store import dependencies as dependency_store
from flapjack_py.store import entities as entity_store
from flapjack_py.store.plumbing.client import StrRedis

log = logging.getLogger(__name__)

CONTACT_FIELDS = ("id", "first_name", "last_name", "email", "timezone", "media")
SHOWN_SKIPS = 20
"""Most reasons for skipped entries printed after an import (the rest are counted)."""
SHOWN_ENTRY = 200
"""Characters of a skipped entry's JSON shown."""


def load_entries(text: str) -> list[Any]:
    """The JSON array of a file; raise ValueError when it is not JSON or not an array."""
    data = json.loads(text)
    if not isinstance(data, list):
        raise ValueError("expected a JSON array of objects")
    return data


def with_ids(entries: list[Any], noun: str, skipped: list[str]) -> list[dict[str, Any]]:
    """Entries that have an id; each one without is skipped, with the reason added to `skipped`."""
    kept = []
    for number, entry in enumerate(entries, 1):
        if isinstance(entry, dict) and entry.get("id") not in (None, ""):
            kept.append(entry)
        else:
            skipped.append(f"{noun} #{number} has no id: {json.dumps(entry)[:SHOWN_ENTRY]}")
    return kept


def import_contact(client: StrRedis, entry: dict[str, Any]) -> None:
    """Replace contact `id` entirely (rules, drop keys, contacts_for:* memberships), then store it."""
    contact_id = str(entry["id"])
    if contact_store.contact_key_exists(client, contact_id):
        contact_store.delete_contact(client, contact_id)
    contact_store.create_contact(client, {k: entry[k] for k in CONTACT_FIELDS if k in entry})


def import_entity(client: StrRedis, entry: dict[str, Any]) -> None:
    """Reconcile id/name, replace contacts_for:ID with the listed existing contacts, add the tags.

    Raises ValueError for a missing name or one that does not fit the layout (flapjack_py.model.names).
    """
    name = entry.get("name")
    if not isinstance(name, str) or not name:
        raise ValueError(f"entity {entry['id']} has no name")
    if problem := entity_name_problem(name):
        raise ValueError(f"entity {entry['id']}: {problem}: {json.dumps(name)}")
    contacts = [str(c) for c in entry.get("contacts") or []]
    entity_store.import_entity(client, str(entry["id"]), name, contacts, entry.get("tags") or [])


def import_dependency(client: StrRedis, entry: dict[str, Any]) -> None:
    """Store dependency `id` (replacing one of that id): `{"id", "parent": "E:C", "child": {"check"|"entity"|"tag":
    NAME}}`. Raises FlapjackError (flapjack_py.model.dependencies.InvalidDependency, a cycle included) or
    ValueError naming the problem."""
    if problem := id_problem(entry["id"]):
        raise ValueError(problem)
    dep = parse_item(entry, entry["id"], int(time.time()))
    dependency_store.add(client, [dep], replace=True)


def import_all(client: StrRedis, entries: list[dict[str, Any]], one: Callable[[StrRedis, dict[str, Any]], None],
               noun: str, skipped: list[str], advance: Callable[[], None] = lambda: None) -> int:
    """Import each entry (calling `advance` after each); the ones the data layer refuses are skipped, their
    reasons added to `skipped`. Return how many went in."""
    done = 0
    for entry in entries:
        try:
            one(client, entry)
        except (ValueError, FlapjackError) as exc:
            skipped.append(f"{noun} {entry['id']} not imported: {exc}")
        else:
            done += 1
        advance()
    return done


def summary(done: int, total: int, plural: str, skipped: list[str]) -> list[str]:
    """The lines printed after an import: how many went in, then why the others did not (at most SHOWN_SKIPS)."""
    lines = [f"Imported {done} of {total} {plural}" + (f"; {len(skipped)} skipped:" if skipped else ".")]
    lines += [f"  {reason}" for reason in skipped[:SHOWN_SKIPS]]
    if len(skipped) > SHOWN_SKIPS:
        lines.append(f"  ... and {len(skipped) - SHOWN_SKIPS} more")
    return lines


@click.group("import")
def import_group() -> None:
    """Import data: contacts and entities from Flapjack 1.x JSON exports, dependencies."""


@import_group.command()
@click.option("-f", "--from", "source", required=True, type=click.File("r", encoding="utf-8"),
              help="JSON file holding an array of contacts.")
@click.pass_obj
def contacts(config: Config, source: Any) -> None:
    """Import contacts (an existing contact with the same id is replaced entirely)."""
    _run(config, source, "Contact", import_contact)


@import_group.command()
@click.option("-f", "--from", "source", required=True, type=click.File("r", encoding="utf-8"),
              help="JSON file holding an array of entities.")
@click.pass_obj
def entities(config: Config, source: Any) -> None:
    """Import entities: {id, name, contacts, tags}."""
    _run(config, source, "Entity", import_entity)


@import_group.command()
@click.option("-f", "--from", "source", required=True, type=click.File("r", encoding="utf-8"),
              help="JSON file holding an array of dependencies.")
@click.pass_obj
def dependencies(config: Config, source: Any) -> None:
    """Import dependencies: {id (optional), parent: "ENTITY:CHECK", child: {check|entity|tag: NAME}}; one with the
    id of a stored one replaces it, a cycle is refused."""
    _run(config, source, "Dependency", import_dependency, "dependencies")


def _run(config: Config, source: Any, noun: str, one: Callable[[StrRedis, dict[str, Any]], None],
         plural: str = "") -> None:
    try:
        entries = load_entries(source.read())
    except ValueError as exc:
        click.echo(f"{source.name}: {exc}", err=True)
        sys.exit(1)
    plural = plural or ("contacts" if noun == "Contact" else "entities")
    if noun == "Dependency":  # no 1.x export to follow: an id is made for an entry without one
        entries = [{"id": str(uuid.uuid4()), **e} if isinstance(e, dict) and "id" not in e else e for e in entries]
    skipped: list[str] = []
    kept = with_ids(entries, noun, skipped)
    done = 0
    if kept:
        with redis_client(config) as client, _quiet_store(), _progress(plural, len(kept)) as advance:
            done = import_all(client, kept, one, noun, skipped, advance)
    log.info("imported %d of %d %s from %s", done, len(entries), plural, source.name)
    for line in summary(done, len(entries), plural, skipped):
        click.echo(line)


@contextmanager
def _progress(plural: str, total: int) -> Iterator[Callable[[], None]]:
    """A progress bar on stderr while importing (only on a terminal); yields the function advancing it."""
    console = Console(stderr=True)
    with Progress(TextColumn(f"Importing {plural}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                  console=console, transient=True, disable=not console.is_terminal) as progress:
        task = progress.add_task(plural, total=total)
        yield lambda: progress.advance(task)


@contextmanager
def _quiet_store() -> Iterator[None]:
    """Hold back the data layer's INFO line per contact/entity/rule: the summary says it once."""
    store_log = logging.getLogger("flapjack_py.store")
    level = store_log.level
    store_log.setLevel(max(logging.WARNING, level))
    try:
        yield
    finally:
        store_log.setLevel(level)
