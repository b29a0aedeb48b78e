"""Bulk actions: one POST acts on the selected checks (or every check a filter matches) and shows what it did.

Each action is the one a check's own form does (flapjack_py.actions): acknowledge, schedule or end maintenance,
test notifications, enable, disable. The form comes from the overview, an entity page or a tag view; it
passes the one gate (web/policy.py, CSRF) like every other form.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from flask import render_template, request

from flapjack_py import actions, keys
from flapjack_py.store.checks import check_exists
from flapjack_py.timeparse import TimeParseError, parse_duration
from flapjack_py.views import triage

from .. import auth
from ..actors import request_acting, request_actor
from . import bp
from . import triage as overview
from .check_forms import parse_start
from .context import config, db, now
from .format import age_text

ACTIONS = {
    "acknowledge": "Acknowledge", "schedule": "Schedule maintenance", "end": "End maintenance and acknowledgement",
    "test": "Send test notifications", "disable": "Disable", "enable": "Enable",
}
"""Bulk actions and how the form names them."""
BAR_MAINTENANCE = "1 hour"
"""How long the action bar's "Maintenance" button (no duration typed) puts the checks in maintenance."""
MAX_IDS = 2000
"""Most check ids one form may name (a page shows at most a few hundred; "all matching" sends none)."""
MAX_ID = 1024
"""Longest check id read from a form, in characters."""


@dataclass(frozen=True)
class Outcome:
    """What a bulk action did: a headline, one line per check, and whether it failed as a whole."""

    headline: str
    results: list[tuple[str, str]]
    error: bool = False


@bp.app_context_processor
def bulk_globals() -> dict[str, Any]:
    """Template globals for the bulk form and the overview's filters."""
    return {"bulk_actions": ACTIONS, "state_filters": triage.STATE_FILTERS}


@bp.post("/bulk")
def bulk() -> tuple[str, int]:
    """Apply form field `action` to the selected checks; answer with what happened to each."""
    form = request.form
    action = form.get("do") or form.get("action", "")  # `do`: a button of the action bar
    checks, unknown = _selection()
    checks, refused = _owned(checks, action)
    if action not in ACTIONS:
        outcome = Outcome("Unknown action: nothing was done.", [], error=True)
    elif refused and not checks:
        outcome = Outcome("Refused: no team of yours owns these checks: nothing was done.", [], error=True)
    elif not checks:
        outcome = Outcome("No check was selected: nothing was done.", [], error=True)
    else:
        try:
            outcome = _RUN[action](checks, form)
        except TimeParseError as exc:
            outcome = Outcome(f"{exc}: nothing was done.", [], error=True)
    if request.form.get("all_matching") == "1" and len(checks) >= overview.MAX_MATCHING:
        outcome = Outcome(f"{outcome.headline} Only the first {overview.MAX_MATCHING} matching checks were "
                          "acted on: narrow the filter for the rest.", outcome.results, outcome.error)
    results = outcome.results + [(i, "refused: no team of yours owns it") for i in refused] + \
        [(i, "no such check: nothing was done") for i in unknown]
    return render_template("ui/bulk.html", outcome=Outcome(outcome.headline, results, outcome.error),
                           action=ACTIONS.get(action, action), back=auth.safe_next(form.get("back")),
                           live=False), 403 if refused and not checks else 400 if outcome.error else 200


def _owned(checks: list[tuple[str, str]], action: str) -> tuple[list[tuple[str, str]], list[str]]:
    """The checks the user may act on, and the ids of those refused (team ownership, flapjack_py.actions),
    each refusal written to the audit trail."""
    refused = actions.refused(db(), checks, request_acting())
    if refused:
        actions.record_refused(db(), f"bulk_{action}"[:60], refused, request_actor(), now())
    return [c for c in checks if c not in set(refused)], [keys.check_id(e, c) for e, c in refused]


def _selection() -> tuple[list[tuple[str, str]], list[str]]:
    """(entity, check) of the checks to act on, and the posted ids that name no check."""
    if request.form.get("all_matching") == "1":
        args = {k[len("filter_"):]: v for k, v in request.form.items() if k.startswith("filter_")}
        return [keys.split_check_id(i) for i in overview.matching_ids(db(), args)], []
    ids = list(dict.fromkeys(i[:MAX_ID] for i in request.form.getlist("ids")[:MAX_IDS] if ":" in i))
    known = [i for i in ids if check_exists(db(), *keys.split_check_id(i))]
    return [keys.split_check_id(i) for i in known], [i for i in ids if i not in set(known)]


def _acknowledge(checks: list[tuple[str, str]], form: Any) -> Outcome:
    comment = form.get("comment", "").strip()[:500]
    seconds = actions.acknowledge(db(), config().executive.queue, checks, duration=actions.ack_seconds(
        form.get("duration", "")[:100]), message=comment, actor=request_actor(), now=now())
    return Outcome(f"Acknowledgement queued for {len(checks)} check(s) for {age_text(seconds)}: each goes "
                   "into unscheduled maintenance when the executive takes it.", _each(checks, "acknowledgement queued"))


def _schedule(checks: list[tuple[str, str]], form: Any) -> Outcome:
    start = parse_start(form.get("start", ""), form.get("timezone", "")[:64])
    seconds = parse_duration(form.get("duration", "")[:100].strip() or BAR_MAINTENANCE)
    for entity, check in checks:
        actions.create_scheduled(db(), entity, check, start, seconds, form.get("comment", "")[:500],
                                 actor=request_actor(), now=now())
    return Outcome(f"Scheduled maintenance created on {len(checks)} check(s) for {age_text(seconds)}.",
                   _each(checks, "scheduled maintenance created"))


def _end(checks: list[tuple[str, str]], form: Any) -> Outcome:
    results, count = [], 0
    for entity, check in checks:
        ended = actions.end_maintenance(db(), entity, check, actor=request_actor(), now=now())
        count += bool(ended)
        results.append((keys.check_id(entity, check), " and ".join(ended) + " ended" if ended else "nothing was in force"))
    return Outcome(f"Maintenance or acknowledgement ended on {count} of {len(checks)} check(s).", results)


def _test(checks: list[tuple[str, str]], form: Any) -> Outcome:
    actions.test_notifications(db(), config().executive.queue, checks, actor=request_actor(), now=now())
    return Outcome(f"Test notifications queued for {len(checks)} check(s).", _each(checks, "test notifications queued"))


def _enabled(enabled: bool) -> Callable[[list[tuple[str, str]], Any], Outcome]:
    word = "enabled" if enabled else "disabled"

    def run(checks: list[tuple[str, str]], form: Any) -> Outcome:
        for entity, check in checks:
            actions.set_enabled(db(), entity, check, enabled, actor=request_actor(), now=now())
        return Outcome(f"{len(checks)} check(s) {word}.", _each(checks, word))
    return run


def _each(checks: list[tuple[str, str]], text: str) -> list[tuple[str, str]]:
    return [(keys.check_id(e, c), text) for e, c in checks]


_RUN: dict[str, Callable[[list[tuple[str, str]], Any], Outcome]] = {
    "acknowledge": _acknowledge, "schedule": _schedule, "end": _end, "test": _test,
    "disable": _enabled(False), "enable": _enabled(True),
}
