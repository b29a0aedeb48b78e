"""The maintenance forms of an entity's page (POST, then redirect back): a series covering every check of the
entity, deleting one, and one-tap maintenance of every check (1 h, 4 h, until a time). Messages are
check_forms.MESSAGES, shown by the entity page."""

from __future__ import annotations

import time
from typing import Any

from flask import abort, redirect, request, url_for
from werkzeug.wrappers import Response

from flapjack_py import actions
from flapjack_py.oncall.recurrence import InvalidSeries
from flapjack_py.store import checks as check_store
from flapjack_py.store import entities as entity_store
from flapjack_py.store import maintenance_series as series_store
from flapjack_py.timeparse import TimeParseError

from ..actors import request_acting, request_actor
from . import bp
from .check_forms import MAX_DETAIL, parse_start
from .context import db, now

LIMITS = {"rrule": 500, "timezone": 64, "start": 200, "duration": 200, "summary": 1000}
"""Longest value used of each form field, in characters."""


@bp.post("/entities/<name>/maintenance_series")
def create_entity_series(name: str) -> Response:
    """Create a recurring maintenance series over every check of the entity (start read in its time zone)."""
    entity_id = _known(name)
    form = {field: request.form.get(field, "")[:most].strip() for field, most in LIMITS.items()}
    fields = {"rrule": form["rrule"], "timezone": form["timezone"] or "UTC", "start_time": form["start"],
              "duration": form["duration"], "summary": form["summary"], "entities": [entity_id]}
    try:
        actions.create_series(db(), fields, actor=request_actor(), acting=request_acting(), now=now())
    except InvalidSeries as exc:
        return _back(name, error="bad-series", detail=str(exc))
    return _back(name, notice="series-created")


@bp.post("/entities/<name>/maintenance_series/delete")
def delete_entity_series(name: str) -> Response:
    """Delete the series `id` (form field) covering the entity, and its future windows."""
    entity_id = _known(name)
    series_id = request.form.get("id", "")[:200]
    if any(s.id == series_id for s in series_store.series_for_entity(db(), entity_id)):
        actions.delete_series(db(), series_id, actor=request_actor(), acting=request_acting(), now=now())
    return _back(name, notice="series-deleted")


def _known(name: str) -> str:
    """The entity's id; 404 (and nothing done) when there is no such entity."""
    entity_id = entity_store.entity_id(db(), name)
    if entity_id is None:
        abort(404, description=f"No entity '{name}': nothing was done.")
    return entity_id


def _back(name: str, **message: str) -> Response:
    if "detail" in message:
        message["detail"] = message["detail"][:MAX_DETAIL]
    args: dict[str, Any] = {"name": name, **message}
    return redirect(url_for("ui.entity", **args), code=303)


PRESETS = {"1h": 3600, "4h": 4 * 3600}
"""The entity page's one-tap maintenance durations."""
MAX_UNTIL = 14 * 86400
"""Longest maintenance "until a time" may make, in seconds."""


@bp.post("/entities/<name>/maintenance")
def entity_maintenance(name: str) -> Response:
    """Put every check of the entity in scheduled maintenance from now, for a preset (1 h, 4 h) or until a typed
    time, with one confirmation (in the browser).

    A series of one occurrence over the entity (beginning this minute) covers checks that appear during the window
    (the executive's housekeeping writes their windows); each current check also gets its window at once, made
    by the user."""
    entity_id = _known(name)
    at, actor = now(), request_actor()
    refused = actions.refused(db(), [(name, c) for c in check_store.current_check_names(db(), name)], request_acting())
    if refused:  # the whole entity or nothing: no series over checks some of which the user's teams do not own
        abort(403, description=f"{actor.name} may not put {name} in maintenance: no team of theirs owns "
                               f"{', '.join(f'{e}:{c}' for e, c in refused[:5])}")
    minute = at - at % 60
    try:
        preset = request.form.get("preset", "")[:20]
        end = at + (PRESETS.get(preset) or _until(request.form.get("until", "")[:LIMITS["start"]],
                                                  request.form.get("timezone", "")[:LIMITS["timezone"]]))
        summary = request.form.get("summary", "")[:LIMITS["summary"]].strip() or f"Maintenance of every check of {name}"
        fields = {"rrule": "FREQ=DAILY;COUNT=1", "timezone": "UTC", "duration": end - minute, "summary": summary,
                  "start_time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(minute)), "entities": [entity_id]}
        series = actions.create_series(db(), fields, actor=actor, now=minute - 1)  # its occurrence begins this minute
    except (InvalidSeries, TimeParseError) as exc:
        return _back(name, error="bad-maintenance", detail=str(exc))
    for entity, check in series_store.target_checks(db(), series):
        actions.create_scheduled(db(), entity, check, minute, end - minute, summary, actor=actor, now=at)
    return _back(name, notice="entity-maintenance")


def _until(typed: str, zone: str) -> int:
    """Seconds from now until a time typed as people type it (`18:00`, `tomorrow 09:00`) in `zone`."""
    if not typed.strip():
        raise TimeParseError("type a time (18:00, tomorrow 09:00) or choose 1 h or 4 h")
    seconds = parse_start(typed, zone) - now()
    seconds = seconds + 86400 if seconds <= 0 else seconds
    if seconds > MAX_UNTIL:
        raise TimeParseError(f"{typed!r} is more than {MAX_UNTIL // 86400} days away")
    return seconds
