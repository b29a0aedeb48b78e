"""A recurring-maintenance series' page (every reader) and its editor (responders, as the API's PATCH):
rule (RRULE), time zone, first start (read in that zone, as people type it), duration, summary.

Saving replaces the series' future windows with those of the new rule (store/maintenance_series.replace_series,
as the API does); past and in-progress windows stay. Its targets (checks, entities, tags) are shown, not edited
here: the series is made from a check's or an entity's page, or through the API.
"""

from __future__ import annotations

from datetime import UTC, datetime

from flask import abort, redirect, render_template, request, url_for
from werkzeug.wrappers import Response

from flapjack_py.oncall import recurrence
from flapjack_py.oncall.recurrence import InvalidSeries, Series
from flapjack_py.store import entities as entity_store
from flapjack_py.store import maintenance_series as series_store
from flapjack_py.timeparse import zone_named

from . import bp
from .context import db, now
from .form_state import FormState, posted
from .format import duration_text

LIMITS = {"rrule": 500, "timezone": 64, "start": 200, "duration": 200, "summary": 1000}
"""Longest value read of each field, in characters (the browser's maxlength says the same)."""
SHOWN = 5
"""Upcoming windows listed on the page."""


@bp.get("/maintenance_series/<series_id>")
def maintenance_series(series_id: str) -> str:
    """One series: its rule, what it covers, its next windows and (responders) the editor."""
    return _render(_require(series_id), FormState("series"))


@bp.post("/maintenance_series/<series_id>")
def update_series(series_id: str) -> Response | tuple[str, int]:
    """Change the series' rule, zone, start, duration and summary; its future windows are made again."""
    found = _require(series_id)
    form = posted("series", request.form)
    typed = {field: form.text(field, most) for field, most in LIMITS.items()}
    if form.errors:
        return _render(found, form), 422
    try:
        edited = found
        for field in ("timezone", "rrule", "duration", "summary"):  # the zone first: the start is read in it
            edited = recurrence.changed(edited, field, typed[field] or ("UTC" if field == "timezone" else ""), now())
        if typed["start"] and typed["start"] != start_text(found):
            edited = recurrence.changed(edited, "start_time", typed["start"], now())
        elif edited.timezone != found.timezone:  # the same wall-clock start in the new zone
            edited = recurrence.changed(edited, "start_time", start_text(found), now())
        series_store.check_plan(db(), edited, now())
    except InvalidSeries as exc:
        form.errors["form"] = str(exc)
        return _render(found, form), 422
    series_store.replace_series(db(), edited, now())
    return redirect(url_for("ui.maintenance_series", series_id=found.id, notice="series-saved"), code=303)


def start_text(series: Series) -> str:
    """The series' first start as the editor shows it: wall-clock time in its zone, `YYYY-MM-DD HH:MM`."""
    return datetime.fromtimestamp(series.start, UTC).astimezone(zone_named(series.timezone)).strftime("%Y-%m-%d %H:%M")


def _render(found: Series, form: FormState) -> str:
    client = db()
    names = {eid: entity_store.entity_name(client, eid) or eid for eid in found.entities}
    return render_template("ui/series.html", s=found, f=form, start=start_text(found),
                           duration=duration_text(found.duration), entity_names=names,
                           upcoming=recurrence.next_occurrences(found, now(), SHOWN),
                           saved=request.args.get("notice") == "series-saved")


def _require(series_id: str) -> Series:
    found = series_store.load_series(db(), series_id[:200])
    if found is None:
        abort(404, description=f"No recurring maintenance '{series_id}': nothing was done.")
    return found
