"""Sensu Go pipe handler: a Sensu event (JSON on stdin) -> one Flapjack event (`event_from_sensu` is pure).

entity.metadata.name -> entity; check.metadata.name -> check; check.status
0/1/2/other -> ok/warning/critical/unknown; the first line of check.output ->
summary, the rest -> details; check.executed -> time; check labels -> tags
`name:value`. deploy/sensu-handler.yml is a handler definition that runs
`flapjack receiver sensu`.
"""

from __future__ import annotations

import json
import logging
import sys
import time
from collections.abc import Mapping
from typing import Any

import click

from flapjack_py.config.settings import Config
from flapjack_py.errors import InvalidEvent
from flapjack_py.intake.json_feed import validate
from flapjack_py.runtime.session import redis_client
from flapjack_py.store.events import push_event

log = logging.getLogger(__name__)

STATES = {0: "ok", 1: "warning", 2: "critical"}
MAX_INPUT = 1 << 20
"""Most bytes read from standard input (a Sensu event with a long output is a few kB)."""


def event_from_sensu(data: Any, now: int) -> dict[str, Any]:
    """The Flapjack service event of one Sensu Go event; InvalidEvent when a required part is missing."""
    entity = _name(data, "entity")
    check = data["check"]
    status = check.get("status", 3)
    state = STATES.get(status, "unknown") if isinstance(status, int) and not isinstance(status, bool) else "unknown"
    summary, _, details = str(check.get("output") or "").strip().partition("\n")
    executed = check.get("executed")
    labels = (check.get("metadata") or {}).get("labels") or {}
    event: dict[str, Any] = {
        "type": "service", "entity": entity, "check": _name(data, "check"), "state": state,
        "summary": summary or f"status {status}",
        "time": executed if isinstance(executed, int) and executed > 0 else now,
        "tags": sorted(f"{k}:{v}" for k, v in labels.items()) if isinstance(labels, Mapping) else [],
    }
    if details.strip():
        event["details"] = details.strip()
    return event


def _name(data: Any, part: str) -> str:
    try:
        name = data[part]["metadata"]["name"]
    except (KeyError, TypeError):
        raise InvalidEvent([f"not a Sensu event: no {part}.metadata.name"]) from None
    if not isinstance(name, str) or not name:
        raise InvalidEvent([f"not a Sensu event: {part}.metadata.name is not a name"])
    return name


@click.command("sensu")
@click.pass_obj
def sensu_command(config: Config) -> None:
    """Sensu Go pipe handler: queue the Sensu event read from standard input (see deploy/sensu-handler.yml)."""
    text = sys.stdin.read(MAX_INPUT + 1)
    if len(text) > MAX_INPUT:
        raise click.ClickException(f"Sensu event larger than {MAX_INPUT} bytes, not queued")
    try:
        event = event_from_sensu(json.loads(text), int(time.time()))
    except (ValueError, InvalidEvent) as exc:
        raise click.ClickException(f"not queued: {exc}") from None
    valid, errors = validate(json.dumps(event), time.time())
    if valid is None:
        raise click.ClickException(f"not queued: {', '.join(errors)}")
    with redis_client(config) as client:
        push_event(client, valid)
    log.info("queued %s:%s %s from Sensu", valid["entity"], valid["check"], valid["state"])
