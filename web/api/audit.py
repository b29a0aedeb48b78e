"""API resource: the audit trail, GET /api/audit (admins only; web/policy.py). OpenAPI path items go in PATHS."""

from __future__ import annotations

import time
from typing import Any

from flask import Response, request

from flapjack_py.store import audit

from ..errors import ApiError
from . import bp, paging
from .common import ctx, iso, query_time
from .schemas import ok, operation, query

DEFAULT_LIMIT = 1000
MAX_LIMIT = 10000
MAX_FILTER = 200
DAY = 86400
FIELDS = ("id", "time", "actor", "channel", "address", "action", "kind", "target", "outcome", "detail")


def present(item: audit.Entry) -> dict[str, Any]:
    """An entry as the API shows it: `time` in ISO 8601 (UTC), like the API's other times."""
    return {"id": item.id, "time": iso(item.time), "actor": item.actor, "channel": item.channel,
            "address": item.address, "action": item.action, "kind": item.kind, "target": item.target,
            "outcome": item.outcome, "detail": item.detail}


@bp.route("/audit", methods=["GET"])
def get_audit() -> Response:
    """Entries from `since` (default a day before `until`) to `until` (default now), oldest first."""
    until = _time("until", int(time.time()))
    since = _time("since", until - DAY)
    if since > until:
        raise ApiError(400, "since must not be after until")
    filters = {name: _text(name) for name in ("actor", "target", "action", "kind")}
    found = audit.search(ctx().client, since, until, limit=_limit(), **filters)
    return paging.listing("audit", found, lambda page: [present(e) for e in page])


def _time(name: str, default: int) -> int:
    if not request.args.get(name):
        return default
    found = query_time(name)
    if found is None:
        raise ApiError(400, f"{name} must be a time (ISO 8601, or as people type it: '24 hours ago', 'yesterday')")
    return found


def _text(name: str) -> str:
    value = request.args.get(name, "")
    if len(value) > MAX_FILTER:
        raise ApiError(400, f"{name} must be at most {MAX_FILTER} characters")
    return value


def _limit() -> int:
    value = request.args.get("limit", "")
    if not value:
        return DEFAULT_LIMIT
    if not (value.isdecimal() and value.isascii() and 1 <= int(value[:6]) <= MAX_LIMIT and len(value) <= 6):
        raise ApiError(400, f"limit must be an integer from 1 to {MAX_LIMIT}")
    return int(value)


ENTRY: dict[str, Any] = {"type": "object", "required": list(FIELDS), "properties": {
    **{f: {"type": "string"} for f in FIELDS}, "time": {"type": "string", "format": "date-time"}}}
AUDIT_LIST: dict[str, Any] = {"type": "object", "required": ["audit"], "properties": {
    "audit": {"type": "array", "items": ENTRY}, "meta": paging.META}}

PATHS: dict[str, Any] = {
    "/audit": {"get": operation("The audit trail: who wrote what, through which channel, oldest first (admins)",
                                ok(AUDIT_LIST), ("400", "403"), params=[
        query("since", "ISO 8601 or a typed time (default: a day before until)"),
        query("until", "ISO 8601 or a typed time (default: now)"),
        query("actor", "user name, token:NAME, jabber:JID, ..."), query("target", "E:C, an entity, an id, a name"),
        query("action", "acknowledge, login, post_contacts, ..."), query("kind", "check, contact, user, ..."),
        query("limit", f"at most this many (default {DEFAULT_LIMIT})",
              {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT}),
        *paging.PARAMETERS], tag="audit")},
}
