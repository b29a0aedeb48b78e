"""Logging in and out of the web UI (needed once any user or token exists; see web/auth.py).

Failed logins are limited per user name and per client address (Flask-Limiter,
counters in Redis under keys.web_login_limits_prefix); over the limit is 429.
"""

from __future__ import annotations

import logging
from typing import Any

from flask import Flask, redirect, render_template, request, url_for
from flask_limiter import Limiter
from flask_limiter.util import get_remote_address
from flask_login import current_user
from werkzeug.wrappers import Response

from flapjack_py import credentials, keys
from flapjack_py.model.sso import Refused
from flapjack_py.store import users as user_store

from .. import auth, sso
from ..audit import record_login
from . import bp
from .context import config, db

log = logging.getLogger(__name__)

FAILED = 401
"""Status of a refused login (what the rate limit counts)."""


@bp.route("/login", methods=["GET", "POST"])
def login() -> Response | tuple[str, int] | str:
    """The login form (`username`, `password`); on success a session and a redirect to `next`."""
    target = auth.safe_next(request.values.get("next"))
    if request.method == "GET":
        return render_template("ui/login.html", next=target, error=None)
    if not config().web.password_login:
        return render_template("ui/login.html", next=target, error="Sign in with SSO."), FAILED
    name = request.form.get("username", "")[:credentials.MAX_NAME + 1]
    password = request.form.get("password", "")
    user = user_store.load_user(db(), name)
    method = "ldap" if sso.is_external(user) and config().web.ldap else "password"
    try:
        if method == "ldap":
            user = sso.password_login(db(), config().web, name, password)
        elif not credentials.verify_password(user.password_hash if user else None, password) or user is None:
            raise Refused("unknown user or wrong password")
    except Refused as exc:
        log.warning("failed web login (%s) for %r from %s: %s", method, name, request.remote_addr, exc)
        record_login(name, method, f"refused: {exc}"[:200] if method != "password" else "refused")
        return render_template("ui/login.html", next=target, error="Unknown user or wrong password."), FAILED
    auth.start_session(user)
    record_login(user.name, method, "ok")
    log.info("web login: %s (%s) from %s", user.name, user.role, request.remote_addr)
    return redirect(target, code=303)


@bp.post("/logout")
def logout() -> Response:
    """End the session; back to the login form."""
    if current_user.is_authenticated:
        record_login(current_user.user.name, "session", "ok", action="logout")
    auth.end_session()
    return redirect(url_for("ui.login"), code=303)


@bp.app_context_processor
def login_globals() -> dict[str, Any]:
    """What the login page offers: single sign-on (web.oidc) and the password form (web.password_login)."""
    web = config().web
    return {"sso": web.oidc is not None, "password_login": web.password_login}


def limit_failed_logins(app: Flask) -> None:
    """Wrap the login view in Flask-Limiter limits on failed POSTs, per user name and per address."""
    fj = app.extensions["flapjack"]
    limiter = Limiter(get_remote_address, app=app, storage_uri="redis://",
                      storage_options={"connection_pool": fj.raw.connection_pool},
                      key_prefix=keys.web_login_limits_prefix(), strategy="fixed-window", headers_enabled=False)
    rate = fj.config.web.login_rate_limit
    failed: dict[str, Any] = {"methods": ["POST"], "deduct_when": lambda response: response.status_code == FAILED}
    view: Any = app.view_functions["ui.login"]
    view = limiter.limit(rate, key_func=_user_key, **failed)(view)
    view = limiter.limit(rate, key_func=get_remote_address, **failed)(view)
    app.view_functions["ui.login"] = view


def _user_key() -> str:
    return "user:" + request.form.get("username", "")[:credentials.MAX_NAME].strip().lower()

