"""API resource: on-call analytics (issue 32), GET /api/analytics/summary, /checks, /people, /suggestions.

Every route takes `since` (a time, or a duration back from `until`: `7d`), `until` (a time, default now) and the
filters `check` (ENTITY:CHECK), `entity`, `contact`,
`escalation_policy`, `tag` and `team`; the default period is the last 7 days. The figures are
computed from stored data when asked (flapjack_py/tools/report.py); suggestions replay archived events with the
backtest engine, so they take seconds. Routes are added to web.api.bp; OpenAPI path items go in PATHS.
"""

from __future__ import annotations

import time
from typing import Any

from flask import Response, request

from flapjack_py.analysis import analytics
from flapjack_py.analysis.period import MAX_TEXT, BadPeriod, period
from flapjack_py.tools.report import Period, UnknownTeam, read_period

from ..errors import ApiError
from . import bp
from .common import answer, ctx, split_check_id
from .schemas import NULL_INT, ok, operation, query

FILTERS = ("check", "entity", "contact", "escalation_policy", "tag", "team")


def asked() -> Period:
    """The period and filters of the query (400 naming the problem)."""
    args = request.args
    for name in ("since", "until", *FILTERS):
        if len(args.get(name) or "") > MAX_TEXT:
            raise ApiError(400, f"query parameter '{name}' is longer than {MAX_TEXT} characters")
    try:
        since, until = period(args.get("since") or None, args.get("until") or None, int(time.time()))
    except BadPeriod as exc:
        raise ApiError(400, str(exc)) from None
    filters = {name: args.get(name) or None for name in FILTERS}
    if filters["check"] is not None:
        split_check_id(filters["check"])
    try:
        return read_period(ctx().client, ctx().config, since, until, filters.pop("tag"), filters.pop("team"),
                           policy=filters.pop("escalation_policy"), **filters)
    except UnknownTeam as exc:
        raise ApiError(404, str(exc)) from None


@bp.route("/analytics/summary", methods=["GET"])
def get_analytics_summary() -> Response:
    found = asked()
    return answer(analytics.summary(found.facts, found.settings, found.incidents))


@bp.route("/analytics/checks", methods=["GET"])
def get_analytics_checks() -> Response:
    found = asked()
    return answer({"since": found.facts.since, "until": found.facts.until,
                   "checks": analytics.checks(found.facts, found.settings, found.incidents)})


@bp.route("/analytics/people", methods=["GET"])
def get_analytics_people() -> Response:
    found = asked()
    return answer({"since": found.facts.since, "until": found.facts.until,
                   "people": analytics.people(found.facts, found.settings)})


@bp.route("/analytics/suggestions", methods=["GET"])
def get_analytics_suggestions() -> Response:
    from flapjack_py.tools.suggestions import suggestions  # starts scratch Redis servers: loaded when asked

    found = asked()
    return answer({"since": found.facts.since, "until": found.facts.until,
                   "suggestions": suggestions(ctx().clients, ctx().config, found.facts, found.settings, found.incidents)})


INT = {"type": "integer"}
SPREAD = {"type": "object", "required": ["median", "p90", "count"],
          "properties": {"median": {"type": ["number", "null"]}, "p90": NULL_INT, "count": INT}}
SUMMARY = {"type": "object", "required": [
    "since", "until", "pages", "problems", "recoveries", "mtta_seconds", "mttr_seconds", "never_acknowledged",
    "self_resolved", "off_hours_pages", "sleep_hours_pages"], "properties": {
    "since": INT, "until": INT, "problems": INT, "recoveries": INT, "acknowledgements": INT, "incidents": INT,
    "pages": {"type": "object", "required": ["total", "by_medium"], "properties": {
        "total": INT, "by_medium": {"type": "object", "additionalProperties": INT}}},
    "mtta_seconds": SPREAD, "mttr_seconds": SPREAD, "never_acknowledged": INT, "self_resolved": INT,
    "flapping_checks": INT, "off_hours_pages": INT, "sleep_hours_pages": INT}}
CHECK_ROW = {"type": "object", "required": ["check", "pages", "problems", "self_resolved", "acted_on",
                                            "mtta_seconds", "mttr_seconds"], "properties": {
    "check": {"type": "string"}, "pages": INT, "problems": INT, "incidents": INT, "flapping": {"type": "boolean"},
    "self_resolved": INT,
    "acted_on": INT, "not_acted_share": {"type": "number"}, "mtta_seconds": SPREAD, "mttr_seconds": SPREAD}}
PERSON = {"type": "object", "required": ["contact", "pages", "off_hours_pages", "sleep_hours_pages"], "properties": {
    "contact": {"type": "string"}, "pages": INT, "off_hours_pages": INT, "sleep_hours_pages": INT}}
SUGGESTION = {"type": "object", "required": ["check", "change", "reason", "pages_before", "pages_after",
                                             "missed_problems"], "properties": {
    "check": {"type": "string"}, "change": {"type": "object", "additionalProperties": INT},
    "reason": {"type": "string"}, "pages_before": INT, "pages_after": INT, "missed_problems": INT,
    "backtest": {"type": "object", "description": "the proposal as `flapjack backtest --rules` takes it"}}}
PARAMS = [query("since", "a time (ISO 8601, unix time, 'monday 09:00') or a duration back from until ('7d'); "
                         "default 7 days before until"),
          query("until", "a time; default now"), query("check", "ENTITY:CHECK: only pages about this check"),
          query("entity", "only pages about this entity's checks"), query("contact", "only pages to this contact"),
          query("escalation_policy", "only pages sent by this escalation policy (its id)"),
          query("tag", "only pages about checks with this tag"),
          query("team", "only pages about checks this team owns (by entity or tag; 404 when there is no such team)")]


def _listing(name: str, item: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "required": ["since", "until", name], "properties": {
        "since": INT, "until": INT, name: {"type": "array", "items": item}}}


def _get(summary: str, schema: dict[str, Any]) -> dict[str, Any]:
    return {"get": operation(summary, ok(schema), ("400", "404"), params=PARAMS, tag="analytics")}


PATHS: dict[str, Any] = {
    "/analytics/summary": _get("On-call figures of a period: pages, MTTA/MTTR, noise, off-hours load", SUMMARY),
    "/analytics/checks": _get("Per check, by pages, most first", _listing("checks", CHECK_ROW)),
    "/analytics/people": _get("Per contact paged, by pages, most first", _listing("people", PERSON)),
    "/analytics/suggestions": _get("Changes for the noisiest checks, each replayed by the backtest engine",
                                   _listing("suggestions", SUGGESTION)),
}
