"""API resource: receivers other systems post to. Routes on web.api.bp.

Prometheus Alertmanager's webhook, Grafana unified alerting's (the same mapping), and generic
JSON webhooks each mapped by config `receivers.webhooks.NAME`. All three answer alike: 202 with
the number of events queued, 413 for more than MAX_ALERTS alerts, 422 naming what is wrong with
the payload (and then nothing of it is queued).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

from flask import Response

from flapjack_py.config.receivers import AlertmanagerReceiver
from flapjack_py.errors import InvalidEvent
from flapjack_py.intake import alertmanager, grafana, webhook
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
    _refuse_too_many(_alerts(payload), "; set max_alerts in Alertmanager")
    mapping = _labels(ctx().config.receivers.alertmanager)
    return _queue(lambda now: alertmanager.events_from_payload(payload, mapping, now))


@bp.route("/receivers/grafana", methods=["POST"])
def grafana_webhook() -> Response:
    """Queue one event per alert of a Grafana unified alerting webhook payload (version 1)."""
    payload = json_body()
    _refuse_too_many(_alerts(payload), "; group them less widely (the notification policy's group_by)")
    mapping = _labels(ctx().config.receivers.grafana)
    return _queue(lambda now: grafana.events_from_payload(payload, mapping, now))


@bp.route("/receivers/webhook/<name>", methods=["POST"])
def generic_webhook(name: str) -> Response:
    """Queue one event per alert of a JSON payload, mapped by config `receivers.webhooks.NAME`."""
    mapping = ctx().config.receivers.webhooks.get(name)
    if mapping is None:
        raise ApiError(404, f"no webhook {name[:64]!r}: none of that name under receivers.webhooks")
    payload = json_body()

    def events(now: int) -> list[dict[str, Any]]:
        alerts = webhook.alerts_of(payload, mapping)
        _refuse_too_many(alerts, "")
        return webhook.events_from_alerts(alerts, mapping, now)

    return _queue(events)


def _alerts(payload: Any) -> Any:
    return payload.get("alerts") if isinstance(payload, dict) else None


def _refuse_too_many(alerts: Any, hint: str) -> None:
    if isinstance(alerts, list) and len(alerts) > MAX_ALERTS:
        raise ApiError(413, f"more than {MAX_ALERTS} alerts in one payload{hint}")


def _queue(events_at: Callable[[int], list[dict[str, Any]]]) -> Response:
    """Queue the events `events_at(now)` makes, all or (422, naming every problem) none."""
    now = int(time.time())
    try:
        events = events_at(now)
    except InvalidEvent as exc:
        raise ApiError(422, str(exc)) from None
    checked = [validate(json.dumps(event), now) for event in events]
    errors = [f"alert {i}: {', '.join(errs)}" for i, (event, errs) in enumerate(checked) if event is None]
    if errors:
        raise ApiError(422, "; ".join(errors))
    push_events(ctx().client, [event for event, _ in checked if event is not None], ctx().config.executive.queue)
    return answer({"queued": len(checked)}, status=202)


def _labels(found: AlertmanagerReceiver) -> alertmanager.LabelMapping:
    """The label names of config `receivers.alertmanager` or `receivers.grafana`."""
    return alertmanager.LabelMapping(entity_labels=tuple(found.entity_labels), check_label=found.check_label,
                                     job_label=found.job_label, severity_label=found.severity_label,
                                     default_entity=found.default_entity)


_QUEUED = ok({"type": "object", "properties": {"queued": {"type": "integer"}}}, status="202", description="Queued")
_ALERT = {"status": {"type": "string"}, "labels": {"type": "object", "additionalProperties": {"type": "string"}},
          "annotations": {"type": "object", "additionalProperties": {"type": "string"}},
          "startsAt": {"type": "string"}, "endsAt": {"type": "string"}}
PAYLOAD = {"type": "object", "required": ["alerts"], "properties": {
    "version": {"type": "string"}, "status": {"type": "string"},
    "alerts": {"type": "array", "maxItems": MAX_ALERTS, "items": {"type": "object", "properties": _ALERT}}}}
GRAFANA_PAYLOAD = {"type": "object", "required": ["alerts"], "properties": {
    "version": {"type": "string", "enum": ["1"]}, "status": {"type": "string"}, "orgId": {"type": "integer"},
    "state": {"type": "string"}, "title": {"type": "string"}, "message": {"type": "string"},
    "alerts": {"type": "array", "maxItems": MAX_ALERTS, "items": {"type": "object", "properties": {
        **_ALERT, "values": {"type": ["object", "null"], "additionalProperties": {"type": "number"}},
        "dashboardURL": {"type": "string"}, "panelURL": {"type": "string"}, "silenceURL": {"type": "string"}}}}}}
_NAME = {"name": "name", "in": "path", "required": True, "description": "a key of config receivers.webhooks",
         "schema": {"type": "string", "pattern": "^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$"}}

PATHS: dict[str, Any] = {
    "/receivers/alertmanager": {"post": operation(
        "Prometheus Alertmanager webhook (payload version 4): one event per alert",
        _QUEUED, ("400", "413", "415", "422"), body=PAYLOAD, body_types=("application/json",), tag="receivers")},
    "/receivers/grafana": {"post": operation(
        "Grafana unified alerting webhook (payload version 1): one event per alert, mapped as Alertmanager's",
        _QUEUED, ("400", "413", "415", "422"), body=GRAFANA_PAYLOAD, body_types=("application/json",),
        tag="receivers")},
    "/receivers/webhook/{name}": {"post": operation(
        "Any JSON payload, mapped to events by config receivers.webhooks.NAME (JSON paths, state values)",
        _QUEUED, ("400", "404", "413", "415", "422"), params=[_NAME], body={"type": ["object", "array"]},
        body_types=("application/json",), tag="receivers")},
}
