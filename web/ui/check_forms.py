"""The forms of a check's page (POST, then redirect back): acknowledge, test notifications,
maintenance, enable/disable. The outcome is shown from a message code in the redirect URL.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from flask import redirect, request, url_for
from werkzeug.wrappers import Response

from flapjack_py.errors import InvalidDuration

from . import bp, commands
from .context import config, db, now

MESSAGES = {
    "ack-queued": "Acknowledgement queued: the check goes into unscheduled maintenance when the executive takes it.",
    "test-queued": "Test notifications queued.",
    "unscheduled-ended": "Unscheduled maintenance ended.",
    "no-unscheduled": "There was no unscheduled maintenance to end.",
    "scheduled-created": "Scheduled maintenance created.",
    "scheduled-ended": "Scheduled maintenance ended.",
    "no-scheduled": "That scheduled maintenance is unknown or already over.",
    "enabled": "Check enabled.",
    "disabled": "Check disabled: it is hidden from current checks until its next event.",
    "bad-duration": "Could not read the duration (try '4 hours', '30 minutes' or a number of seconds).",
    "bad-start": "Could not read the start time (use YYYY-MM-DD HH:MM in UTC, or leave it empty for now).",
}
"""Message codes a form's redirect carries, and what the check page says for them."""


@bp.post("/checks/<entity>/<path:check>/acknowledge")
def acknowledge(entity: str, check: str) -> Response:
    """Queue an acknowledgement (duration + comment) on the events queue."""
    form = request.form
    try:
        commands.acknowledge(db(), config().executive.queue, entity, check, form.get("duration", ""),
                             form.get("comment", "").strip() or "Acknowledged from the web UI")
    except InvalidDuration:
        return _back(entity, check, error="bad-duration")
    return _back(entity, check, notice="ack-queued")


@bp.post("/checks/<entity>/<path:check>/test_notifications")
def test_notifications(entity: str, check: str) -> Response:
    """Queue a test_notifications action event."""
    commands.test_notifications(db(), config().executive.queue, entity, check)
    return _back(entity, check, notice="test-queued")


@bp.post("/checks/<entity>/<path:check>/unscheduled_maintenance/end")
def end_unscheduled(entity: str, check: str) -> Response:
    """End the acknowledgement in force."""
    ended = commands.end_unscheduled(db(), entity, check, now())
    return _back(entity, check, notice="unscheduled-ended" if ended else "no-unscheduled")


@bp.post("/checks/<entity>/<path:check>/scheduled_maintenance")
def create_scheduled(entity: str, check: str) -> Response:
    """Create a scheduled maintenance window (start in UTC, empty = now)."""
    form = request.form
    start = _parse_start(form.get("start", ""))
    if start is None:
        return _back(entity, check, error="bad-start")
    try:
        commands.create_scheduled(db(), entity, check, start, form.get("duration", ""), form.get("summary", ""), now())
    except InvalidDuration:
        return _back(entity, check, error="bad-duration")
    return _back(entity, check, notice="scheduled-created")


@bp.post("/checks/<entity>/<path:check>/scheduled_maintenance/end")
def end_scheduled(entity: str, check: str) -> Response:
    """End (or delete, if still to come) the scheduled window starting at form field `start`."""
    start = request.form.get("start", "")
    ended = start.isdigit() and commands.end_scheduled(db(), entity, check, int(start), now())
    return _back(entity, check, notice="scheduled-ended" if ended else "no-scheduled")


@bp.post("/checks/<entity>/<path:check>/enabled")
def set_enabled(entity: str, check: str) -> Response:
    """Enable (`enabled=true`) or disable the check."""
    enabled = request.form.get("enabled") == "true"
    commands.set_enabled(db(), entity, check, enabled, now())
    return _back(entity, check, notice="enabled" if enabled else "disabled")


def _back(entity: str, check: str, **message: str) -> Response:
    """303 to the check's page, carrying a `notice` or `error` code of MESSAGES."""
    args: dict[str, Any] = {"entity": entity, "check": check, **message}
    return redirect(url_for("ui.check", **args), code=303)


def _parse_start(text: str) -> int | None:
    """Unix time of `YYYY-MM-DD HH:MM[:SS]` or `YYYY-MM-DDTHH:MM` in UTC; empty = now; None if unreadable."""
    text = text.strip().replace("T", " ")
    if not text:
        return now()
    for fmt in ("%Y-%m-%d %H:%M:%S", "%Y-%m-%d %H:%M"):
        try:
            return int(datetime.strptime(text, fmt).replace(tzinfo=UTC).timestamp())
        except ValueError:
            continue
    return None
