"""The status page (Flapjack's self_stats): counters, executives, queues, failing count, refusing servers."""

from __future__ import annotations

from flask import render_template

from flapjack_py.model.delivery import BreakerState, refusing_text
from flapjack_py.notify.enqueue import delivery_queues
from flapjack_py.store import breaker as breaker_store
from flapjack_py.store import status_page

from . import bp, pictures
from .context import config, db, now, raw_redis


@bp.get("/status")
@bp.get("/self_stats")
def status() -> str:
    """Event counters, executive instances, event and delivery queue lengths, the gateways whose server refuses."""
    delivery = delivery_queues(raw_redis(), config())
    breakers = breaker_store.load_breakers(db(), [queue.medium for queue in delivery])
    return render_template("ui/status.html", s=status_page.load_status(
        db(), config().executive.queue, now(), delivery), rates=pictures.recent_rates(db(), now()),
                           breakers=breakers, refusing=_refusing(breakers))


def _refusing(breakers: dict[str, BreakerState]) -> list[tuple[str, str]]:
    """(medium, its health warning) of each open breaker: `email: SMTP refusing since 03:12 UTC, 412 alerts
    waiting`."""
    return [(medium, refusing_text(medium, state, breaker_store.waiting_alerts(db(), medium), now()))
            for medium, state in sorted(breakers.items())]
