"""Response headers of every answer: security headers, and CORS for the configured origins only.

The Content-Security-Policy allows scripts and styles from this site only (no
inline script anywhere: JS lives in web/static/) and no framing. CORS headers
go to an /api answer only when the request's Origin is listed in
`web.cors_origins` (api-v1.md 1.3); no wildcard, no credentials.
"""

from __future__ import annotations

from flask import Flask, current_app, request
from werkzeug.wrappers import Response

CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; object-src 'none'; "
       "base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
SECURITY_HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "Cross-Origin-Opener-Policy": "same-origin",
}
CORS_HEADERS = {
    "Access-Control-Allow-Methods": "GET, POST, PUT, PATCH, DELETE, OPTIONS",
    "Access-Control-Allow-Headers": "Authorization, Content-Type, Accept, Cache-Control, X-HTTP-Method-Override",
    "Access-Control-Expose-Headers": "Cache-Control, Content-Language, Content-Type, Expires, Last-Modified, Pragma",
    "Access-Control-Max-Age": "1728000",
}


def init_app(app: Flask) -> None:
    """Add the headers to every response, errors included."""
    app.after_request(add_headers)


def add_headers(response: Response) -> Response:
    """Security headers everywhere; CORS on /api for an allowed Origin."""
    for name, value in SECURITY_HEADERS.items():
        response.headers.setdefault(name, value)
    if request.path == "/api" or request.path.startswith("/api/"):
        response.vary.add("Origin")
        origin = request.headers.get("Origin")
        if origin and origin in current_app.extensions["flapjack"].config.web.cors_origins:
            response.headers["Access-Control-Allow-Origin"] = origin
            response.headers.update(CORS_HEADERS)
    return response
