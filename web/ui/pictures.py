"""The UI's pictures: a check's state timeline (check page) and sparklines of events/s, alerts/s and queue
length (overview and status page). Data from Redis (flapjack_py.store.samples), shaped by
flapjack_py.views.pictures, drawn in the browser by web/static/charts.js with the vendored uPlot.
"""

from __future__ import annotations

from flask import request

from flapjack_py.store import samples
from flapjack_py.store.plumbing.client import StrRedis
from flapjack_py.views import pictures


def span_arg() -> str:
    """The timeline span asked for in the `span` query argument (24h unless 7d)."""
    span = request.args.get("span", "")
    return span if span in pictures.SPANS else "24h"


def check_timeline(client: StrRedis, entity: str, check: str, span: str, now: int) -> pictures.Timeline:
    """The check's Timeline over the last `span` (a key of pictures.SPANS) up to `now`."""
    start = now - pictures.SPANS[span]
    return pictures.timeline(*samples.timeline_data(client, entity, check, start, now), start, now)


def recent_rates(client: StrRedis, now: int) -> pictures.Rates:
    """Events/s, alerts/s and queue length over the last SPARK_WINDOW seconds."""
    taken = samples.load_samples(client, now - pictures.SPARK_WINDOW)
    return pictures.rates(taken, samples.alerts_between(client, [t for t, _, _ in taken]))
