"""Read model of the overview: unhandled problems, handled problems and every matching check, filtered,
sorted and paged on the server.

Cost stays flat with the number of checks: problems come from failed_checks (only failing checks are
read), and the list of every check reads only its page unless a filter or sort needs every check's facts.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from flask import request, url_for

from flapjack_py.model.teams import teams_of
from flapjack_py.store import acknowledgers
from flapjack_py.store import checks as check_store
from flapjack_py.store import entities as entity_store
from flapjack_py.store import read_models as queries
from flapjack_py.store import teams as team_store
from flapjack_py.store import triage as store
from flapjack_py.store.plumbing.client import StrRedis
from flapjack_py.views import triage
from flapjack_py.views.rows import CheckRow
from flapjack_py.views.triage import Filter

from ..auth import current_principal
from . import bp, paging

PAGE_SIZE = 100
"""Rows per page of each list of the overview."""
FAILING_STATES = {"failing", "unhandled", "handled", "critical", "warning", "unknown"}
"""State filters only failing checks can pass: the list of every check is then read from failed_checks."""
HANDLING_STATES = {"acknowledged", "maintenance", "disabled"}
"""State filters that need every candidate's maintenance and enabled flags, not only its check hash."""
MAX_MATCHING = 10_000
"""Most checks one "select all matching" bulk action acts on."""


@dataclass(frozen=True)
class Overview:
    """What the overview shows: the filter, the two problem lists, every matching check, known tags."""

    filter: Filter
    unhandled: paging.Page[CheckRow]
    handled: paging.Page[CheckRow]
    checks: paging.Page[CheckRow]
    tags: list[str]


def load_overview(client: StrRedis, args: Mapping[str, str]) -> Overview:
    """The overview for query arguments `args` (triage.parse_filter; pages in upage, hpage, page)."""
    flt = triage.parse_filter(args)
    since = store.failing_since(client)
    matches = _matcher(client, flt)
    problems = [f for f in store.load_facts(client, [i for i in since if matches(i)], since)
                if f.failing and triage.facts_match(flt, f)]
    unhandled, handled = triage.split_problems(triage.sort_facts(problems, flt.sort, flt.descending))
    return Overview(
        filter=flt,
        unhandled=_rows(client, paging.page_of(unhandled, paging.page_arg("upage"), PAGE_SIZE), queries.ROW_ALERTS),
        handled=_rows(client, paging.page_of(handled, paging.page_arg("hpage"), PAGE_SIZE), queries.ROW_ALERTS),
        checks=_every_check(client, flt, _candidates(client, flt, since, matches), since, problems),
        tags=store.known_tags(client),
    )


def unhandled_count(client: StrRedis) -> int:
    """How many failing checks nobody is on (the menu's badge and the page title)."""
    since = store.failing_since(client)
    return sum(1 for row in store.load_facts(client, list(since), since) if row.unhandled)


def matching_ids(client: StrRedis, args: Mapping[str, str]) -> list[str]:
    """E:C of every check the filter in `args` matches (what "select all matching" acts on), at most MAX_MATCHING."""
    flt = triage.parse_filter(args)
    since = store.failing_since(client)
    ids = _candidates(client, flt, since, _matcher(client, flt))
    if flt.state or flt.text:
        facts = store.load_facts(client, ids, since, handling=flt.state in HANDLING_STATES | FAILING_STATES)
        ids = [f.id for f in facts if triage.facts_match(flt, f)]
    return ids[:MAX_MATCHING]


def _every_check(client: StrRedis, flt: Filter, candidates: list[str], since: dict[str, int],
                 problems: Sequence[CheckRow]) -> paging.Page[CheckRow]:
    """The page of the list of every matching check; ordered by entity unless another column is chosen.

    Only a state or summary filter, or a sort by a column other than the names, reads every candidate.
    """
    sort = "entity" if flt.sort == "severity" else flt.sort
    if flt.state in FAILING_STATES:
        rows: Sequence[CheckRow] = triage.sort_facts(problems, sort, flt.descending)
    elif flt.state or flt.text or sort not in ("entity", "check"):
        facts = store.load_facts(client, candidates, since, handling=flt.state in HANDLING_STATES)
        ordered = triage.sort_facts([f for f in facts if triage.facts_match(flt, f)], sort, flt.descending)
        page = paging.page_of([f.id for f in ordered], paging.page_arg(), PAGE_SIZE)
        return _rows(client, paging.Page(store.load_facts(client, page.items, since), page.number, page.pages,
                                         page.total, page.args))
    else:
        ids = paging.page_of(triage.sort_ids(candidates, sort, flt.descending), paging.page_arg(), PAGE_SIZE)
        facts = store.load_facts(client, ids.items, since)
        return _rows(client, paging.Page(facts, ids.number, ids.pages, ids.total, ids.args))
    return _rows(client, paging.page_of(rows, paging.page_arg(), PAGE_SIZE))


def _candidates(client: StrRedis, flt: Filter, since: dict[str, int], matches: Callable[[str], bool]) -> list[str]:
    """E:C ids passing the name and tag parts of the filter (from failed_checks when the state needs failing)."""
    ids = list(since) if flt.state in FAILING_STATES else check_store.all_check_ids(client)
    return [i for i in ids if matches(i)] if flt.entity or flt.check or flt.tag or flt.mine else ids


def _matcher(client: StrRedis, flt: Filter) -> Callable[[str], bool]:
    owned = _owned_by_my_teams(client) if flt.mine else set()
    return triage.name_matcher(flt, store.tagged_check_ids(client, flt.tag) if flt.tag else (), owned)


def _owned_by_my_teams(client: StrRedis) -> set[str]:
    """E:C of the checks the teams of the current user own (by entity or tag)."""
    mine = teams_of(team_store.list_teams(client), current_principal().name)
    found: set[str] = set()
    for entity in {e for team in mine for e in team.entities}:
        found.update(f"{entity}:{check}" for check in entity_store.entity_check_names(client, entity))
    for tag in {t for team in mine for t in team.tags}:
        found |= store.tagged_check_ids(client, tag)
    return found


def _rows(client: StrRedis, page: paging.Page[CheckRow], alerts: int = 0) -> paging.Page[CheckRow]:
    """The page's rows with each check's latest `alerts` alerts, and who acknowledged the acknowledged ones."""
    if alerts and page.items:
        queries.with_alerts(client, page.items, store.latest_alert_ids(client, [r.id for r in page.items], alerts))
    acknowledgers.name_acknowledgers(client, page.items)
    return page


@bp.app_template_global()
def check_href(entity: str, check: str) -> str:
    """url_for('ui.check', ...) for list rows, remembered: a page of a few hundred rows builds no URL twice."""
    return request.script_root + _path("ui.check", entity=entity, check=check)


@bp.app_template_global()
def entity_href(entity: str) -> str:
    """url_for('ui.entity', ...) for list rows, remembered."""
    return request.script_root + _path("ui.entity", name=entity)


@functools.lru_cache(maxsize=50_000)
def _path(endpoint: str, **values: Any) -> str:
    return url_for(endpoint, **values)[len(request.script_root):]
