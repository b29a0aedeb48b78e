"""API resource [addition]: recurring scheduled maintenance series and their iCalendar export.

`POST /scheduled_maintenances/{checks|entities}/ID` with an `rrule` item (web/api/maintenance.py)
creates a series too; these routes list, edit and delete series and serve GET /maintenances.ics.
Routes are added to web.api.bp; OpenAPI path items go in PATHS.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Sequence
from typing import Any

from flask import Response

from flapjack_py import actions
from flapjack_py.oncall import recurrence
from flapjack_py.oncall.recurrence import InvalidSeries, Series
from flapjack_py.store import maintenance_series as store

from ..actors import request_acting, request_actor
from ..errors import ApiError
from . import bp
from .common import answer, created, ctx, find_listed, iso, no_content, patch_ops, wrapped_list
from .schemas import LOCATION, NO_CONTENT, STR_LIST, ids_param, ok, operation, patch_body, wrapper

NAME = "maintenance_series"
MAX_ITEMS = 100
"""Most series one request creates."""
_LINKS = ("checks", "entities", "tags")


def create_series(items: Sequence[dict[str, Any]], status: int = 422, **links: list[str]) -> list[str]:
    """Validate every item (all or nothing), then store and materialise them; return their ids.

    `links` (checks=..., entities=...) are added to each item's own. ApiError `status` on a bad item.
    """
    now = int(time.time())
    made = []
    for item in items[:MAX_ITEMS]:
        try:
            series = recurrence.new_series(_new_id(item), _fields(item, links), now)
            store.check_plan(ctx().client, series, now)
            made.append(series)
        except InvalidSeries as exc:
            raise ApiError(status, str(exc)) from None
    _authorise("create_maintenance_series", made, now)
    for series in made:
        store.save_series(ctx().client, series)
        store.materialise(ctx().client, series, now)
    return [s.id for s in made]


def _authorise(action: str, series: Sequence[Series], now: int) -> None:
    """NotOwned (403) unless the caller's teams own every check the series cover (before anything is written)."""
    actor, acting = request_actor(), request_acting()
    for one in series:
        actions.authorise_series(ctx().client, action, one, actor, acting, now)


def as_json(series: Series, now: int) -> dict[str, Any]:
    """The API representation of a series."""
    return {"id": series.id, "rrule": series.rrule, "timezone": series.timezone, "start_time": iso(series.start),
            "duration": series.duration, "summary": series.summary,
            "next_occurrences": [iso(t) for t in recurrence.next_occurrences(series, now)],
            "links": {name: list(getattr(series, name)) for name in _LINKS}}


@bp.route("/maintenance_series", methods=["GET"])
@bp.route("/maintenance_series/<ids>", methods=["GET"])
def get_series(ids: str | None = None) -> Response:
    now = int(time.time())
    return answer({NAME: [as_json(s, now) for s in _find(ids)]})


@bp.route("/maintenance_series", methods=["POST"])
def post_series() -> Response:
    items = wrapped_list(NAME, 422)
    if not items or not all(isinstance(i, dict) for i in items) or len(items) > MAX_ITEMS:
        raise ApiError(422, f"No valid {NAME} were submitted")
    ids = create_series(items)
    return created(NAME, ids, ids)


@bp.route("/maintenance_series/<ids>", methods=["PATCH"])
def patch_series(ids: str) -> Response:
    found, now = _find(ids), int(time.time())
    ops = patch_ops(NAME)
    changed = []
    for series in found:
        for op in ops:
            series = _apply(series, op.op, op.field, op.value if op.op != "remove" else op.member, now)
        try:
            store.check_plan(ctx().client, series, now)
        except InvalidSeries as exc:
            raise ApiError(422, str(exc)) from None
        changed.append(series)
    _authorise("change_maintenance_series", [*found, *changed], now)
    for series in changed:
        store.replace_series(ctx().client, series, now)
    return no_content()


@bp.route("/maintenance_series/<ids>", methods=["DELETE"])
def delete_series(ids: str) -> Response:
    found, now = _find(ids), int(time.time())
    _authorise("delete_maintenance_series", found, now)
    for series in found:
        store.delete_series(ctx().client, series.id, now)
    return no_content()


@bp.route("/maintenances.ics", methods=["GET"])
def maintenances_ics() -> Response:
    """Every series as an RFC 5545 calendar a person can subscribe to."""
    body = recurrence.to_ical(store.list_series(ctx().client), int(time.time()))
    return Response(body, content_type="text/calendar; charset=utf-8",
                    headers={"Content-Disposition": 'inline; filename="maintenances.ics"'})


def _find(ids: str | None) -> list[Series]:
    return find_listed(ids, store.list_series, NAME)


def _apply(series: Series, op: str, field: str, value: Any, now: int) -> Series:
    try:
        if op == "replace" and field in ("rrule", "timezone", "start_time", "duration", "summary"):
            return recurrence.changed(series, field, value, now)
        if field in _LINKS and isinstance(value, str) and value:
            old = getattr(series, field)
            new = (*old, value) if op == "add" else tuple(v for v in old if v != value)
            return series.with_changes(**{field: recurrence.as_tuple(new)})
    except InvalidSeries as exc:
        raise ApiError(422, str(exc)) from None
    return series


def _fields(item: dict[str, Any], links: dict[str, list[str]]) -> dict[str, Any]:
    """The item's fields with its targets read from the top level or from `links`, plus `links` given."""
    fields = dict(item)
    nested: dict[str, Any] = item["links"] if isinstance(item.get("links"), dict) else {}
    for name in _LINKS:
        value = nested.get(name, item.get(name))
        if links.get(name):
            value = [*(value if isinstance(value, list) else []), *links[name]]
        if value is not None:
            fields[name] = value
    return fields


def _new_id(item: dict[str, Any]) -> str:
    given = item.get("id")
    if isinstance(given, str) and given and len(given) <= 100 and "," not in given and "/" not in given:
        return given
    return str(uuid.uuid4())


SERIES_IN = {"type": "object", "required": ["rrule", "duration"], "properties": {
    "id": {"type": "string", "maxLength": 100}, "rrule": {"type": "string", "maxLength": recurrence.MAX_RRULE,
                                                          "examples": ["FREQ=WEEKLY;BYDAY=SU;BYHOUR=2;BYMINUTE=0"]},
    "timezone": {"type": "string", "examples": ["Europe/Berlin"]},
    "start_time": {"type": "string", "description": "ISO 8601 or e.g. 'next sunday 02:00'"},
    "duration": {"type": ["integer", "string"], "description": "seconds, or e.g. '90m'"},
    "summary": {"type": "string"}, "checks": STR_LIST, "entities": STR_LIST, "tags": STR_LIST}}
SERIES_OUT = {"type": "object", "properties": {
    "id": {"type": "string"}, "rrule": {"type": "string"}, "timezone": {"type": "string"},
    "start_time": {"type": "string"}, "duration": {"type": "integer"}, "summary": {"type": "string"},
    "next_occurrences": STR_LIST,
    "links": {"type": "object", "properties": {name: STR_LIST for name in _LINKS}}}}
_ERRS = ("400", "404", "415", "422")
PATHS: dict[str, Any] = {
    "/maintenance_series": {
        "get": operation("List recurring maintenance series", ok(wrapper(NAME, SERIES_OUT)), (), tag="maintenance"),
        "post": operation("Create recurring maintenance series", ok({"type": "array", "items": {"type": "string"}},
                                                                   "201", "Created", LOCATION),
                          _ERRS, body=wrapper(NAME, SERIES_IN), tag="maintenance"),
    },
    "/maintenance_series/{ids}": {
        "get": operation("Get recurring maintenance series", ok(wrapper(NAME, SERIES_OUT)), ("404",),
                         params=[ids_param()], tag="maintenance"),
        "patch": operation("Change series (their future occurrences are rewritten)", NO_CONTENT, _ERRS,
                           params=[ids_param()], body=patch_body(NAME), body_types=("application/json-patch+json",),
                           tag="maintenance"),
        "delete": operation("Delete series and their future occurrences", NO_CONTENT, ("404",),
                            params=[ids_param()], tag="maintenance"),
    },
    "/maintenances.ics": {
        "get": operation("Recurring maintenance as an iCalendar (RFC 5545) feed",
                         {"200": {"description": "RFC 5545 calendar",
                                  "content": {"text/calendar": {"schema": {"type": "string"}}}}}, (),
                         tag="maintenance"),
    },
}
