"""API resource: receivers other systems post to (Prometheus Alertmanager's webhook). Routes on web.api.bp."""

from __future__ import annotations

import json
import time
from typing import Any

from flask import Response

from flapjack_py.errors import InvalidEvent
from flapjack_py.intake import alertmanager
from flapjack_py.intake.json_feed import validate
from flapjack_py.store.events import push_events

from ..errors import ApiError
from . import bp
from .common import answer, ctx, json_body
from .schemas import ok, operation

MAX_ALERTS = 1000
"""Most alerts one webhook call may carry (Alertmanager's `max_alerts` should be at most this)."""


@bp.route("/receivers/alertmanager", methods=["POST"])
def alertmanager_webhook() -> Response:
    """Queue one event per alert of an Alertmanager webhook payload (version 4)."""
    payload = json_body()
    if isinstance(payload, dict) and isinstance(payload.get("alerts"), list) and len(payload["alerts"]) > MAX_ALERTS:
        raise ApiError(413, f"more than {MAX_ALERTS} alerts in one payload; set max_alerts in Alertmanager")
    now = int(time.time())
    try:
        events = alertmanager.events_from_payload(payload, _mapping(), now)
    except InvalidEvent as exc:
        raise ApiError(422, str(exc)) from None
    checked = [validate(json.dumps(event), now) for event in events]
    errors = [f"alert {i}: {', '.join(errs)}" for i, (event, errs) in enumerate(checked) if event is None]
    if errors:
        raise ApiError(422, "; ".join(errors))
    push_events(ctx().client, [event for event, _ in checked if event is not None], ctx().config.executive.queue)
    return answer({"queued": len(checked)}, status=202)


def _mapping() -> alertmanager.LabelMapping:
    """The label names of config `receivers.alertmanager`."""
    found = ctx().config.receivers.alertmanager
    return alertmanager.LabelMapping(entity_labels=tuple(found.entity_labels), check_label=found.check_label,
                                     job_label=found.job_label, severity_label=found.severity_label,
                                     default_entity=found.default_entity)


PAYLOAD = {"type": "object", "required": ["alerts"], "properties": {
    "version": {"type": "string"}, "status": {"type": "string"},
    "alerts": {"type": "array", "maxItems": MAX_ALERTS, "items": {"type": "object", "properties": {
        "status": {"type": "string"}, "labels": {"type": "object", "additionalProperties": {"type": "string"}},
        "annotations": {"type": "object", "additionalProperties": {"type": "string"}},
        "startsAt": {"type": "string"}, "endsAt": {"type": "string"}}}}}}

PATHS: dict[str, Any] = {
    "/receivers/alertmanager": {"post": operation(
        "Prometheus Alertmanager webhook (payload version 4): one event per alert",
        ok({"type": "object", "properties": {"queued": {"type": "integer"}}}, status="202", description="Queued"),
        ("400", "413", "415", "422"), body=PAYLOAD, body_types=("application/json",), tag="receivers")},
}
