"""What every page's frame needs: the failing count for the menu and the auto-refresh choice."""

from __future__ import annotations

from typing import Any

from flask import redirect, render_template, request
from werkzeug.wrappers import Response

from flapjack_py import keys

from . import bp
from .context import db, now

REFRESH_COOKIE = "flapjack_refresh"
REFRESH_CHOICES = (0, 15, 30, 60, 300)
"""Auto-refresh periods offered, in seconds (0 = off)."""


@bp.context_processor
def frame() -> dict[str, Any]:
    """Template globals: refresh period, its choices, the failing count and the time of the page."""
    return {"refresh": refresh_period(), "refresh_choices": REFRESH_CHOICES, "page_time": now(),
            "failing_count": db().zcard(keys.failed_checks())}


@bp.get("/refresh")
def set_refresh() -> Response:
    """Remember the auto-refresh period (`every` seconds) in a cookie and go back to `next`."""
    every = request.args.get("every", "0")
    target = request.args.get("next", "/")
    if not target.startswith("/") or target.startswith("//"):
        target = "/"
    response = redirect(target, code=303)
    period = int(every) if every.isdigit() and int(every) in REFRESH_CHOICES else 0
    response.set_cookie(REFRESH_COOKIE, str(period), max_age=365 * 86400, samesite="Lax")
    return response


def refresh_period() -> int:
    """Seconds between automatic reloads chosen by this browser (0 = off)."""
    value = request.cookies.get(REFRESH_COOKIE, "0")
    return int(value) if value.isdigit() and int(value) in REFRESH_CHOICES else 0


@bp.errorhandler(404)
def not_found(error: Any) -> tuple[str, int]:
    """A page saying what was not found, inside the usual frame."""
    return render_template("ui/not_found.html", message=getattr(error, "description", "Not found")), 404
