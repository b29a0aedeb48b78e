"""Check views: the front page (failing checks first, then every check) and one check in full."""

from __future__ import annotations

from flask import abort, render_template, request

from flapjack_py import recurrence
from flapjack_py.store import entities as entity_store
from flapjack_py.store import maintenance_series as series_store
from flapjack_py.store import read_models as queries

from . import bp, pictures, triage
from .check_forms import MAX_DETAIL, MESSAGES
from .context import db, now


@bp.get("/")
@bp.get("/checks")
def index() -> str:
    """Unhandled problems first, then handled ones, then every check: filtered, sorted and paged (web.ui.triage)."""
    client = db()
    return render_template("ui/index.html", ov=triage.load_overview(client, request.args),
                           rates=pictures.recent_rates(client, now()))


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
    span = pictures.span_arg()
    return render_template("ui/check.html", d=detail, c=detail.row, notice=MESSAGES.get(request.args.get("notice", "")),
                           error=error, series=series, span=span,
                           timeline=pictures.check_timeline(client, entity, check, span, now()))
