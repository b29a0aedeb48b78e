"""Check views: the front page (failing checks first, then every check) and one check in full."""

from __future__ import annotations

from flask import abort, render_template, request

from flapjack_py import recurrence
from flapjack_py.store import entities as entity_store
from flapjack_py.store import maintenance_series as series_store
from flapjack_py.store import read_models as queries

from . import bp, paging
from .check_forms import MAX_DETAIL, MESSAGES
from .context import db, now

PAGE_SIZE = 200
"""Checks per page in the list of all checks."""


@bp.get("/")
@bp.get("/checks")
def index() -> str:
    """Failing checks, worst and oldest first; then every check, filtered by `show` and entity search `q`."""
    client = db()
    search, show = request.args.get("q", "").strip()[:200], request.args.get("show", "all")
    page = max(_int_arg("page", 1), 1)
    failing = paging.page_of([r for r in queries.failing_rows(client) if search.lower() in r.entity.lower()],
                             paging.page_arg("failing_page"))
    ids = queries.all_check_ids(client, search) if show != "failing" else []
    rows = queries.check_rows(client, ids[(page - 1) * PAGE_SIZE:page * PAGE_SIZE], alerts_per_check=0)
    return render_template("ui/index.html", failing=failing, rows=rows, search=search, show=show, page=page,
                           total=len(ids), pages=max((len(ids) + PAGE_SIZE - 1) // PAGE_SIZE, 1))


@bp.get("/checks/<entity>/<path:check>")
def check(entity: str, check: str) -> str:
    """State, maintenance, history, alerts and the forms of one check."""
    client = db()
    contacts = entity_store.contact_ids_for_check(client, entity, check)
    detail = queries.check_detail(client, entity, check, contacts)
    if detail is None:
        abort(404, description=f"No check '{check}' on entity '{entity}'")
    error = MESSAGES.get(request.args.get("error", ""))
    if error and request.args.get("detail"):
        error = f"{error} {request.args['detail'][:MAX_DETAIL]}"
    series = [(s, next(iter(recurrence.next_occurrences(s, now(), 1)), None))
              for s in series_store.series_for_check(client, entity, check)]
    return render_template("ui/check.html", d=detail, c=detail.row, notice=MESSAGES.get(request.args.get("notice", "")),
                           error=error, series=series)


def _int_arg(name: str, default: int) -> int:
    try:
        return int(request.args.get(name, default))
    except ValueError:
        return default
