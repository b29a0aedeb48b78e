"""Incidents in the UI (issue 33): the list (open first), an incident's page (checks, timeline, notes form,
acknowledge button, postmortem download), and the open incidents for the overview's partial
(web/templates/ui/_incidents.html) and the check page's link (_check_incident.html), through template globals.
"""

from __future__ import annotations

import re
from typing import Any

from flask import Response as FlaskResponse
from flask import abort, redirect, render_template, request, url_for
from werkzeug.wrappers import Response

from flapjack_py import actions, keys
from flapjack_py.store import incidents as store
from flapjack_py.timeparse import TimeParseError, parse_duration
from flapjack_py.views import incidents as view

from ..actors import request_acting, request_actor
from . import bp
from .context import config, db, now

ID = re.compile(r"^[0-9a-f]{1,16}-[0-9a-f]{8}$")
NOTICES = {"note-added": "Note added.", "ack-queued": "Acknowledgement of every check queued.",
           "bad-note": "A note is 1 to 4000 characters.", "bad-duration": "That duration was not understood."}
MAX_NOTE = 4000


def _incident(incident_id: str) -> store.Incident:
    found = store.load(db(), incident_id) if ID.match(incident_id) else None
    if found is None:
        abort(404)
    return found


@bp.get("/incidents")
def incidents() -> str:
    """Every recent incident, open ones first."""
    found = store.load_many(db(), store.recent_ids(db()))
    found.sort(key=lambda i: (i.state != "open", -i.opened_at))
    return render_template("ui/incidents.html", incidents=found)


@bp.get("/incidents/<incident_id>")
def incident(incident_id: str) -> str:
    """One incident: its checks now, its timeline, notes and acknowledgement forms."""
    found = _incident(incident_id)
    states = store.check_states(db(), list(found.checks))
    return render_template("ui/incident.html", i=found, states=states, split=keys.split_check_id,
                           timeline=view.in_order(store.load_timeline(db(), found.id)),
                           notice=NOTICES.get(request.args.get("notice", "")))


@bp.post("/incidents/<incident_id>/notes")
def incident_note(incident_id: str) -> Response:
    found = _incident(incident_id)
    text = request.form.get("text", "").strip()
    if not text or len(text) > MAX_NOTE:
        return redirect(url_for("ui.incident", incident_id=found.id, notice="bad-note"), code=303)
    store.add_note(db(), found.id, text, request_actor(), now())
    return redirect(url_for("ui.incident", incident_id=found.id, notice="note-added"), code=303)


@bp.post("/incidents/<incident_id>/acknowledge")
def acknowledge_incident(incident_id: str) -> Response:
    """Acknowledge every check of the incident through the one action path."""
    found = _incident(incident_id)
    try:
        seconds = parse_duration(request.form.get("duration", "")[:100]) if request.form.get("duration") else 0
    except TimeParseError:
        return redirect(url_for("ui.incident", incident_id=found.id, notice="bad-duration"), code=303)
    actions.acknowledge(db(), config().executive.queue, [keys.split_check_id(c) for c in sorted(found.checks)],
                        duration=seconds or 0, message=request.form.get("message", "").strip()[:500],
                        actor=request_actor(), acting=request_acting(), now=now())
    return redirect(url_for("ui.incident", incident_id=found.id, notice="ack-queued"), code=303)


@bp.get("/incidents/<incident_id>/postmortem.md")
def incident_postmortem(incident_id: str) -> FlaskResponse:
    found = _incident(incident_id)
    text = view.postmortem(found, store.load_timeline(db(), found.id), store.check_states(db(), list(found.checks)))
    return FlaskResponse(text, mimetype="text/markdown",
                         headers={"Content-Disposition": f'attachment; filename="incident-{found.id}.md"'})


@bp.app_context_processor
def _incident_globals() -> dict[str, Any]:
    """`open_incidents()` for the overview's partial and `incident_of(entity, check)` for the check page."""
    def open_incidents() -> list[store.Incident]:
        found = [i for i in store.load_many(db(), store.recent_ids(db(), 50)) if i.state == "open"]
        return sorted(found, key=lambda i: -i.opened_at)

    def incident_of(entity: str, check: str) -> store.Incident | None:
        found = store.check_incident(db(), entity, check)
        return store.load(db(), found) if found else None

    return {"open_incidents": open_incidents, "incident_of": incident_of}
