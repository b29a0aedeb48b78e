"""The recurring-maintenance forms of an entity's page (POST, then redirect back): a series covering every
check of the entity, and deleting one. Messages are check_forms.MESSAGES, shown by the entity page."""

from __future__ import annotations

from typing import Any

from flask import abort, redirect, request, url_for
from werkzeug.wrappers import Response

from flapjack_py import actions
from flapjack_py.oncall.recurrence import InvalidSeries
from flapjack_py.store import entities as entity_store
from flapjack_py.store import maintenance_series as series_store

from ..actors import request_actor
from . import bp
from .check_forms import MAX_DETAIL
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
        actions.create_series(db(), fields, actor=request_actor(), now=now())
    except InvalidSeries as exc:
        return _back(name, error="bad-series", detail=str(exc))
    return _back(name, notice="series-created")


@bp.post("/entities/<name>/maintenance_series/delete")
def delete_entity_series(name: str) -> Response:
    """Delete the series `id` (form field) covering the entity, and its future windows."""
    entity_id = _known(name)
    series_id = request.form.get("id", "")[:200]
    if any(s.id == series_id for s in series_store.series_for_entity(db(), entity_id)):
        actions.delete_series(db(), series_id, actor=request_actor(), now=now())
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
