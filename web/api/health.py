"""API resource: GET /api/health, open without a token (load balancers, container health checks, monitors).

200 `{"status": "ok", ...}` or 503 `{"status": "failing", "reasons": [...], ...}`;
the answer comes from flapjack_py.health (the UI banner and the watchdog use
the same function) and holds no host names, addresses or settings.
"""

from __future__ import annotations

import time
from typing import Any

from flask import Response

from flapjack_py.health import check_health

from . import bp
from .common import answer, ctx
from .schemas import ok, operation


@bp.route("/health", methods=["GET"])
def get_health() -> Response:
    health = check_health(ctx().client, ctx().config, int(time.time()))
    return answer(health.to_json(), 200 if health.ok else 503, {"Cache-Control": "no-store"})


HEALTH = {"type": "object", "required": ["status", "reasons"], "properties": {
    "status": {"type": "string", "enum": ["ok", "failing"]},
    "reasons": {"type": "array", "items": {"type": "string"}},
    "checks": {"type": ["integer", "null"]},
    "executives": {"type": "object"}, "queue": {"type": "object"}, "gateways": {"type": "object"}}}

PATHS: dict[str, Any] = {
    "/health": {"get": {**operation("Is monitoring working? (no token needed)",
                                    {**ok(HEALTH), **ok(HEALTH, "503", "Monitoring is failing")}, (), tag="health"),
                        "security": [{}]}},
}
