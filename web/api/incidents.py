"""API resource: incidents (issue 33), problems grouped into one page per outage (flapjack_py.model.incidents).

GET /api/incidents?state=open|resolved, GET /api/incidents/ID, POST /api/incidents/ID/acknowledge
({duration, message}: every check of the incident through the one acknowledgement path, which ends their
escalations), POST /api/incidents/ID/notes ({text}), GET /api/incidents/ID/timeline and
GET /api/incidents/ID/postmortem.md.
"""

from __future__ import annotations

import re
import time
from typing import Any

from flask import Response, request

from flapjack_py import actions, keys
from flapjack_py.store import incidents as store
from flapjack_py.views import incidents as view

from ..actors import request_acting, request_actor
from ..errors import ApiError
from . import bp
from .common import answer, ctx, json_body, no_content
from .schemas import NO_CONTENT, NULL_INT, NULL_STR, STR_LIST, ok, operation, query

ID = re.compile(r"^[0-9a-f]{1,16}-[0-9a-f]{8}$")
MAX_NOTE = 4000
MAX_DURATION = 7 * 86400
MAX_MESSAGE = 1000


def _incident(incident_id: str) -> store.Incident:
    found = store.load(ctx().client, incident_id) if ID.match(incident_id) else None
    if found is None:
        raise ApiError(404, f"could not find incident '{incident_id[:100]}'")
    return found


def _states(*incidents: store.Incident) -> dict[str, str]:
    return store.check_states(ctx().client, [c for i in incidents for c in i.checks])


@bp.route("/incidents", methods=["GET"])
def get_incidents() -> Response:
    state = request.args.get("state", "")
    if state not in ("", "open", "resolved"):
        raise ApiError(400, "state must be open or resolved")
    found = [i for i in store.load_many(ctx().client, store.recent_ids(ctx().client)) if not state or i.state == state]
    found.sort(key=lambda i: (i.state != "open", -i.opened_at))
    states = _states(*found)
    return answer({"incidents": [view.as_json(i, states) for i in found]})


@bp.route("/incidents/<incident_id>", methods=["GET"])
def get_incident(incident_id: str) -> Response:
    found = _incident(incident_id)
    return answer({"incidents": [view.as_json(found, _states(found))]})


@bp.route("/incidents/<incident_id>/acknowledge", methods=["POST"])
def acknowledge_incident(incident_id: str) -> Response:
    found = _incident(incident_id)
    body = json_body()
    if not isinstance(body, dict):
        raise ApiError(422, "the body must be an object {duration, message}")
    duration, message = body.get("duration", 0), body.get("message", "")
    if type(duration) is not int or not 0 <= duration <= MAX_DURATION:
        raise ApiError(422, f"duration must be whole seconds from 0 (the default) to {MAX_DURATION}")
    if not isinstance(message, str) or len(message) > MAX_MESSAGE:
        raise ApiError(422, f"message must be a string of at most {MAX_MESSAGE} characters")
    checks = [keys.split_check_id(c) for c in sorted(found.checks)]
    actions.acknowledge(ctx().client, ctx().config.executive.queue, checks, duration=duration, message=message,
                        actor=request_actor(), acting=request_acting(), now=int(time.time()))
    return no_content()


@bp.route("/incidents/<incident_id>/notes", methods=["POST"])
def post_incident_note(incident_id: str) -> Response:
    found = _incident(incident_id)
    body = json_body()
    text = body.get("text") if isinstance(body, dict) else None
    if not isinstance(text, str) or not text.strip() or len(text) > MAX_NOTE:
        raise ApiError(422, f"text must be a non-empty string of at most {MAX_NOTE} characters")
    store.add_note(ctx().client, found.id, text.strip(), request_actor(), int(time.time()))
    return no_content()


@bp.route("/incidents/<incident_id>/timeline", methods=["GET"])
def get_incident_timeline(incident_id: str) -> Response:
    found = _incident(incident_id)
    return answer({"timeline": view.in_order(store.load_timeline(ctx().client, found.id))})


@bp.route("/incidents/<incident_id>/postmortem.md", methods=["GET"])
def get_incident_postmortem(incident_id: str) -> Response:
    found = _incident(incident_id)
    text = view.postmortem(found, store.load_timeline(ctx().client, found.id), _states(found))
    return Response(text, mimetype="text/markdown", headers={
        "Content-Disposition": f'attachment; filename="incident-{found.id}.md"'})


ID_PARAM = {"name": "incident_id", "in": "path", "required": True, "schema": {"type": "string"}}
INCIDENT: dict[str, Any] = {"type": "object", "required": ["id", "title", "state", "opened_at", "checks"],
                            "properties": {
    "id": {"type": "string"}, "title": {"type": "string"}, "state": {"type": "string", "enum": ["open", "resolved"]},
    "opened_at": {"type": "integer"}, "resolved_at": NULL_INT, "acknowledged_at": NULL_INT,
    "acknowledged_by": NULL_STR, "acknowledged_channel": NULL_STR,
    "checks": {"type": "array", "items": {"type": "object", "properties": {
        "id": {"type": "string"}, "state": {"type": "string"}, "joined_at": {"type": "integer"}}}}}}
INCIDENTS = {"type": "object", "required": ["incidents"], "properties": {
    "incidents": {"type": "array", "items": INCIDENT}}}
ENTRY = {"type": "object", "required": ["at", "kind", "text"], "properties": {
    "at": {"type": "integer"}, "kind": {"type": "string", "enum": list(view.ENTRY_WORDS)}, "text": {"type": "string"},
    "check": {"type": "string"}, "state": {"type": "string"}, "summary": {"type": "string"},
    "actor": {"type": "string"}, "channel": {"type": "string"}, "contact": {"type": "string"},
    "medium": {"type": "string"}, "alert": {"type": "string"}, "type": {"type": "string"},
    "contacts": STR_LIST, "levels": {"type": "array", "items": {"type": "integer"}}}}

PATHS: dict[str, Any] = {
    "/incidents": {"get": operation("Incidents, open ones first", ok(INCIDENTS), ("400",), params=[
        query("state", "open or resolved", {"type": "string", "enum": ["open", "resolved"]})], tag="incidents")},
    "/incidents/{incident_id}": {"get": operation("One incident", ok(INCIDENTS), ("404",), params=[ID_PARAM],
                                                  tag="incidents")},
    "/incidents/{incident_id}/acknowledge": {"post": operation(
        "Acknowledge every check of the incident (ends their escalations)", NO_CONTENT, ("404", "422"),
        params=[ID_PARAM], tag="incidents", body={"type": "object", "properties": {
            "duration": {"type": "integer", "minimum": 0, "maximum": MAX_DURATION},
            "message": {"type": "string", "maxLength": MAX_MESSAGE}}})},
    "/incidents/{incident_id}/notes": {"post": operation(
        "Add a note to the incident's timeline", NO_CONTENT, ("404", "422"), params=[ID_PARAM], tag="incidents",
        body={"type": "object", "required": ["text"], "properties": {
            "text": {"type": "string", "minLength": 1, "maxLength": MAX_NOTE}}})},
    "/incidents/{incident_id}/timeline": {"get": operation(
        "Events, state changes, pages, acknowledgements, notes and escalation steps, in time order",
        ok({"type": "object", "required": ["timeline"], "properties": {"timeline": {"type": "array", "items": ENTRY}}}),
        ("404",), params=[ID_PARAM], tag="incidents")},
    "/incidents/{incident_id}/postmortem.md": {"get": operation(
        "A Markdown postmortem draft", {"200": {"description": "Markdown", "content": {
            "text/markdown": {"schema": {"type": "string"}}}}}, ("404",), params=[ID_PARAM], tag="incidents")},
}
