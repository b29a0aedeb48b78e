"""`flapjack import contacts|entities -f FILE`: load Flapjack 1.x JSON exports (engine.md 8)."""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Callable
from typing import Any

import click
import redis

from ..config import Config
from ..errors import FlapjackError
from ..store import contacts as contact_store
from ..store import entities as entity_store
from .session import redis_client

log = logging.getLogger(__name__)

CONTACT_FIELDS = ("id", "first_name", "last_name", "email", "timezone", "media")


def load_entries(text: str) -> list[Any]:
    """The JSON array of a file; raise ValueError when it is not JSON or not an array."""
    data = json.loads(text)
    if not isinstance(data, list):
        raise ValueError("expected a JSON array of objects")
    return data


def with_ids(entries: list[Any], noun: str, say: Callable[[str], None]) -> list[dict[str, Any]]:
    """Entries that have an id; each one without is reported and skipped."""
    kept = []
    for entry in entries:
        if isinstance(entry, dict) and entry.get("id") not in (None, ""):
            kept.append(entry)
        else:
            say(f"{noun} not imported as it has no id: {json.dumps(entry)}")
    return kept


def import_contact(client: redis.Redis, entry: dict[str, Any]) -> None:
    """Replace contact `id` entirely (rules, drop keys, contacts_for:* memberships), then store it."""
    contact_id = str(entry["id"])
    if contact_store.contact_key_exists(client, contact_id):
        contact_store.delete_contact(client, contact_id)
    contact_store.create_contact(client, {k: entry[k] for k in CONTACT_FIELDS if k in entry})


def import_entity(client: redis.Redis, entry: dict[str, Any]) -> None:
    """Reconcile id/name, replace contacts_for:ID with the listed existing contacts, add the tags."""
    name = entry.get("name")
    if not isinstance(name, str) or not name:
        raise ValueError(f"entity {entry['id']} has no name")
    contacts = [str(c) for c in entry.get("contacts") or []]
    entity_store.import_entity(client, str(entry["id"]), name, contacts, entry.get("tags") or [])


def import_all(client: redis.Redis, entries: list[dict[str, Any]], one: Callable[[redis.Redis, dict[str, Any]], None],
               noun: str, say: Callable[[str], None]) -> int:
    """Import each entry, reporting (and skipping) the ones the data layer refuses; return how many went in."""
    done = 0
    for entry in entries:
        try:
            one(client, entry)
        except (ValueError, FlapjackError) as exc:
            say(f"{noun} {entry['id']} not imported: {exc}")
            continue
        done += 1
    return done


@click.group("import")
def import_group() -> None:
    """Import data from Flapjack 1.x JSON exports."""


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


def _run(config: Config, source: Any, noun: str, one: Callable[[redis.Redis, dict[str, Any]], None]) -> None:
    try:
        entries = with_ids(load_entries(source.read()), noun, click.echo)
    except ValueError as exc:
        click.echo(f"{source.name}: {exc}", err=True)
        sys.exit(1)
    if not entries:
        click.echo(f"Nothing imported: no {noun.lower()} has an id")
        return
    with redis_client(config) as client:
        done = import_all(client, entries, one, noun, click.echo)
    click.echo(f"Imported {done} of {len(entries)} {'contacts' if noun == 'Contact' else 'entities'}.")
