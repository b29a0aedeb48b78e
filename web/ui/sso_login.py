"""Signing in with single sign-on (web.oidc): /login/sso sends the browser to the provider, its callback
makes the session (web/oidc.py checks state, nonce, the ID token; web/sso.py makes or updates the user)."""

from __future__ import annotations

import logging

from flask import abort, redirect, render_template, request, session, url_for
from werkzeug.wrappers import Response

from flapjack_py.model.sso import Refused

from .. import auth, oidc, sso
from ..audit import record_login
from . import bp
from .context import config, db

log = logging.getLogger(__name__)
PENDING = "oidc_pending"
"""Session key of the sign-in under way (state, nonce, PKCE verifier, where to go next)."""


@bp.get("/login/sso")
def sso_login() -> Response:
    """Start the sign-in: remember state, nonce and verifier in the session; off to the provider."""
    settings = config().web.oidc
    if settings is None:
        abort(404)
    try:
        url, pending = oidc.start(settings, _callback_url())
    except Refused as exc:
        return Response(render_template("ui/login.html", next="/", error=str(exc)), 502)
    session[PENDING] = {**pending, "next": auth.safe_next(request.args.get("next"))}
    return redirect(url, code=303)


@bp.get("/login/sso/callback")
def sso_callback() -> Response | tuple[str, int]:
    """The provider's answer: a session for the user it vouches for, or a page saying why not."""
    settings = config().web.oidc
    if settings is None:
        abort(404)
    pending = session.pop(PENDING, None)
    try:
        who = oidc.finish(settings, _callback_url(), request.args, pending if isinstance(pending, dict) else None)
        user = sso.remember(db(), who, set(settings.team_map.values()))
    except Refused as exc:
        log.warning("SSO sign-in refused from %s: %s", request.remote_addr, exc)
        record_login("unknown", "oidc", f"refused: {exc}"[:200])
        return render_template("ui/login.html", next="/", error=f"Single sign-on refused: {exc}."), 403
    auth.start_session(user)
    record_login(user.name, "oidc", "ok")
    return redirect(auth.safe_next(pending.get("next") if isinstance(pending, dict) else None), code=303)


def _callback_url() -> str:
    return url_for("ui.sso_callback", _external=True)
