"""WSGI middleware: method override for API clients, as Flapjack 1.x's Rack::MethodOverride (api-v1.md 1.2).

Only the `X-HTTP-Method-Override` header of a POST to /api counts. A form field
`_method` is ignored: a plain HTML form on any web page could send it, and
reading it would mean reading the body before the caller is known. The
overridden method then goes through web/auth.py like any other (role, CSRF).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

OVERRIDABLE = ("PATCH", "DELETE")


class MethodOverride:
    """A POST to /api with `X-HTTP-Method-Override: PATCH|DELETE` is handled as that method."""

    def __init__(self, app: Callable[..., Iterable[bytes]]) -> None:
        self.app = app

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        path = environ.get("PATH_INFO", "")
        if environ.get("REQUEST_METHOD") == "POST" and (path == "/api" or path.startswith("/api/")):
            method = environ.get("HTTP_X_HTTP_METHOD_OVERRIDE", "").strip().upper()
            if method in OVERRIDABLE:
                environ["REQUEST_METHOD"] = method
        return self.app(environ, start_response)
