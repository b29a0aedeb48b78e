"""The audit trail page (admins): who wrote what, through which channel and from where, newest first."""

from __future__ import annotations

import time
from datetime import UTC, datetime

from flask import render_template, request

from flapjack_py import timeparse
from flapjack_py.store import audit

from . import bp
from .context import db

LIMIT = 500
"""Entries shown at most."""
FILTERS = ("actor", "target", "action")


@bp.get("/audit")
def audit_trail() -> str | tuple[str, int]:
    """The last LIMIT entries since `since` (default `24 hours ago`), filtered by actor, target and action."""
    typed = request.args.get("since", "")[:100] or "24 hours ago"
    filters = {name: request.args.get(name, "")[:200].strip() for name in FILTERS}
    now = int(time.time())
    try:
        since = int(timeparse.parse_time(typed, datetime.now(UTC), "UTC").timestamp())
    except timeparse.TimeParseError as exc:
        return render_template("ui/audit.html", entries=[], since=typed, filters=filters, error=str(exc)), 400
    found = audit.search(db(), since, now, limit=100_000, **filters)
    return render_template("ui/audit.html", entries=list(reversed(found[-LIMIT:])), since=typed, filters=filters,
                           error=None, more=len(found) > LIMIT)
