"""API resource: alert history, GET /api/alerts (api-v1.md 14). OpenAPI path items go in PATHS."""

from __future__ import annotations

from typing import Any

from flask import Response, request

from flapjack_py.access import shown_address
from flapjack_py.store import alerts as alert_store
from flapjack_py.store.plumbing.client import to_int

from ..auth import current_principal
from . import bp, paging
from .common import ctx, query_time, split_check_id
from .schemas import ok, operation, query

DEFAULT_LIMIT = 100
MAX_LIMIT = 10000
FIELDS = ("id", "timestamp", "contact", "media", "address", "check", "type", "rollup", "state", "subject", "body")


def present(alert: dict[str, str]) -> dict[str, Any]:
    """An alert record as the API shows it (timestamp as an integer)."""
    shown: dict[str, Any] = {f: alert.get(f, "") for f in FIELDS}
    shown["timestamp"] = to_int(alert.get("timestamp"))
    shown["address"] = shown_address(current_principal().role, shown["media"], shown["address"])
    return shown


def limit_arg() -> int:
    value = to_int(request.args.get("limit"))
    return DEFAULT_LIMIT if value is None or value < 1 else min(value, MAX_LIMIT)


@bp.route("/alerts", methods=["GET"])
def get_alerts() -> Response:
    args = request.args
    check = args.get("check") or None
    if check is not None:
        split_check_id(check)
    found = alert_store.find_alerts(
        ctx().client, contact=args.get("contact_id") or None, media=args.get("media") or None, check=check,
        alert_type=args.get("type") or None, start=query_time("start_time"),
        end=query_time("end_time"), limit=limit_arg())
    return paging.listing("alerts", found, lambda page: [present(a) for a in page])


ALERT: dict[str, Any] = {"type": "object", "required": list(FIELDS), "properties": {
    **{f: {"type": "string"} for f in FIELDS}, "timestamp": {"type": ["integer", "null"]}}}
ALERT_LIST: dict[str, Any] = {"type": "object", "required": ["alerts"], "properties": {
    "alerts": {"type": "array", "items": ALERT}, "meta": paging.META}}

PATHS: dict[str, Any] = {
    "/alerts": {"get": operation("Alert history, newest first", ok(ALERT_LIST), ("400",), params=[
        query("contact_id"), query("media"), query("check", "ENTITY:CHECK"),
        query("type", "problem, recovery, acknowledgement or test"),
        query("start_time", "ISO 8601"), query("end_time", "ISO 8601"),
        query("limit", "at most this many (default 100)", {"type": "integer", "minimum": 1}),
        *paging.PARAMETERS], tag="alerts")},
}
