"""The JSON API blueprint (prefix /api): content types, OPTIONS, and the resource modules.

Who may call what is decided for the whole app by web/auth.py and web/policy.py;
CORS and security headers are added by web/headers.py.

Each resource module (contacts, media, ...) adds its routes to `bp` and
describes them in a module-level `PATHS` dict (OpenAPI path items) that
web.api.openapi assembles into /api/openapi.json.
"""

from __future__ import annotations

import logging

from flask import Blueprint, Response, request

from ..errors import ApiError
from .common import no_content

log = logging.getLogger(__name__)

bp = Blueprint("api", __name__, url_prefix="/api")

POST_TYPES = ("application/vnd.api+json", "application/json", "application/json-patch+json")
FORM_ENDPOINTS = frozenset({"api.slack_interactions", "api.twilio_sms_reply", "api.twilio_voice_reply",
                            "api.twilio_voice_status"})
"""Routes whose callers post a form (Slack's interactions, Twilio's webhooks), not JSON."""
PATCH_TYPE = "application/json-patch+json"


@bp.before_app_request
def check_request() -> Response | None:
    """The content type of POST and PATCH bodies (web/auth.py has already let the caller in).

    Content types are checked only for routable paths (an unknown path is `not routable` whatever
    it is sent). OPTIONS is answered here (204, no body) for every path, before Flask's automatic 200.
    """
    if request.path != "/api" and not request.path.startswith("/api/"):
        return None
    if request.method == "OPTIONS":
        return no_content()
    if request.url_rule is None:
        return None
    if request.method == "POST" and (request.get_data(cache=True) or request.query_string):
        form = request.endpoint in FORM_ENDPOINTS and request.mimetype == "application/x-www-form-urlencoded"
        if request.mimetype not in POST_TYPES and not form:
            raise ApiError(415, "Unsupported Content-Type")
    if request.method == "PATCH" and request.mimetype != PATCH_TYPE:
        raise ApiError(415, "Unsupported Content-Type")
    return None


@bp.route("/", defaults={"anything": ""}, methods=["OPTIONS"])
@bp.route("/<path:anything>", methods=["OPTIONS"])
def options(anything: str) -> Response:
    """CORS preflight for any API path: 204, no body."""
    return no_content()


from . import (  # noqa: E402  (resource modules register their routes on bp)
    alerts,
    analytics,
    audit,
    chat,
    checks,
    conditions,
    contacts,
    decisions,
    dependencies,
    entities,
    escalation_policies,
    health,
    incidents,
    maintenance,
    maintenance_series,
    media,
    metrics,
    openapi,
    pagerduty,
    receivers,
    replies,
    reports,
    rules,
    schedules,
    teams,
)

RESOURCES = (contacts, media, pagerduty, rules, entities, checks, decisions, conditions, maintenance, maintenance_series,
             reports, metrics, alerts, receivers, replies, schedules, health, escalation_policies, dependencies, audit,
             chat, analytics, teams, incidents)
"""The resource modules, in the order /api/openapi.json lists their paths (web.api.openapi)."""

__all__ = ["bp", "RESOURCES", "openapi"]
