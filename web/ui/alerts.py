"""Alert history: every alert recorded, newest first."""

from __future__ import annotations

from flask import render_template, request

from flapjack_py.store import read_models as queries

from . import bp
from .context import db

PAGE_SIZE = 100
"""Alerts per page."""


@bp.get("/alerts")
def alerts() -> str:
    """Recent alerts (who, which medium, delivery status), newest first, paged."""
    try:
        page = max(int(request.args.get("page", 1)), 1)
    except ValueError:
        page = 1
    found = queries.recent_alerts(db(), offset=(page - 1) * PAGE_SIZE, limit=PAGE_SIZE + 1)
    return render_template("ui/alerts.html", alerts=found[:PAGE_SIZE], page=page, more=len(found) > PAGE_SIZE)
