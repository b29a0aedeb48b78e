"""Routes that authenticate by a signature or a shared token instead of a login (web/policy.py SIGNED).

An SMS or call provider cannot log in: it proves itself by signing its request (Twilio's
X-Twilio-Signature) or by a token in the URL (Kannel). Such a route is SIGNED in web/policy.py and names
its check with `@verified_by(check)`; the gate (web/auth.py) runs that check before the view and refuses
the request (403, nothing done) when it fails, or when the route has no check at all: the check is
mandatory, not something a view may forget.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import logging
from collections.abc import Callable, Iterable
from typing import NoReturn, TypeVar

from flask import current_app, request
from werkzeug.exceptions import Forbidden

log = logging.getLogger(__name__)

Check = Callable[[], str | None]
"""A route's check: None when the request is authentic, else why not (logged, never sent)."""
VIEW = TypeVar("VIEW", bound=Callable[..., object])

CHECKS: dict[str, Check] = {}
"""Endpoint -> its check, filled by @verified_by when the routes are registered."""


def verified_by(check: Check, blueprint: str = "api") -> Callable[[VIEW], VIEW]:
    """Declare the check the gate runs before the view (its endpoint: BLUEPRINT.FUNCTION_NAME)."""
    def register(view: VIEW) -> VIEW:
        CHECKS[f"{blueprint}.{view.__name__}"] = check
        return view
    return register


def verify(endpoint: str | None) -> None:
    """Run the endpoint's check; refuse (403) when it fails or the endpoint has none."""
    check = CHECKS.get(endpoint or "")
    if check is None:
        log.error("%s is SIGNED in web/policy.py but declares no check: refused", endpoint)
        _refuse("this route has no signature check")
    problem = check()
    if problem is not None:
        log.warning("refused %s %s from %s: %s", request.method, request.path, request.remote_addr, problem)
        _refuse("signature or token not valid")


def _refuse(message: str) -> NoReturn:
    raise Forbidden(message)


def twilio_signature(auth_token: str, url: str, params: Iterable[tuple[str, str]]) -> str:
    """Twilio's X-Twilio-Signature: base64 of HMAC-SHA1(auth token, URL + each POST field's name and value,
    sorted by name)."""
    data = url + "".join(name + value for name, value in sorted(params))
    digest = hmac.new(auth_token.encode(), data.encode(), hashlib.sha1).digest()
    return base64.b64encode(digest).decode()


def public_url() -> str:
    """The URL the caller asked for, as it saw it: under `web.api_base_url` when set (behind a proxy the
    request's own scheme and host may differ), else the request's."""
    base = current_app.extensions["flapjack"].config.web.api_base_url
    query = request.query_string.decode("latin-1")
    if base and request.path.startswith("/api"):
        url = base.rstrip("/") + request.path[len("/api"):]
    else:
        url = request.host_url.rstrip("/") + request.path
    return f"{url}?{query}" if query else url


def twilio_check(auth_token: Callable[[], str | None]) -> Check:
    """The check of a Twilio webhook signed with the token `auth_token()` gives (None: refuse everything)."""
    def check() -> str | None:
        token = auth_token()
        if not token:
            return "no auth_token configured"
        given = request.headers.get("X-Twilio-Signature", "")
        params = [(k, v) for k in request.form for v in request.form.getlist(k)]
        wanted = twilio_signature(token, public_url(), params)
        return None if hmac.compare_digest(given.encode(), wanted.encode()) else "bad X-Twilio-Signature"
    return check


def token_check(token: Callable[[], str | None], parameter: str = "token") -> Check:
    """The check of a request carrying the shared secret `token()` as query parameter `parameter`."""
    def check() -> str | None:
        wanted = token()
        if not wanted:
            return "no token configured"
        given = request.args.get(parameter, "")
        return None if hmac.compare_digest(given.encode(), wanted.encode()) else f"bad {parameter}"
    return check
