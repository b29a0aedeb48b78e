"""Entity views: every entity with its failing count, and one entity's checks and contacts."""

from __future__ import annotations

from collections import Counter

from flask import abort, render_template, request

from flapjack_py import keys
from flapjack_py.oncall import recurrence
from flapjack_py.store import checks as check_store
from flapjack_py.store import contacts as contact_store
from flapjack_py.store import entities as entity_store
from flapjack_py.store import escalation as escalation_store
from flapjack_py.store import maintenance_series as series_store
from flapjack_py.store import read_models as queries
from flapjack_py.views import triage

from . import bp, paging
from .check_forms import MAX_DETAIL, MESSAGES
from .context import db, now

SEARCH_MAX = 200
"""Longest search text used, in characters."""


@bp.get("/entities")
def entities() -> str:
    """Every entity (filtered by name search `q`) with its check and failing counts, a page at a time."""
    client = db()
    search = request.args.get("q", "").strip()[:SEARCH_MAX]
    names = entity_store.all_entity_names(client)
    ids = sorted((eid for eid, name in names.items() if eid and search.lower() in name.lower()),
                 key=lambda eid: (names[eid], eid))
    page = paging.page_of(ids)
    failing = Counter(keys.split_check_id(i)[0] for i in check_store.failed_check_ids(client))
    return render_template("ui/entities.html", entities=entity_store.load_entities(client, page.items),
                           page=page, failing=failing, search=search)


@bp.get("/entities/<name>")
def entity(name: str) -> str:
    """An entity's checks (failing first), its contacts, tags, escalation policies and recurring maintenance."""
    client = db()
    entity_id = entity_store.entity_id(client, name)
    ids = queries.entity_check_ids(client, name)
    if entity_id is None and not ids:
        abort(404, description=f"No entity '{name}'")
    rows = queries.check_rows(client, ids)
    rows.sort(key=lambda r: (not r.failing, triage.SEVERITY_RANK.get(r.state or "ok", 3), r.check))
    contacts = contact_store.load_contacts(client, entity_store.contact_ids_for_entity(client, entity_id or ""))
    tags = entity_store.entity_tags(client, entity_id) if entity_id else []
    series = [(s, next(iter(recurrence.next_occurrences(s, now(), 1)), None))
              for s in series_store.series_for_entity(client, entity_id)] if entity_id else []
    policies = escalation_store.load_policies(client, escalation_store.linked_policy_ids(client, entity_id)) \
        if entity_id else []
    error = MESSAGES.get(request.args.get("error", ""))
    if error and request.args.get("detail"):
        error = f"{error} {request.args['detail'][:MAX_DETAIL]}"
    return render_template("ui/entity.html", name=name, entity_id=entity_id, rows=rows, contacts=contacts,
                           tags=tags, all_id=keys.ALL_ENTITIES_ID, series=series, policies=policies,
                           notice=MESSAGES.get(request.args.get("notice", "")), error=error)
