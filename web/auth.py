"""The one gate every request passes: size, origin, who is asking, the role the route needs, CSRF.

`guard` runs before any view (UI and API alike). It looks the endpoint up in
web/policy.py (unknown endpoints are refused), recognises the caller (API token,
`web.api_token`, UI session, or nobody) and checks the role. With no user and no
token anywhere the app runs open: every caller acts as an admin (library use,
tests, a local trial); `flapjack web` refuses to listen beyond loopback then
unless `web.allow_anonymous` is set (web/serve.py).
"""

from __future__ import annotations

import hmac
import logging
import time
from typing import NoReturn
from urllib.parse import urlsplit

from flask import Flask, Request, abort, current_app, g, redirect, request, session, url_for
from flask.sessions import SecureCookieSession, SecureCookieSessionInterface
from flask_login import LoginManager, UserMixin, current_user, logout_user
from flask_wtf.csrf import CSRFProtect
from itsdangerous import URLSafeTimedSerializer
from werkzeug.wrappers import Response

from flapjack_py import credentials
from flapjack_py.access import Principal, Role, allows
from flapjack_py.model.actors import Actor
from flapjack_py.store import audit
from flapjack_py.store import users as user_store

from . import policy, signatures
from .errors import ApiError

log = logging.getLogger(__name__)

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
ANONYMOUS = Principal("anonymous", Role.ADMIN, "open")
"""Who calls when no user and no token exist (the open mode)."""


class WebUser(UserMixin):  # type: ignore[misc]
    """A logged-in user as Flask-Login keeps it; the id changes with the password, ending old sessions."""

    def __init__(self, user: user_store.User) -> None:
        self.user = user

    def get_id(self) -> str:
        return f"{self.user.name}:{self.user.password_hash[-16:]}"


class SessionInterface(SecureCookieSessionInterface):
    """Flask's signed-cookie sessions, signed with the key kept in Redis, fetched only once a cookie is involved."""

    def open_session(self, app: Flask, request: Request) -> SecureCookieSession | None:
        if app.config["SESSION_COOKIE_NAME"] not in request.cookies:
            return self.session_class()  # nothing to verify: no Redis round trip for token-only API calls
        return super().open_session(app, request)

    def get_cookie_secure(self, app: Flask) -> bool:
        """Secure when `web.secure_cookies` is set or the request came over https."""
        return bool(app.config["SESSION_COOKIE_SECURE"]) or request.is_secure

    def get_signing_serializer(self, app: Flask) -> URLSafeTimedSerializer | None:
        _ensure_secret_key(app)
        return super().get_signing_serializer(app)


def init_app(app: Flask) -> None:
    """Install the gate: session cookie settings, Flask-Login, Flask-WTF CSRF and the before_request hook."""
    web = app.extensions["flapjack"].config.web
    app.config.update(
        MAX_CONTENT_LENGTH=web.max_content_length, SESSION_COOKIE_HTTPONLY=True, SESSION_COOKIE_SAMESITE="Lax",
        SESSION_COOKIE_NAME="flapjack_session", SESSION_COOKIE_SECURE=web.secure_cookies, WTF_CSRF_CHECK_DEFAULT=False, WTF_CSRF_TIME_LIMIT=None)
    app.session_interface = SessionInterface()
    CSRFProtect(app)
    logins = LoginManager(app)
    logins.user_loader(_load_session_user)
    app.before_request(guard)


def guard() -> Response | None:
    """Refuse the request unless its size, origin, caller and role fit the route (see module docstring)."""
    _refuse_oversized()
    _refuse_foreign_origin()
    if not _is_api():
        _ensure_secret_key(current_app)  # UI pages carry CSRF tokens
    needed = policy.required(request.endpoint)
    if needed == policy.SIGNED:  # an SMS/call provider's webhook: its signature or token, mandatory (web/signatures.py)
        signatures.verify(request.endpoint)
        return None
    if needed == policy.OPEN or (request.method == "OPTIONS" and _is_api()):
        if request.method not in SAFE_METHODS and not _is_api():
            current_app.extensions["csrf"].protect()  # the login and logout forms
        return None
    principal = identify()
    if principal is None:
        return _unauthenticated()
    g.principal = principal
    if request.url_rule is None:
        return None  # routing failed: the 404/405 answer follows
    if needed is None:
        log.error("%s has no line in web/policy.py: refused", request.endpoint)
        _forbidden("this route has no access rule")
    if not allows(principal.role, Role(needed)):
        log.warning("%s (%s) may not %s %s", principal.name, principal.role, request.method, request.path)
        _forbidden(f"needs the {needed} role")
    if request.method not in SAFE_METHODS and principal.via in ("session", "open") and \
            (principal.via == "session" or not _is_api()):
        current_app.extensions["csrf"].protect()
    return None


def identify() -> Principal | None:
    """The caller: ANONYMOUS in the open mode, else by bearer token or UI session; None when unknown."""
    if not auth_required():
        return ANONYMOUS
    header = request.headers.get("Authorization")
    if header is not None:
        return _token_principal(header)
    return _session_principal()


def auth_required() -> bool:
    """True when a `web.api_token` is configured or any user or token exists."""
    fj = current_app.extensions["flapjack"]
    return bool(fj.config.web.api_token) or user_store.credentials_exist(fj.client)


def current_principal() -> Principal:
    """Who makes the current request (a viewer when the gate did not run, e.g. in an error page)."""
    return g.get("principal") or Principal("unknown", Role.VIEWER, "none")


def start_session(user: user_store.User) -> None:
    """Log `user` in (after a password check): a fresh session, its idle clock started."""
    from flask_login import login_user

    session.clear()
    login_user(WebUser(user))
    session["seen"] = int(time.time())


def end_session() -> None:
    """Log out and forget the session."""
    logout_user()
    session.clear()


def safe_next(target: str | None, default: str = "/") -> str:
    """`target` when it is a path on this site, else `default` (no scheme, host, `//` or control characters)."""
    if not target or not target.startswith("/") or any(c.isspace() or ord(c) < 32 or c == "\\" for c in target):
        return default
    parts = urlsplit(target)
    if parts.scheme or parts.netloc or target.startswith("//"):
        return default
    return target


# --- private helpers -------------------------------------------------------------


def _is_api() -> bool:
    return request.path == "/api" or request.path.startswith("/api/")


def _refuse_oversized() -> None:
    limit = current_app.config["MAX_CONTENT_LENGTH"]
    if request.content_length is not None and request.content_length > limit:
        abort(413)


def _refuse_foreign_origin() -> None:
    """A write whose Origin is another site (or a cross-site fetch) is refused, before anything is read."""
    if request.method in SAFE_METHODS:
        return
    origin = request.headers.get("Origin")
    allowed = _is_api() and origin in current_app.extensions["flapjack"].config.web.cors_origins
    foreign = origin is not None and urlsplit(origin).netloc != request.host
    if (foreign or request.headers.get("Sec-Fetch-Site") == "cross-site") and not allowed:
        log.warning("refused %s %s from origin %r", request.method, request.path, origin)
        _forbidden("cross-origin request refused")


def _ensure_secret_key(app: Flask) -> None:
    if not app.secret_key:
        app.secret_key = user_store.secret_key(app.extensions["flapjack"].client)


def _token_principal(header: str) -> Principal | None:
    scheme, _, given = header.partition(" ")
    given = given.strip()
    if scheme.lower() != "bearer" or not given:
        return None
    matched = False
    for token in current_app.extensions["flapjack"].config.web.api_token:
        matched |= bool(token) and hmac.compare_digest(given.encode(), token.encode())
    if matched:
        return Principal("web.api_token", Role.ADMIN, "config-token")
    client = current_app.extensions["flapjack"].client
    found = user_store.find_token(client, credentials.token_digest(given))
    user = user_store.load_user(client, found.user) if found else None
    if user is None or found is None:
        return None
    audit.token_used(client, found.id, audit.entry(Actor(user.name, "api", request.remote_addr), "token_use",
                                                   "token", found.id, int(time.time())))
    return Principal(user.name, user.role, "token")


def _session_principal() -> Principal | None:
    if current_app.config["SESSION_COOKIE_NAME"] not in request.cookies:
        return None
    _ensure_secret_key(current_app)
    seen = session.get("seen")
    idle = current_app.extensions["flapjack"].config.web.session_idle_timeout
    now = int(time.time())
    if not isinstance(seen, int) or now - seen > idle:
        if seen is not None:
            end_session()
        return None
    if not current_user.is_authenticated:
        return None
    session["seen"] = now
    return Principal(current_user.user.name, current_user.user.role, "session")


def _load_session_user(user_id: str) -> WebUser | None:
    name, _, stamp = user_id.rpartition(":")
    user = user_store.load_user(current_app.extensions["flapjack"].client, name)
    if user is None or not hmac.compare_digest(user.password_hash[-16:], stamp):
        return None
    return WebUser(user)


def _unauthenticated() -> Response:
    if _is_api():
        log.info("API request without a valid token or session: %s %s", request.method, request.path)
        raise ApiError(401, "authentication required", headers={"WWW-Authenticate": "Bearer"})
    target = request.full_path.rstrip("?") if request.method == "GET" else "/"
    return redirect(url_for("ui.login", next=target), code=303)


def _forbidden(message: str) -> NoReturn:
    if _is_api():
        raise ApiError(403, message)
    abort(403, description=message)
