"""API resource: scheduled/unscheduled maintenance and test notifications (api-v1.md 10).

Routes are added to web.api.bp; OpenAPI path items go in PATHS.
"""

from __future__ import annotations

import time
from typing import Any

from flask import Response

from flapjack_py import actions
from flapjack_py.durations import MAX_DURATION  # longest maintenance: scheduled longer is 403, unscheduled clamped
from flapjack_py.model.events import DEFAULT_ACK_DURATION
from flapjack_py.store import checks as check_store
from flapjack_py.store import entities as entity_store

from ..actors import request_acting, request_actor
from ..errors import ApiError
from . import bp
from . import maintenance_series as series_api
from .checks import resolve_checks
from .common import ctx, id_list, json_body, location, no_content, parse_time, patch_ops, query_time, wrapped_list
from .schemas import NO_CONTENT, ids_param, operation, patch_body, query, wrapper


def targets(kind: str, raw_ids: str) -> list[tuple[str, str]]:
    """(entity, check) pairs named by the path: checks by id, or every current check of each entity."""
    if kind == "checks":
        return resolve_checks(raw_ids)
    client = ctx().client
    found = []
    for eid in id_list(raw_ids):
        name = entity_store.entity_name(client, eid)
        if name is None:
            raise ApiError(404, f"could not find entity '{eid}'")
        found += [(name, check) for check in check_store.current_check_names(client, name)]
    return found


def optional_items(name: str) -> list[Any]:
    """The list under `name`, `[{}]` when absent; 403 when present but not a list. Non-objects read as {}."""
    body = json_body()
    if not isinstance(body, dict) or name not in body:
        return [{}]
    items = body[name]
    if not isinstance(items, list):
        raise ApiError(403, f"The received '{name}'' object is not an Array")
    return [item if isinstance(item, dict) else {} for item in items]


def seconds(value: Any) -> int | None:
    """An integer number of seconds from an int, a whole float or a numeric string; else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        return int(value.strip())
    return None


@bp.route("/scheduled_maintenances/<any(entities,checks):kind>/<path:ids>", methods=["POST"])
def post_scheduled(kind: str, ids: str) -> Response:
    """One window per item on each check; [addition] an item with an `rrule` makes a recurring series."""
    items = [item if isinstance(item, dict) else {} for item in wrapped_list("scheduled_maintenances")]
    checks = targets(kind, ids)
    recurring = [item for item in items if item.get("rrule") is not None]
    windows = _windows([item for item in items if item.get("rrule") is None])
    series_links = {"checks": [f"{e}:{c}" for e, c in checks]} if kind == "checks" else {"entities": id_list(ids)}
    made = series_api.create_series(recurring, 403, **series_links) if recurring else []
    now = int(time.time())
    actions.authorise(ctx().client, "create_scheduled_maintenance", checks, request_actor(), request_acting(), now)
    for entity, check in checks:
        for start, duration, summary in windows:
            actions.create_scheduled(ctx().client, entity, check, start, duration, summary, actor=request_actor(),
                                     acting=request_acting(), now=now)
    response = no_content()
    if made:
        response.headers["Location"] = location("maintenance_series", made)
    return response


def _windows(items: list[dict[str, Any]]) -> list[tuple[int, int, str]]:
    """(start, duration, summary) of one-off window items; 403 with the v1 messages when unusable."""
    windows = []
    for item in items:
        start = parse_time(item.get("start_time"))
        if start is None:
            raise ApiError(403, "start time must be provided")
        duration = seconds(item.get("duration"))
        if duration is None or duration <= 0 or duration > MAX_DURATION:
            raise ApiError(403, "duration in seconds must be provided")
        summary = item.get("summary")
        windows.append((start, duration, summary if isinstance(summary, str) else ""))
    return windows


@bp.route("/scheduled_maintenances/<any(entities,checks):kind>/<path:ids>", methods=["DELETE"])
def delete_scheduled(kind: str, ids: str) -> Response:
    start = query_time("start_time")
    if start is None:
        raise ApiError(403, "start time must be provided")
    now = int(time.time())
    for entity, check in targets(kind, ids):
        actions.end_scheduled(ctx().client, entity, check, start, actor=request_actor(), acting=request_acting(),
                              now=now)
    return no_content()


@bp.route("/unscheduled_maintenances/<any(entities,checks):kind>/<path:ids>", methods=["POST"])
def post_unscheduled(kind: str, ids: str) -> Response:
    items = optional_items("unscheduled_maintenances")
    checks = targets(kind, ids)
    now = int(time.time())
    for item in items:
        duration = seconds(item.get("duration"))
        summary = item["summary"][:1000] if isinstance(item.get("summary"), str) else ""
        duration = min(duration, MAX_DURATION) if duration and duration > 0 else DEFAULT_ACK_DURATION
        actions.acknowledge(ctx().client, ctx().config.executive.queue, checks, duration=duration, message=summary,
                            actor=request_actor(), acting=request_acting(), now=now)
    return no_content()


@bp.route("/unscheduled_maintenances/<any(entities,checks):kind>/<path:ids>", methods=["PATCH"])
def patch_unscheduled(kind: str, ids: str) -> Response:
    json_body()
    checks = targets(kind, ids)
    for op in patch_ops("unscheduled_maintenances"):
        if op.op != "replace" or op.field != "end_time":
            continue
        end_time = parse_time(op.value)
        if end_time is None:
            raise ApiError(403, "end time must be provided")
        actions.authorise(ctx().client, "end_acknowledgement", checks, request_actor(), request_acting(),
                          int(time.time()))
        for entity, check in checks:
            actions.end_unscheduled(ctx().client, entity, check, actor=request_actor(), acting=request_acting(),
                                    now=int(time.time()), end_time=end_time)
    return no_content()


@bp.route("/test_notifications/<any(entities,checks):kind>/<path:ids>", methods=["POST"])
def post_test_notifications(kind: str, ids: str) -> Response:
    items = optional_items("test_notifications")
    checks = targets(kind, ids)
    now = int(time.time())
    actions.authorise(ctx().client, "test_notifications", checks, request_actor(), request_acting(), now)
    for entity, check in checks:
        for item in items:
            summary = item.get("summary")
            if not isinstance(summary, str):
                summary = f"Testing notifications to all contacts interested in entity {entity}"
            actions.test_notifications(ctx().client, ctx().config.executive.queue, [(entity, check)],
                                       actor=request_actor(), acting=request_acting(), now=now,
                                       summary=summary[:1000])
    return no_content()


SCHEDULED_IN = {"type": "object", "required": ["start_time", "duration"], "properties": {
    "start_time": {"type": "string", "format": "date-time"}, "duration": {"type": "integer", "minimum": 1, "maximum": MAX_DURATION},
    "summary": {"type": "string"},
    "rrule": {"type": "string", "description": "[addition] RFC 5545 RRULE: makes a recurring series",
              "examples": ["FREQ=WEEKLY;BYDAY=SU;BYHOUR=2;BYMINUTE=0"]},
    "timezone": {"type": "string", "description": "[addition] IANA zone the rrule is read in (default UTC)"}}}
UNSCHEDULED_IN = {"type": "object", "properties": {"duration": {"type": "integer"}, "summary": {"type": "string"}}}
TEST_IN = {"type": "object", "properties": {"summary": {"type": "string"}}}


def _paths(kind: str) -> dict[str, Any]:
    ids = [ids_param("comma-separated entity ids" if kind == "entities" else "comma-separated check ids")]
    errs = ("400", "403", "404", "415")
    return {
        f"/scheduled_maintenances/{kind}/{{ids}}": {
            "post": operation(f"Schedule maintenance on {kind}", NO_CONTENT, errs, params=ids,
                              body=wrapper("scheduled_maintenances", SCHEDULED_IN), tag="maintenance"),
            "delete": operation(f"End scheduled maintenance on {kind}", NO_CONTENT, ("400", "403", "404"),
                                params=[*ids, query("start_time", "start of the window (ISO 8601)")],
                                tag="maintenance"),
        },
        f"/unscheduled_maintenances/{kind}/{{ids}}": {
            "post": operation(f"Acknowledge {kind}", NO_CONTENT, errs, params=ids,
                              body=wrapper("unscheduled_maintenances", UNSCHEDULED_IN, False), tag="maintenance"),
            "patch": operation(f"End unscheduled maintenance on {kind}", NO_CONTENT, errs, params=ids,
                               body=patch_body("unscheduled_maintenances"),
                               body_types=("application/json-patch+json",), tag="maintenance"),
        },
        f"/test_notifications/{kind}/{{ids}}": {
            "post": operation(f"Send test notifications for {kind}", NO_CONTENT, errs, params=ids,
                              body=wrapper("test_notifications", TEST_IN, False), tag="maintenance"),
        },
    }


PATHS: dict[str, Any] = {**_paths("entities"), **_paths("checks")}
