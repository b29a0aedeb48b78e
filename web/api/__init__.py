"""The JSON API blueprint (prefix /api): authentication, content types, CORS, and the resource modules.

Each resource module (contacts, media, ...) adds its routes to `bp` and
describes them in a module-level `PATHS` dict (OpenAPI path items) that
web.api.openapi assembles into /api/openapi.json.
"""

from __future__ import annotations

import hmac
import logging

from flask import Blueprint, Response, request

from ..errors import ApiError
from .common import ctx, no_content

log = logging.getLogger(__name__)

bp = Blueprint("api", __name__, url_prefix="/api")

CORS_HEADERS = {
    "Access-Control-Allow-Origin": "*",
    "Access-Control-Allow-Methods": "GET, POST, PUT, PATCH, DELETE, OPTIONS",
    "Access-Control-Allow-Headers": "*, Content-Type, Accept, AUTHORIZATION, Cache-Control",
    "Access-Control-Expose-Headers": "Cache-Control, Content-Language, Content-Type, Expires, Last-Modified, Pragma",
    "Access-Control-Max-Age": "1728000",
}
POST_TYPES = ("application/vnd.api+json", "application/json", "application/json-patch+json")
PATCH_TYPE = "application/json-patch+json"
OPEN_PATHS = ("/api/openapi.json",)


@bp.before_app_request
def check_request() -> Response | None:
    """Authentication (when tokens are configured), then the content type of POST and PATCH bodies.

    Authentication runs for every /api path, routable or not (an unknown path without a token is 401,
    not 404); content types only for routable ones (an unknown path is `not routable` whatever it
    is sent). OPTIONS is answered here (204, no body) for every path, before Flask's automatic 200.
    """
    if request.path != "/api" and not request.path.startswith("/api/"):
        return None
    if request.method == "OPTIONS":
        return no_content()
    if request.path not in OPEN_PATHS:
        _authenticate()
    if request.url_rule is None:
        return None
    if request.method == "POST" and (request.get_data(cache=True) or request.query_string):
        if request.mimetype not in POST_TYPES:
            raise ApiError(415, "Unsupported Content-Type")
    if request.method == "PATCH" and request.mimetype != PATCH_TYPE:
        raise ApiError(415, "Unsupported Content-Type")
    return None


def _authenticate() -> None:
    tokens = ctx().config.web.api_token
    if not tokens:
        return
    scheme, _, given = request.headers.get("Authorization", "").partition(" ")
    ok = False
    for token in tokens:  # compare with every token, in constant time, whatever matches
        ok |= hmac.compare_digest(given.strip().encode(), token.encode())
    if scheme.lower() != "bearer" or not ok:
        log.warning("API request without a valid token: %s %s", request.method, request.path)
        raise ApiError(401, "authentication required", headers={"WWW-Authenticate": "Bearer"})


@bp.after_app_request
def add_cors_headers(response: Response) -> Response:
    """CORS headers on every API response, errors included."""
    if request.path.startswith("/api"):
        response.headers.update(CORS_HEADERS)
    return response


@bp.route("/", defaults={"anything": ""}, methods=["OPTIONS"])
@bp.route("/<path:anything>", methods=["OPTIONS"])
def options(anything: str) -> Response:
    """CORS preflight for any API path: 204, no body."""
    return no_content()


from . import (  # noqa: E402  (resource modules register their routes on bp)
    alerts,
    checks,
    contacts,
    entities,
    maintenance,
    media,
    metrics,
    openapi,
    pagerduty,
    receivers,
    reports,
    rules,
)

__all__ = ["bp", "alerts", "checks", "contacts", "entities", "maintenance", "media", "metrics", "openapi",
           "pagerduty", "receivers", "reports", "rules"]
