"""The status page (Flapjack's self_stats): counters, executives, queues, failing count."""

from __future__ import annotations

from flask import render_template

from . import bp, stats
from .context import config, db, now, raw_redis


@bp.get("/status")
@bp.get("/self_stats")
def status() -> str:
    """Event counters, executive instances, event and delivery queue lengths."""
    return render_template("ui/status.html", s=stats.load_status(db(), raw_redis(), config(), now()))
