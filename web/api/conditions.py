"""API resource: checks in a condition the executive found (issue 14 points 5 and 6): GET /api/stale_checks,
GET /api/flapping_checks."""

from __future__ import annotations

import time
from typing import Any

from flask import Response

from flapjack_py.store import flapping as flap_store
from flapjack_py.store import staleness as stale_store

from . import bp
from .common import answer, ctx
from .schemas import ok, operation


@bp.route("/stale_checks", methods=["GET"])
def get_stale_checks() -> Response:
    now = int(time.time())
    found = stale_store.stale_checks(ctx().client)
    return answer({"stale_checks": [{"id": check_id, "last_heard": heard, "silent_for": now - heard}
                                     for check_id, heard in sorted(found.items(), key=lambda i: (i[1], i[0]))]})


@bp.route("/flapping_checks", methods=["GET"])
def get_flapping_checks() -> Response:
    found = flap_store.flapping_checks(ctx().client)
    return answer({"flapping_checks": [{"id": check_id, "since": since, "percent_state_change": percent}
                                       for check_id, (since, percent) in sorted(found.items(), key=lambda i: i[1])]})


FLAPPING = {"type": "object", "required": ["id", "since", "percent_state_change"], "properties": {
    "id": {"type": "string"}, "since": {"type": "integer"}, "percent_state_change": {"type": "number"}}}
STALE = {"type": "object", "required": ["id", "last_heard", "silent_for"], "properties": {
    "id": {"type": "string"}, "last_heard": {"type": "integer"}, "silent_for": {"type": "integer"}}}

PATHS: dict[str, Any] = {
    "/stale_checks": {"get": operation(
        "Checks not heard from for executive.stale_after (or 3 x their learned interval), longest silent first",
        ok({"type": "object", "required": ["stale_checks"],
            "properties": {"stale_checks": {"type": "array", "items": STALE}}}), (), tag="checks")},
    "/flapping_checks": {"get": operation(
        "Checks flapping now (executive.flap_detection), with their percent state change, longest first",
        ok({"type": "object", "required": ["flapping_checks"],
            "properties": {"flapping_checks": {"type": "array", "items": FLAPPING}}}), (), tag="checks")},
}
