"""Backtest (issue 14 point 7): which alerts proposed contacts/rules (and dependencies, issue 33) would have sent
differently. Pure.

`flapjack backtest` (flapjack_py/tools/backtest.py) replays the archived events
twice through the real Executive in a scratch Redis, once with the current
configuration and once with the proposal overlaid, then compares the alerts of
the two runs (`compare`). This module reads the proposal file, times the
archived events and words the comparison.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from flapjack_py.errors import FlapjackError
from flapjack_py.model.dependencies import MAX_DEPENDENCIES, Dependency, InvalidDependency, parse_item
from flapjack_py.model.rules import validate_rule_fields

MAX_PROPOSAL_BYTES = 4 * 1024 * 1024
MAX_CONTACTS = 10_000

Alert = tuple[str, str, str, str, str, int]
"""(contact, medium, check, type, state, timestamp) of one alert."""


class BadProposal(FlapjackError):
    """The proposal file cannot be used (named problem)."""


@dataclass(frozen=True)
class ProposedContact:
    """A contact as the proposal has it: replaces the current contact of that id (media, rules, links)."""

    id: str
    fields: dict[str, Any]  # create_contact fields: first_name, last_name, timezone, media
    rules: list[dict[str, Any]] | None  # None: keep the automatic general rule
    entities: list[str] | None  # entity names it is told about (None: keep the current links)


@dataclass
class Comparison:
    """The alerts of both runs and what differs, per (contact, medium)."""

    current: int
    proposed: int
    added: dict[tuple[str, str], list[Alert]] = field(default_factory=dict)
    removed: dict[tuple[str, str], list[Alert]] = field(default_factory=dict)


def read_proposal(text: str | bytes) -> list[ProposedContact]:
    """The contacts of a proposal file: `{"contacts": [{"id", "first_name", "last_name", "timezone", "media",
    "rules": [rule fields as the API takes them], "entities": [names]}]}` (none when the file proposes only
    "dependencies": read_dependencies)."""
    data = _loaded(text)
    items = data.get("contacts")
    if items is None and ("dependencies" in data or "checks" in data):
        return []
    if not isinstance(items, list) or not items or len(items) > MAX_CONTACTS:
        raise BadProposal('the rules file needs "contacts": a list of 1 to 10000 contacts (or "dependencies" or '
                          '"checks")')
    return [_contact(i, item) for i, item in enumerate(items)]


def read_dependencies(text: str | bytes) -> list[Dependency] | None:
    """The dependencies a proposal file puts in place of the stored ones (`"dependencies": [items as the API
    takes them]`, an empty list: none), or None when it proposes none."""
    items = _loaded(text).get("dependencies")
    if items is None:
        return None
    if not isinstance(items, list) or len(items) > MAX_DEPENDENCIES:
        raise BadProposal(f'"dependencies" must be a list of at most {MAX_DEPENDENCIES} dependencies')
    found = []
    for n, item in enumerate(items):
        try:
            found.append(parse_item({k: v for k, v in item.items() if k != "id"} if isinstance(item, dict) else item,
                                    f"proposed-{n}", 0))
        except InvalidDependency as exc:
            raise BadProposal(f"dependencies[{n}]: {exc}") from None
    return found


def _loaded(text: str | bytes) -> dict[str, Any]:
    if len(text) > MAX_PROPOSAL_BYTES:
        raise BadProposal(f"the rules file is larger than {MAX_PROPOSAL_BYTES} bytes")
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise BadProposal(f"the rules file is not JSON: {exc}") from None
    if not isinstance(data, dict):
        raise BadProposal('the rules file must be an object: {"contacts": [...], "dependencies": [...]}')
    return data


def _contact(index: int, item: Any) -> ProposedContact:
    where = f"contacts[{index}]"
    if not isinstance(item, dict) or not isinstance(item.get("id"), str) or not item["id"]:
        raise BadProposal(f"{where}: an object with a non-empty string id is needed")
    media = item.get("media", {})
    if not isinstance(media, dict):
        raise BadProposal(f"{where}.media: an object is needed")
    rules = item.get("rules")
    if rules is not None:
        if not isinstance(rules, list) or not all(isinstance(r, dict) for r in rules):
            raise BadProposal(f"{where}.rules: a list of rule objects is needed")
        for n, rule in enumerate(rules):
            if problems := validate_rule_fields(rule):
                raise BadProposal(f"{where}.rules[{n}]: {'; '.join(problems)}")
    entities = item.get("entities")
    if entities is not None and not (isinstance(entities, list) and all(isinstance(e, str) for e in entities)):
        raise BadProposal(f"{where}.entities: a list of entity names is needed")
    fields = {k: item[k] for k in ("first_name", "last_name", "timezone") if isinstance(item.get(k), str)}
    return ProposedContact(item["id"], {**fields, "media": media}, rules, entities)


def event_times(hour_start: int, raws: Sequence[bytes]) -> list[tuple[int, bytes]]:
    """When each of an archive hour's events (oldest first) happened: its `time` when it has one inside the hour,
    else spread evenly over the hour; never earlier than the event before it (the order is kept)."""
    timed, last = [], hour_start
    for i, raw in enumerate(raws):
        at = hour_start + i * 3600 // max(len(raws), 1)
        try:
            stated = json.loads(raw).get("time")
        except (ValueError, AttributeError):
            stated = None
        if isinstance(stated, int) and hour_start <= stated < hour_start + 3600:
            at = stated
        last = max(last, at)
        timed.append((last, raw))
    return timed


def compare(current: Iterable[Alert], proposed: Iterable[Alert]) -> Comparison:
    """What the proposal adds and removes, per (contact, medium)."""
    before, after = Counter(current), Counter(proposed)
    result = Comparison(current=sum(before.values()), proposed=sum(after.values()))
    for alert in sorted((after - before).elements()):
        result.added.setdefault(alert[:2], []).append(alert)
    for alert in sorted((before - after).elements()):
        result.removed.setdefault(alert[:2], []).append(alert)
    return result


def report(comparison: Comparison, events: int, detail: int = 5) -> list[str]:
    """Lines for the terminal: totals, then per contact and medium the added and removed alerts."""
    lines = [f"{events} archived events replayed: {comparison.current} alerts with the current rules, "
             f"{comparison.proposed} with the proposed ones"]
    pairs = sorted(set(comparison.added) | set(comparison.removed))
    if not pairs:
        return [*lines, "no difference"]
    for pair in pairs:
        added, removed = comparison.added.get(pair, []), comparison.removed.get(pair, [])
        lines.append(f"{pair[0]} {pair[1]}: +{len(added)} added, -{len(removed)} removed")
        lines += [f"  {sign} {_alert_text(a)}" for sign, group in (("+", added), ("-", removed)) for a in group[:detail]]
    return lines


def to_json(comparison: Comparison) -> dict[str, Any]:
    """The comparison as JSON-able data."""
    def rows(found: Mapping[tuple[str, str], list[Alert]]) -> list[dict[str, Any]]:
        return [{"contact": a[0], "medium": a[1], "check": a[2], "type": a[3], "state": a[4], "timestamp": a[5]}
                for group in found.values() for a in group]
    return {"current": comparison.current, "proposed": comparison.proposed,
            "added": rows(comparison.added), "removed": rows(comparison.removed)}


def _alert_text(alert: Alert) -> str:
    when = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(alert[5]))
    return f"{when} {alert[3]} {alert[2]} {alert[4]}"
