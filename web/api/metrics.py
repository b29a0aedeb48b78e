"""API resource: metrics (api-v1.md 12). Routes are added to web.api.bp; OpenAPI path items go in PATHS."""

from __future__ import annotations

import os
import socket
import time
from typing import Any

from flask import Response, request

from flapjack_py.store import metrics as metric_store

from . import bp
from .common import answer, ctx
from .schemas import ok, operation, query

METRIC_NAMES = ("fqdn", "pid", "total_keys", "processed_events_all_time", "event_queue_length", "check_freshness",
                "entities", "checks")


def _ages() -> dict[str, dict[str, int]]:
    return metric_store.current_check_ages(ctx().client, int(time.time()))


@bp.route("/metrics", methods=["GET"])
def get_metrics() -> Response:
    wanted = [n for n in request.args.get("filter", "").split(",") if n]
    if not wanted or "all" in wanted:
        wanted = list(METRIC_NAMES)
    client = ctx().client
    ages = _ages()
    counters, queued = metric_store.event_counts(client)
    values: dict[str, Any] = {
        "fqdn": socket.getfqdn, "pid": os.getpid, "total_keys": client.dbsize,
        "processed_events_all_time": lambda: {"all_time": counters}, "event_queue_length": lambda: queued,
        "check_freshness": lambda: {str(k): v for k, v in metric_store.freshness(ages).items()},
        "entities": lambda: metric_store.entity_check_counts(client, ages)["entities"],
        "checks": lambda: metric_store.entity_check_counts(client, ages)["checks"],
    }
    return answer({name: values[name]() for name in METRIC_NAMES if name in wanted})


@bp.route("/metrics/check_freshness", methods=["GET"])
def get_check_freshness() -> Response:
    counts = metric_store.freshness(_ages())
    bounds = list(counts)
    names = [f"from_{b}_to_{bounds[i + 1] if i + 1 < len(bounds) else '∞'}" for i, b in enumerate(bounds)]
    return answer({"check_freshness": dict(zip(names, counts.values(), strict=True))})


@bp.route("/metrics/entities", methods=["GET"])
def get_entity_metrics() -> Response:
    return answer({"entities": metric_store.entity_check_counts(ctx().client, _ages())["entities"]})


@bp.route("/metrics/checks", methods=["GET"])
def get_check_metrics() -> Response:
    return answer({"checks": metric_store.entity_check_counts(ctx().client, _ages())["checks"]})


@bp.route("/metrics/events", methods=["GET"])
def get_event_metrics() -> Response:
    counters, queued = metric_store.event_counts(ctx().client)
    return answer({"events": {"processed": counters, "queue": {"length": queued}}})


COUNTS = {"type": "object", "additionalProperties": {"type": "integer"}}
METRICS = {"type": "object", "properties": {
    "fqdn": {"type": "string"}, "pid": {"type": "integer"}, "total_keys": {"type": "integer"},
    "processed_events_all_time": {"type": "object", "properties": {"all_time": COUNTS}},
    "event_queue_length": {"type": "integer"}, "check_freshness": COUNTS, "entities": COUNTS, "checks": COUNTS}}


def _get(summary: str, schema: dict[str, Any], params: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    return {"get": operation(summary, ok(schema), (), params=params, tag="metrics")}


PATHS: dict[str, Any] = {
    "/metrics": _get("All metrics", METRICS, [query("filter", "comma-separated metric names, or all")]),
    "/metrics/check_freshness": _get("Check freshness", {"type": "object", "required": ["check_freshness"],
                                                          "properties": {"check_freshness": COUNTS}}),
    "/metrics/entities": _get("Entity counts", {"type": "object", "required": ["entities"],
                                                 "properties": {"entities": COUNTS}}),
    "/metrics/checks": _get("Check counts", {"type": "object", "required": ["checks"],
                                             "properties": {"checks": COUNTS}}),
    "/metrics/events": _get("Event counts", {"type": "object", "required": ["events"], "properties": {"events": {
        "type": "object", "properties": {"processed": COUNTS, "queue": COUNTS}}}}),
}
