"""The status page (Flapjack's self_stats): counters, executives, queues, failing count."""

from __future__ import annotations

from flask import render_template

from flapjack_py.notify.enqueue import delivery_queues
from flapjack_py.store import status_page

from . import bp, pictures
from .context import config, db, now, raw_redis


@bp.get("/status")
@bp.get("/self_stats")
def status() -> str:
    """Event counters, executive instances, event and delivery queue lengths."""
    return render_template("ui/status.html", s=status_page.load_status(
        db(), config().executive.queue, now(), delivery_queues(raw_redis(), config())),
                           rates=pictures.recent_rates(db(), now()))
