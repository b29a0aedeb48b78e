"""Check views: the front page (failing checks first, then every check) and one check in full."""

from __future__ import annotations

from datetime import UTC, datetime

from flask import abort, render_template, request

from flapjack_py import timeparse
from flapjack_py.model import escalation as escalation_model
from flapjack_py.notify import decisions
from flapjack_py.oncall import recurrence
from flapjack_py.store import decisions as decision_store
from flapjack_py.store import entities as entity_store
from flapjack_py.store import escalation as escalation_store
from flapjack_py.store import flapping as flap_store
from flapjack_py.store import maintenance_series as series_store
from flapjack_py.store import read_models as queries
from flapjack_py.store import rules as rule_store
from flapjack_py.store import staleness as stale_store
from flapjack_py.views import check_summary

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
                           told=check_summary.told_about(detail.row), next_people=_next_people(escalation),
                           ack_presets=ACK_PRESETS,
                           error=error, series=series, span=span,
                           timeline=pictures.check_timeline(client, entity, check, span, now()),
                           why=_decisions(entity, check),
                           stale_heard=stale_store.stale_checks(client).get(f"{entity}:{check}"),
                           flapping=flap_store.flapping_checks(client).get(f"{entity}:{check}"),
                           escalation=escalation, escalated=[a for a in reversed(detail.row.alerts) if a.escalation_level])


ACK_PRESETS = (("15m", "15 min"), ("1h", "1 h"), ("4h", "4 h"), ("until 08:00", "until 08:00"))
"""The check page's one-tap acknowledgement durations (value, label)."""


def _next_people(state: escalation_model.State | None) -> tuple[str, ...]:
    """Names of who the escalation pages next unless acknowledged (none when it is not running)."""
    if state is None or not state.running or state.next_at is None:
        return ()
    policy = next(iter(escalation_store.load_policies(db(), [state.policy])), None)
    if policy is None:
        return ()
    ids = escalation_store.resolve_level(db(), policy, state.step + 1, state.next_at)
    names = queries.contact_names(db(), ids)
    return tuple(names.get(i, i) for i in ids)


WHY_SHOWN = 10
"""Decision traces shown on a check page."""


def _rule_labels(rule_ids: list[str]) -> dict[str, str]:
    """Rule id -> `of Ann Oncall (2nd)`: whose rule it is and its place among that contact's rules."""
    rules = rule_store.load_rules_by_id(db(), rule_ids) if rule_ids else []
    names = queries.contact_names(db(), {r.contact_id for r in rules})
    labels = {}
    for rule in rules:
        order = rule_store.rule_ids(db(), rule.contact_id)
        place = order.index(rule.id) + 1 if rule.id in order else 0
        labels[rule.id] = f"#{place} of {names.get(rule.contact_id, rule.contact_id)}" if place else \
            f"of {names.get(rule.contact_id, rule.contact_id)}"
    return labels


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
    described = [decisions.describe(e) for e in entries]
    labels = _rule_labels(check_summary.rule_ids_in([line for lines in described for line in lines]))
    return {"asked": asked, "problem": problem, "lines": [check_summary.named_rules(lines, labels) for lines in described],
            "kept": config().executive.decision_trace_length}

