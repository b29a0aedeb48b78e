"""The forms of a check's page (POST, then redirect back): acknowledge, test notifications,
maintenance, enable/disable. The outcome is shown from a message code in the redirect URL.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from flask import abort, redirect, request, url_for
from werkzeug.wrappers import Response

from flapjack_py import actions
from flapjack_py.oncall.recurrence import InvalidSeries
from flapjack_py.store.checks import check_exists
from flapjack_py.timeparse import TimeParseError, parse_duration, parse_time

from ..actors import request_acting, request_actor
from . import bp
from .context import config, db, now

MESSAGES = {
    "ack-queued": "Acknowledgement queued: the check goes into unscheduled maintenance when the executive takes it.",
    "test-queued": "Test notifications queued.",
    "unscheduled-ended": "Unscheduled maintenance ended.",
    "no-unscheduled": "There was no unscheduled maintenance to end.",
    "scheduled-created": "Scheduled maintenance created.",
    "series-created": "Recurring maintenance created: its windows for the next two weeks are listed below.",
    "series-deleted": "Recurring maintenance deleted: its future windows are gone, past and current ones stay.",
    "bad-series": "Could not create the recurring maintenance.",
    "scheduled-ended": "Scheduled maintenance ended.",
    "no-scheduled": "That scheduled maintenance is unknown or already over.",
    "enabled": "Check enabled.",
    "disabled": "Check disabled: it is hidden from current checks until its next event.",
    "bad-duration": "Could not read the duration (try '4 hours', '90m', '1h30m' or a number of seconds).",
    "entity-maintenance": "Every check of the entity is in maintenance (checks that appear meanwhile too).",
    "bad-maintenance": "Could not put the entity in maintenance:",
    "bad-start": "Could not read the start time (try 'now', 'in 2 hours', 'tomorrow 02:00', ISO 8601).",
}
"""Message codes a form's redirect carries, and what the check page says for them."""
MAX_DETAIL = 300
"""Longest detail text (what a parser understood) a redirect carries, in characters."""


def known_check(view: Callable[..., Response]) -> Callable[..., Response]:
    """Answer 404 (and do nothing) when the form's check was never seen: no phantom entity or check."""
    @functools.wraps(view)
    def checked(entity: str, check: str) -> Response:
        if not check_exists(db(), entity, check):
            abort(404, description=f"No check '{check}' on entity '{entity}': nothing was done.")
        return view(entity, check)
    return checked


@bp.post("/checks/<entity>/<path:check>/acknowledge")
@known_check
def acknowledge(entity: str, check: str) -> Response:
    """Queue an acknowledgement (duration + comment) on the events queue."""
    form = request.form
    try:
        typed = (form.get("preset") or form.get("duration", ""))[:100]
        actions.acknowledge(db(), config().executive.queue, [(entity, check)],
                            duration=ack_duration(typed, form.get("timezone", "")[:64]),
                            message=form.get("comment", "").strip()[:500], actor=request_actor(),
                            acting=request_acting(), now=now())
    except TimeParseError as exc:
        return _back(entity, check, error="bad-duration", detail=str(exc))
    return _back(entity, check, notice="ack-queued")


@bp.post("/checks/<entity>/<path:check>/test_notifications")
@known_check
def test_notifications(entity: str, check: str) -> Response:
    """Queue a test_notifications action event."""
    actions.test_notifications(db(), config().executive.queue, [(entity, check)], actor=request_actor(),
                               acting=request_acting(), now=now())
    return _back(entity, check, notice="test-queued")


@bp.post("/checks/<entity>/<path:check>/unscheduled_maintenance/end")
@known_check
def end_unscheduled(entity: str, check: str) -> Response:
    """End the acknowledgement in force."""
    ended = actions.end_unscheduled(db(), entity, check, actor=request_actor(), acting=request_acting(), now=now())
    return _back(entity, check, notice="unscheduled-ended" if ended else "no-unscheduled")


@bp.post("/checks/<entity>/<path:check>/scheduled_maintenance")
@known_check
def create_scheduled(entity: str, check: str) -> Response:
    """Create a scheduled maintenance window (start read in the form's time zone, empty = now)."""
    form = request.form
    if form.get("rrule", "").strip():
        return _create_series(entity, check)
    try:
        start = parse_start(form.get("start", ""), form.get("timezone", ""))
    except TimeParseError as exc:
        return _back(entity, check, error="bad-start", detail=str(exc))
    try:
        actions.create_scheduled(db(), entity, check, start, parse_duration(form.get("duration", "")[:100]),
                                 form.get("summary", "")[:1000], actor=request_actor(), acting=request_acting(),
                                 now=now())
    except TimeParseError as exc:
        return _back(entity, check, error="bad-duration", detail=str(exc))
    return _back(entity, check, notice="scheduled-created")


@bp.post("/checks/<entity>/<path:check>/scheduled_maintenance/end")
@known_check
def end_scheduled(entity: str, check: str) -> Response:
    """End (or delete, if still to come) the scheduled window starting at form field `start`."""
    start = request.form.get("start", "")
    ended = start.isdigit() and actions.end_scheduled(db(), entity, check, int(start[:20]), actor=request_actor(),
                                                      acting=request_acting(), now=now())
    return _back(entity, check, notice="scheduled-ended" if ended else "no-scheduled")


def _create_series(entity: str, check: str) -> Response:
    form = request.form
    fields = {"rrule": form.get("rrule", "").strip(), "timezone": form.get("timezone", "").strip() or "UTC",
              "start_time": form.get("start", ""), "duration": form.get("duration", ""),
              "summary": form.get("summary", ""), "checks": [f"{entity}:{check}"]}
    try:
        actions.create_series(db(), fields, actor=request_actor(), acting=request_acting(), now=now())
    except InvalidSeries as exc:
        return _back(entity, check, error="bad-series", detail=str(exc))
    return _back(entity, check, notice="series-created")


@bp.post("/checks/<entity>/<path:check>/maintenance_series/delete")
@known_check
def delete_series(entity: str, check: str) -> Response:
    """Delete the series `id` (form field) and its future windows."""
    actions.delete_series(db(), request.form.get("id", "")[:200], actor=request_actor(), acting=request_acting(),
                          now=now())
    return _back(entity, check, notice="series-deleted")


@bp.post("/checks/<entity>/<path:check>/enabled")
@known_check
def set_enabled(entity: str, check: str) -> Response:
    """Enable (`enabled=true`) or disable the check."""
    enabled = request.form.get("enabled") == "true"
    actions.set_enabled(db(), entity, check, enabled, actor=request_actor(), acting=request_acting(), now=now())
    return _back(entity, check, notice="enabled" if enabled else "disabled")


def _back(entity: str, check: str, **message: str) -> Response:
    """303 to the check's page, carrying a `notice` or `error` code of MESSAGES (and a `detail` text)."""
    if "detail" in message:
        message["detail"] = message["detail"][:MAX_DETAIL]
    args: dict[str, Any] = {"entity": entity, "check": check, **message}
    return redirect(url_for("ui.check", **args), code=303)


def ack_duration(typed: str, zone: str) -> int:
    """Seconds of an acknowledgement typed as a duration (`4h`) or as `until 08:00` (the next such time in `zone`,
    default UTC: the browser's zone when it said). Raises TimeParseError."""
    text = typed.strip()
    if not text.lower().startswith("until "):
        return actions.ack_seconds(text)
    seconds = parse_start(text[len("until "):], zone) - now()
    return seconds + 86400 if seconds <= 0 else seconds


def parse_start(text: str, zone: str) -> int:
    """Unix time of a time a person typed (flapjack_py.timeparse) in `zone` (default UTC); empty = now.

    Raises TimeParseError saying what was understood.
    """
    if not text.strip():
        return now()
    return int(parse_time(text, datetime.fromtimestamp(now(), UTC), zone.strip() or "UTC").timestamp())
