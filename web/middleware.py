"""WSGI middleware: Rack::MethodOverride, as Flapjack 1.x's API had it (api-v1.md 1.2)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any
from urllib.parse import parse_qs

OVERRIDABLE = ("PATCH", "DELETE")


class MethodOverride:
    """A POST with `X-HTTP-Method-Override: PATCH|DELETE` (or form field `_method`) is handled as that method."""

    def __init__(self, app: Callable[..., Iterable[bytes]]) -> None:
        self.app = app

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        if environ.get("REQUEST_METHOD") == "POST":
            method = environ.get("HTTP_X_HTTP_METHOD_OVERRIDE", "").upper() or _form_method(environ)
            if method in OVERRIDABLE:
                environ["REQUEST_METHOD"] = method
        return self.app(environ, start_response)


def _form_method(environ: dict[str, Any]) -> str:
    if not environ.get("CONTENT_TYPE", "").startswith("application/x-www-form-urlencoded"):
        return ""
    import io

    length = int(environ.get("CONTENT_LENGTH") or 0)
    body = environ["wsgi.input"].read(length) if length else b""
    environ["wsgi.input"] = io.BytesIO(body)
    values = parse_qs(body.decode("latin-1")).get("_method", [""])
    return values[0].upper()
