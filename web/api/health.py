"""API resource: GET /api/health, open without a token (load balancers, container health checks, monitors).

200 `{"status": "ok", "reasons": []}` or 503 `{"status": "failing", "reasons": [...]}`;
the answer comes from flapjack_py.runtime.health (the UI banner and the watchdog use
the same function) and holds no host names, addresses or settings. Only a
caller web/auth.py recognises (a token or UI session of any role, or anyone in
the open mode) also gets the figures: checks, executives, queue and gateways.
An unknown or missing token is not refused here: it gets the short answer.
"""

from __future__ import annotations

import time
from typing import Any

import redis
from flask import Response

from flapjack_py.runtime.health import check_health

from ..auth import identify
from . import bp
from .common import answer, ctx
from .schemas import ok, operation

PUBLIC_FIELDS = ("status", "reasons")
"""What an unauthenticated caller is told."""


@bp.route("/health", methods=["GET"])
def get_health() -> Response:
    health = check_health(ctx().client, ctx().config, int(time.time()))
    body = health.to_json()
    if not _recognised():
        body = {name: body[name] for name in PUBLIC_FIELDS}
    return answer(body, 200 if health.ok else 503, {"Cache-Control": "no-store"})


def _recognised() -> bool:
    """True when web/auth.py knows the caller; when Redis (where users and tokens live) cannot be read, not."""
    try:
        return identify() is not None
    except redis.RedisError:
        return False


HEALTH = {"type": "object", "required": ["status", "reasons"], "properties": {
    "status": {"type": "string", "enum": ["ok", "failing"]},
    "reasons": {"type": "array", "items": {"type": "string"}},
    "checks": {"type": ["integer", "null"], "description": "only with a token or session (any role)"},
    "executives": {"type": "object", "description": "only with a token or session (any role)"},
    "queue": {"type": "object", "description": "only with a token or session (any role)"},
    "gateways": {"type": "object", "description": "only with a token or session (any role): per enabled medium "
                 "`workers`, `recent_failures`, and while its server refuses (its circuit breaker is open) "
                 "`refusing_since` (unix time) and `waiting` (alerts queued or scheduled for a retry)"},
    "warnings": {"type": "array", "items": {"type": "string"}, "description": "only with a token or session "
                 "(any role): degraded but working, e.g. an executive's housekeeping chore that overran, or "
                 "`email: SMTP refusing since 03:12 UTC, 412 alerts waiting`"}}}

PATHS: dict[str, Any] = {
    "/health": {"get": {**operation("Is monitoring working? (no token needed)",
                                    {**ok(HEALTH), **ok(HEALTH, "503", "Monitoring is failing")}, (), tag="health"),
                        "description": "Anyone gets `status` and `reasons`. A caller with a valid token or UI "
                                       "session of any role (or any caller while no token or user exists) also "
                                       "gets `checks`, `executives`, `queue` and `gateways`; a missing or unknown "
                                       "token is not refused, it gets the short answer.",
                        "security": [{}]}},
}
