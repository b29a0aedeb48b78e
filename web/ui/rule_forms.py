"""Notification rules in the UI (admin): a page per rule with a weekly editor for its time restrictions.

The rule's fields go through flapjack_py.model.rules' API validation (rule_field_errors: the API's
messages, by field) and store/rules.py's writes. Time restrictions are edited as weekly
windows (flapjack_py.views.weekly) in the contact's time zone; restrictions of other shapes
(made through the API) are kept as they are unless their "keep" box is cleared.
"""

from __future__ import annotations

import logging
import uuid
from typing import Any

from flask import abort, redirect, render_template, request, url_for
from werkzeug.wrappers import Response

from flapjack_py.config.media import known_media
from flapjack_py.errors import AlreadyExists
from flapjack_py.model.rules import (
    LIST_FIELDS,
    MATCH_FIELDS,
    SEVERITIES,
    NotificationRule,
    rule_field_errors,
    rule_from_fields,
)
from flapjack_py.store import contacts as contact_store
from flapjack_py.store import read_models as queries
from flapjack_py.store import rules as rule_store
from flapjack_py.views.weekly import DAYS, InvalidWindow, WeeklyWindow, from_restriction, parse_window, to_restriction

from . import bp
from .context import db
from .form_state import FormState, posted

log = logging.getLogger(__name__)

BLANK_ROWS = 2
"""Empty weekly-window rows offered below the rule's windows."""
MAX_ROWS = 50
"""Most weekly-window rows read from one form."""


@bp.get("/contacts/<contact_id>/rules/new")
def new_rule(contact_id: str) -> str:
    """The form of a new rule (all fields empty: a general rule that alerts on nothing)."""
    _require_contact(contact_id)
    return _render(contact_id, None, FormState("rule"))


@bp.post("/contacts/<contact_id>/rules")
def create_rule(contact_id: str) -> Response | tuple[str, int]:
    """Create a rule from the form (API POST /contacts/ID/notification_rules)."""
    _require_contact(contact_id)
    form = posted("rule", request.form)
    fields = _fields(form, [])
    if form.errors:
        return _render(contact_id, None, form), 422
    rule = rule_from_fields(str(uuid.uuid4()), contact_id, fields)
    try:
        rule_store.create_rule(db(), rule)
    except AlreadyExists as exc:  # a fresh UUID: only if Redis already holds it
        form.errors["form"] = str(exc)
        return _render(contact_id, None, form), 422
    return _back(contact_id, "rule-created")


@bp.get("/contacts/<contact_id>/rules/<rule_id>")
def rule(contact_id: str, rule_id: str) -> str:
    """One rule's form: matching, media per severity, blackholes, weekly windows."""
    found = _require_rule(contact_id, rule_id)
    return _render(contact_id, found, FormState("rule"))


@bp.post("/contacts/<contact_id>/rules/<rule_id>")
def update_rule(contact_id: str, rule_id: str) -> Response | tuple[str, int]:
    """Replace every field of the rule with the form's (API PATCH /notification_rules/ID)."""
    found = _require_rule(contact_id, rule_id)
    form = posted("rule", request.form)
    custom = [entry for entry in found.time_restrictions or [] if from_restriction(entry) is None]
    kept = [entry for i, entry in enumerate(custom) if request.form.get(f"keep-{i}")]
    fields = _fields(form, kept)
    if form.errors:
        return _render(contact_id, found, form), 422
    rule_store.save_rule(db(), rule_from_fields(rule_id, contact_id, fields))
    return _back(contact_id, "rule-saved")


@bp.post("/contacts/<contact_id>/rules/<rule_id>/delete")
def delete_rule(contact_id: str, rule_id: str) -> Response:
    """Delete the rule (API DELETE /notification_rules/ID)."""
    _require_rule(contact_id, rule_id)
    rule_store.delete_rule(db(), rule_id)
    return _back(contact_id, "rule-deleted")


# --- the form ------------------------------------------------------------------


def _fields(form: FormState, kept: list[Any]) -> dict[str, Any]:
    """API rule fields from the form; refused parts go into form.errors (the API's messages by field)."""
    fields: dict[str, Any] = {name: form.lines(name, commas=not name.startswith("regex")) for name in MATCH_FIELDS}
    for severity in SEVERITIES:
        chosen = request.form.getlist(f"{severity}_media")
        fields[f"{severity}_media"] = [m for m in known_media() if m in chosen]
        fields[f"{severity}_blackhole"] = bool(request.form.get(f"{severity}_blackhole"))
    fields["time_restrictions"] = [*kept, *[to_restriction(w) for w in _windows(form)]]
    for name, messages in rule_field_errors(fields).items():
        form.errors.setdefault(name, "; ".join(messages))
    return fields


def _windows(form: FormState) -> list[WeeklyWindow]:
    """The weekly windows of the editor's rows; a row with no day and no time is empty and skipped."""
    windows = []
    for i in range(min(_int(request.form.get("rows")), MAX_ROWS)):
        days = request.form.getlist(f"tr-{i}-days")
        start, end = request.form.get(f"tr-{i}-start", ""), request.form.get(f"tr-{i}-end", "")
        if request.form.get(f"tr-{i}-remove") or not (days or start.strip() or end.strip()):
            continue
        try:
            windows.append(parse_window(days, start, end))
        except InvalidWindow as exc:
            form.errors.setdefault(f"tr-{i}-{exc.field}", str(exc))
    return windows


def _render(contact_id: str, found: NotificationRule | None, form: FormState) -> str:
    contact = contact_store.load_contact(db(), contact_id)
    assert contact is not None  # the views check first
    stored = list(found.time_restrictions or []) if found else []
    return render_template(
        "ui/rule.html", contact=contact, name=queries.full_name(contact), rule=found, f=form,
        zone=contact.timezone, rows=_rows(form, stored), custom=[e for e in stored if from_restriction(e) is None],
        lists={name: "\n".join(getattr(found, name) or []) if found else "" for name in MATCH_FIELDS},
        media=known_media(), severities=SEVERITIES, days=DAYS, list_fields=LIST_FIELDS)


def _rows(form: FormState, stored: list[Any]) -> list[dict[str, Any]]:
    """The editor's rows: as posted when the form was refused, else the rule's windows plus blank rows."""
    if form.values:
        count = min(_int(form.values.get("rows")), MAX_ROWS)
        return [{"days": [int(d) for d in form.values_of(f"tr-{i}-days", []) if d.isdigit()],
                 "start": form.value(f"tr-{i}-start"), "end": form.value(f"tr-{i}-end"), "text": ""}
                for i in range(count)]
    windows = [w for w in (from_restriction(e) for e in stored) if w is not None]
    rows = [{"days": list(w.days), "start": w.start.strftime("%H:%M"), "end": w.end.strftime("%H:%M"),
             "text": w.describe()} for w in windows]
    return rows + [{"days": [], "start": "", "end": "", "text": ""} for _ in range(BLANK_ROWS)]


def _require_contact(contact_id: str) -> None:
    if not contact_store.contact_exists(db(), contact_id):
        abort(404, description=f"No contact '{contact_id}': nothing was done.")


def _require_rule(contact_id: str, rule_id: str) -> NotificationRule:
    _require_contact(contact_id)
    found = rule_store.load_rule(db(), rule_id)
    if found is None or found.contact_id != contact_id:
        abort(404, description=f"No notification rule '{rule_id}' of contact '{contact_id}': nothing was done.")
    return found


def _back(contact_id: str, notice: str) -> Response:
    return redirect(url_for("ui.contact", contact_id=contact_id, notice=notice, _anchor="rules"), code=303)


def _int(value: str | None) -> int:
    return int(value) if value and value.isdigit() and len(value) < 4 else 0
