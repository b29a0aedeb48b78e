"""What every page's frame needs: the failing count for the menu and the live-update period.

Pages update in place (web/static/live.js fetches the page again and swaps the parts nobody is
typing in); the period is chosen per browser in a cookie. There is no meta refresh.
"""

from __future__ import annotations

from typing import Any

from flask import g, redirect, render_template, request
from werkzeug.wrappers import Response

from flapjack_py import access
from flapjack_py.runtime.health import check_health
from flapjack_py.store import checks as check_store

from .. import auth, policy
from ..errors import error_response
from . import bp
from .context import config, db, now
from .triage import unhandled_count

REFRESH_COOKIE = "flapjack_refresh"
REFRESH_CHOICES = (5, 15, 30, 60, 300)
"""Live-update periods offered, in seconds (pausing is the Pause button's job, in the browser)."""
DEFAULT_REFRESH = 15
"""Seconds between live updates until the browser chooses another period."""


@bp.app_context_processor
def frame() -> dict[str, Any]:
    """Template globals: who is looking, live-update period and choices, health (the red banner), the failing
    and unhandled counts (the menu's badge and the title count unhandled problems), the time of the page.

    Before the gate has recognised a caller (the login page) nothing about the monitored world is shown.
    """
    principal = g.get("principal")
    health = check_health(db(), config(), now()) if principal else None
    counted = bool(health and health.checks is not None)
    return {"principal": principal, "open_mode": principal is auth.ANONYMOUS, "may": may, "health": health,
            "refresh": refresh_period(), "refresh_choices": REFRESH_CHOICES, "page_time": now(),
            "failing_count": check_store.failed_check_count(db()) if counted else 0,
            "unhandled_count": unhandled_count(db()) if counted else 0}


def may(endpoint: str) -> bool:
    """True when the caller's role allows `endpoint` (templates show only the forms that would work)."""
    needed = policy.required(endpoint)
    return needed == policy.OPEN or (needed is not None and access.allows(auth.current_principal().role,
                                                                          access.Role(needed)))


@bp.app_template_filter("masked")
def masked(address: str | None, medium: str = "") -> str:
    """An address (or credential, for `pagerduty`) as the caller's role may see it (flapjack_py.access)."""
    return access.shown_address(auth.current_principal().role, medium, address or "")


@bp.get("/refresh")
def set_refresh() -> Response:
    """Remember the live-update period (`every` seconds) in a cookie and go back to `next`."""
    every = request.args.get("every", "0")
    target = auth.safe_next(request.args.get("next"))
    response = redirect(target, code=303)
    period = int(every) if every.isdigit() and int(every) in REFRESH_CHOICES else DEFAULT_REFRESH
    response.set_cookie(REFRESH_COOKIE, str(period), max_age=365 * 86400, samesite="Lax")
    return response


def refresh_period() -> int:
    """Seconds between live updates chosen by this browser."""
    value = request.cookies.get(REFRESH_COOKIE, "")
    return int(value) if value.isdigit() and int(value) in REFRESH_CHOICES else DEFAULT_REFRESH


@bp.app_errorhandler(404)
@bp.app_errorhandler(405)
def not_found(error: Any) -> Response | tuple[str, int]:
    """Outside /api: a page saying what was not found, inside the usual frame (an unknown URL included).

    /api keeps its JSON `not routable` answer (web/errors.py).
    """
    if request.path == "/api" or request.path.startswith("/api/"):
        return error_response(404, ["not routable"])
    message = getattr(error, "description", "") if request.url_rule is not None else ""
    return render_template("ui/not_found.html", message=message or f"There is no page at {request.path}."), 404
