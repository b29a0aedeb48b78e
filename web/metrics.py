"""Prometheus exposition at `/metrics` (outside `/api`, where Flapjack's JSON metrics live)."""

from __future__ import annotations

from flask import Blueprint, Response, current_app

from flapjack_py.runtime import metrics

bp = Blueprint("prometheus", __name__)


@bp.route("/metrics", methods=["GET"])
def prometheus_metrics() -> Response:
    """Every flapjack_* metric, read from Redis now."""
    context = current_app.extensions["flapjack"]
    return Response(metrics.render(context.clients, context.config), mimetype=None,
                    content_type=metrics.CONTENT_TYPE)
