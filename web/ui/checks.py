"""Check views: the front page (failing checks first, then every check) and one check in full."""

from __future__ import annotations

from datetime import UTC, datetime

from flask import abort, render_template, request

from flapjack_py import timeparse
from flapjack_py.notify import decisions
from flapjack_py.oncall import recurrence
from flapjack_py.store import decisions as decision_store
from flapjack_py.store import entities as entity_store
from flapjack_py.store import escalation as escalation_store
from flapjack_py.store import flapping as flap_store
from flapjack_py.store import maintenance_series as series_store
from flapjack_py.store import read_models as queries
from flapjack_py.store import staleness as stale_store

from . import bp, pictures, triage
from .check_forms import MAX_DETAIL, MESSAGES
from .context import config, db, now


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
    escalation = escalation_store.load_state(client, entity, check)
    return render_template("ui/check.html", d=detail, c=detail.row, notice=MESSAGES.get(request.args.get("notice", "")),
                           error=error, series=series, span=span,
                           timeline=pictures.check_timeline(client, entity, check, span, now()),
                           why=_decisions(entity, check),
                           stale_heard=stale_store.stale_checks(client).get(f"{entity}:{check}"),
                           flapping=flap_store.flapping_checks(client).get(f"{entity}:{check}"),
                           escalation=escalation, escalated=[a for a in reversed(detail.row.alerts) if a.escalation_level])


WHY_SHOWN = 10
"""Decision traces shown on a check page."""


def _decisions(entity: str, check: str) -> dict[str, object]:
    """The check's latest decision traces, at or before the `why_at` time asked ("Why no alert at 03:12?")."""
    asked = request.args.get("why_at", "").strip()[:timeparse.MAX_INPUT]
    at, problem = None, ""
    if asked:
        try:
            at = int(timeparse.parse_time(asked, datetime.fromtimestamp(now(), UTC), "UTC").timestamp())
        except timeparse.TimeParseError as exc:
            problem = str(exc)
        if at is not None and 0 < at - now() <= 86400:  # a time of day means the last one
            at -= 86400
    entries = decisions.at_or_before(decision_store.load(db(), entity, check), at)[:WHY_SHOWN]
    return {"asked": asked, "problem": problem, "lines": [decisions.describe(e) for e in entries],
            "kept": config().executive.decision_trace_length}

