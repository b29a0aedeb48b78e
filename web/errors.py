"""API errors: `ApiError` carries a status and messages; handlers turn every failure into `{"errors": [...]}`.

Unknown routes and unsupported methods are 404 `not routable` (api-v1.md 1.4);
unexpected failures are 500 `internal server error` with the details logged.
"""

from __future__ import annotations

import html
import logging
from collections.abc import Iterable

from flask import Flask, Response, json, request
from werkzeug.exceptions import HTTPException

from flapjack_py.model.teams import NotOwned

log = logging.getLogger(__name__)

JSONAPI_TYPE = "application/vnd.api+json; charset=UTF-8"


class ApiError(Exception):
    """An error answer: HTTP `status` with one or more messages."""

    def __init__(self, status: int, *messages: str, headers: dict[str, str] | None = None) -> None:
        super().__init__("; ".join(messages))
        self.status = status
        self.messages = list(messages)
        self.headers = headers or {}


def error_response(status: int, messages: Iterable[str], headers: dict[str, str] | None = None) -> Response:
    """A `{"errors": [...]}` response with the JSON-API content type."""
    body = json.dumps({"errors": list(messages)}, separators=(",", ":"))
    response = Response(body, status=status, content_type=JSONAPI_TYPE)
    for name, value in (headers or {}).items():
        response.headers[name] = value
    return response


def register_error_handlers(app: Flask) -> None:
    """Install the handlers on the app (API paths get JSON; UI paths keep HTML for real 404s)."""

    @app.errorhandler(ApiError)
    def api_error(exc: ApiError) -> Response:
        return error_response(exc.status, exc.messages, exc.headers)

    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException) -> Response:
        if exc.code in (404, 405) or request.path.startswith("/api"):
            if exc.code in (404, 405):
                return error_response(404, ["not routable"])
            return error_response(exc.code or 500, [exc.description or exc.name])
        answer = exc.get_response()
        return Response(answer.get_data(), answer.status_code, answer.headers)

    @app.errorhandler(NotOwned)
    def not_owned(exc: NotOwned) -> Response:
        """An action on a check the user's teams do not own (flapjack_py.actions): 403 saying which."""
        log.warning("refused on %s %s: %s", request.method, request.path, exc)
        if request.path.startswith("/api"):
            return error_response(403, [str(exc)])
        return Response(f"<h1>Forbidden</h1><p>{html.escape(str(exc))}</p>", status=403,
                        content_type="text/html; charset=utf-8")

    @app.errorhandler(Exception)
    def unexpected(exc: Exception) -> Response:
        log.exception("%s %s failed", request.method, request.path)
        if not request.path.startswith("/api"):
            return Response("<h1>Internal server error</h1><p>The details are in the log.</p>", status=500,
                            content_type="text/html; charset=utf-8")
        return error_response(500, ["internal server error"])
