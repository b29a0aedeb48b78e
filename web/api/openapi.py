"""GET /api/openapi.json: the OpenAPI 3.1 document, assembled from every resource module's PATHS."""

from __future__ import annotations

from typing import Any

from flask import Response

from flapjack_py import __version__

from . import bp
from .common import answer

ERRORS = {"type": "object", "required": ["errors"],
          "properties": {"errors": {"type": "array", "items": {"type": "string"}}}}
ERROR_RESPONSES = {
    status: {"description": text, "content": {"application/vnd.api+json": {"schema": {"$ref": "#/components/schemas/Errors"}}}}
    for status, text in (("400", "Bad request"), ("401", "Authentication required"), ("403", "Forbidden"),
                         ("404", "Not found"), ("409", "Conflict"), ("415", "Unsupported Content-Type"),
                         ("413", "Payload too large"), ("422", "Unprocessable"), ("423", "Locked"))
}


def document() -> dict[str, Any]:
    """The whole OpenAPI document."""
    from . import RESOURCES  # the package imports this module first

    paths: dict[str, Any] = {}
    for module in RESOURCES:
        for path, item in module.PATHS.items():
            paths.setdefault(path, {}).update(item)
    return {
        "openapi": "3.1.0",
        "info": {"title": "flapjack-py JSON API", "version": __version__,
                 "description": "Flapjack 1.x compatible JSON API (see api-v1.md)."},
        "servers": [{"url": "/api"}],
        "paths": paths,
        "components": {
            "schemas": {"Errors": ERRORS},
            "responses": {f"E{s}": r for s, r in ERROR_RESPONSES.items()},
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
        },
        "security": [{}, {"bearer": []}],
    }


@bp.route("/openapi.json", methods=["GET"])
def openapi() -> Response:
    """The OpenAPI document (readable without a token)."""
    return answer(document())
