"""API resource: a check's decision trace, GET /api/checks/ENTITY:CHECK/decisions (issue 14 point 4).

Why each contact and medium was or was not alerted for the check's latest
notified or filtered events (flapjack_py/notify/decisions.py), newest first.
"""

from __future__ import annotations

from typing import Any

from flask import Response

from flapjack_py.notify import decisions
from flapjack_py.store import decisions as decision_store
from flapjack_py.store import entities as entity_store

from ..errors import ApiError
from . import bp
from .alerts import limit_arg
from .common import answer, ctx, query_time, split_check_id
from .schemas import NULL_INT, STR_LIST, ok, operation, query


@bp.route("/checks/<path:check_id>/decisions", methods=["GET"])
def get_check_decisions(check_id: str) -> Response:
    entity, check = split_check_id(check_id)
    client = ctx().client
    if entity_store.entity_id(client, entity) is None:
        raise ApiError(404, f"could not find entity '{entity}'")
    entries = decisions.at_or_before(decision_store.load(client, entity, check), query_time("at"))[:limit_arg()]
    return answer({"decisions": [{**entry, "explanation": decisions.describe(entry)} for entry in entries]})


STOP = {"type": "object", "required": ["filter", "code", "reason"], "properties": {
    "filter": {"type": "string"}, "code": {"type": "string", "enum": list(decisions.FILTER_CODES)},
    "reason": {"type": "string"}, "until": {"type": "integer"}, "maintenance_start": {"type": "integer"},
    "maintenance_until": {"type": "integer"}}}
RULE = {"type": "object", "required": ["id", "matched"], "properties": {
    "id": {"type": "string"}, "matched": {"type": "boolean"}, "why": {"type": "string"}, "by": STR_LIST}}
MEDIUM = {"type": "object", "required": ["medium", "outcome"], "properties": {
    "medium": {"type": "string"}, "outcome": {"type": "string", "enum": list(decisions.MEDIUM_OUTCOMES)},
    "alert": {"type": "string"}, "rollup": {"type": "string"},
    "owed": {"type": "boolean", "description": "an ended escalation owes this medium (not the contact's rules)"}}}
ESCALATION = {"type": "object", "required": ["policy", "level"], "properties": {
    "policy": {"type": "string"}, "level": {"type": "integer"}}}
CONTACT = {"type": "object", "required": ["id", "outcome", "media"], "properties": {
    "id": {"type": "string"}, "outcome": {"type": "string", "enum": list(decisions.CONTACT_OUTCOMES)},
    "rules": {"type": "array", "items": RULE}, "media": {"type": "array", "items": MEDIUM},
    "escalation": ESCALATION}}
DECISION: dict[str, Any] = {"type": "object", "required": ["at", "check", "state", "type", "result", "explanation"],
                            "properties": {
    "at": NULL_INT, "check": {"type": "string"}, "state": {"type": "string"},
    "type": {"type": "string", "description": "notification type; empty when a filter stopped the event"},
    "severity": {"type": "string"},
    "result": {"type": "string", "enum": ["blocked", "no_contacts", "alerted", "not_alerted"]},
    "stopped_by": STOP, "contacts": {"type": "array", "items": CONTACT}, "explanation": STR_LIST,
    "incident": {"type": "object", "description": "the incident the notification belongs to, and what it did",
                 "properties": {"id": {"type": "string"}, "what": {"type": "string",
                                                                  "enum": list(decisions.INCIDENT_TEXTS)}}}}}

PATHS: dict[str, Any] = {
    "/checks/{check_id}/decisions": {"get": operation(
        "Why each contact and medium was or was not alerted, newest first", ok({
            "type": "object", "required": ["decisions"],
            "properties": {"decisions": {"type": "array", "items": DECISION}}}),
        ("400", "404"), params=[
            {"name": "check_id", "in": "path", "required": True, "description": "ENTITY:CHECK",
             "schema": {"type": "string"}},
            query("at", "only decisions at or before this time (ISO 8601, unix time, '2 hours ago')"),
            query("limit", "at most this many (default 100)", {"type": "integer", "minimum": 1})],
        tag="checks")},
}
