"""Managing people from the UI (admin): create, change and delete contacts, their media and PagerDuty credentials.

Each form's values go through the JSON API's own checks (web/api: contacts, media)
and the store's writes under the same contact lock, so the UI and the API accept and
refuse the same things with the same messages. A refused form is shown again (422)
with each message next to its field; an accepted one redirects (303) with a notice.
Secrets (PagerDuty service key, token, password) are write-only: never put in a page.
"""

from __future__ import annotations

import logging
from typing import Any, cast

from flask import abort, redirect, request, url_for
from werkzeug.wrappers import Response

from flapjack_py.errors import AlreadyExists
from flapjack_py.model.time_restrictions import is_valid_zone
from flapjack_py.store import contacts as contact_store
from flapjack_py.store import media as media_store

from ..api.common import contact_lock
from ..api.contacts import check_contact_item
from ..api.media import medium_field_errors, medium_from
from ..errors import ApiError
from . import bp
from .contacts import render_contact, render_contacts
from .context import db
from .form_state import ADDRESS_LIMIT, ID_LIMIT, NUMBER_LIMIT, FormState, posted

log = logging.getLogger(__name__)

PAGERDUTY_SECRETS = ("service_key", "token", "password")
"""Credential fields that are written, never shown (a blank field keeps the stored value)."""
PAGERDUTY_PLAIN = ("subdomain", "username")


@bp.post("/contacts")
def create_contact() -> Response | tuple[str, int]:
    """Create a contact (API POST /contacts: same checks, same general rule); id optional."""
    form = posted("contact-new", request.form)
    item = _contact_item(form, with_id=True)
    if not form.errors:
        form.errors.update(_contact_errors(item))
    if not form.errors:
        try:
            with contact_lock():
                new_id = contact_store.create_contacts(db(), [item])[0]
        except AlreadyExists as exc:
            form.errors["id"] = str(exc)
        except ApiError as exc:
            form.errors["form"] = "; ".join(exc.messages)
    if form.errors:
        return render_contacts(form), 422
    log.info("contact %s created from the web UI", new_id)
    return _back(new_id, "contact-created")


@bp.post("/contacts/<contact_id>")
def update_contact(contact_id: str) -> Response | tuple[str, int]:
    """Replace a contact's names, email and time zone (empty email or zone: removed)."""
    _require(contact_id)
    form = posted("contact", request.form)
    item = _contact_item(form, with_id=False)
    if not form.errors:
        form.errors.update(_contact_errors(item))
    if form.errors:
        return render_contact(contact_id, form), 422
    with contact_lock():
        contact_store.update_contact(db(), contact_id, first_name=item["first_name"], last_name=item["last_name"],
                                     email=item["email"], timezone=item["timezone"])
    return _back(contact_id, "contact-saved")


@bp.post("/contacts/<contact_id>/delete")
def delete_contact(contact_id: str) -> Response:
    """Delete a contact with its rules, media and links (API DELETE /contacts/ID)."""
    _require(contact_id)
    with contact_lock():
        contact_store.delete_contact(db(), contact_id)
    return redirect(url_for("ui.contacts", notice="contact-deleted"), code=303)


@bp.post("/contacts/<contact_id>/media")
def save_medium(contact_id: str) -> Response | tuple[str, int]:
    """Add or change one medium: address, repeat interval (s), rollup threshold (API POST .../media)."""
    _require(contact_id)
    kind = request.form.get("type", "")[:ID_LIMIT]
    form = posted(f"medium-{kind}" if request.form.get("existing") else "medium-new", request.form)
    item: dict[str, Any] = {"type": kind, "address": form.text("address", ADDRESS_LIMIT),
                            "interval": form.text("interval", NUMBER_LIMIT) or None,
                            "rollup_threshold": form.text("rollup_threshold", NUMBER_LIMIT) or None}
    if not form.errors:
        form.errors.update(medium_field_errors(contact_id, item))
    if not form.errors and kind == "pagerduty":
        form.errors["type"] = "PagerDuty has its own form (credentials)"
    if form.errors:
        return render_contact(contact_id, form), 422
    with contact_lock():
        media_store.set_media(db(), contact_id, [medium_from(contact_id, item)])
    return _back(contact_id, "medium-saved")


@bp.post("/contacts/<contact_id>/media/<kind>/delete")
def delete_medium(contact_id: str, kind: str) -> Response:
    """Remove one medium (API DELETE /media/ID_TYPE)."""
    _require(contact_id)
    with contact_lock():
        media_store.delete_medium(db(), contact_id, kind)
    return _back(contact_id, "medium-deleted")


@bp.post("/contacts/<contact_id>/pagerduty")
def save_pagerduty(contact_id: str) -> Response | tuple[str, int]:
    """Set PagerDuty credentials; a blank secret keeps the stored one (secrets are never shown)."""
    _require(contact_id)
    form = posted("pagerduty", request.form)
    fields = {name: form.text(name, ADDRESS_LIMIT) for name in (*PAGERDUTY_PLAIN, *PAGERDUTY_SECRETS)}
    current = media_store.load_pagerduty_credentials(db(), contact_id)
    changes = {k: v for k, v in fields.items() if v or k in PAGERDUTY_PLAIN}
    if current is None and not changes.get("service_key"):
        form.errors.setdefault("service_key", "Enter the service key (integration key) of the PagerDuty service")
    if form.errors:
        return render_contact(contact_id, form), 422
    with contact_lock():
        media_store.update_pagerduty_credentials(db(), contact_id, **cast(dict[str, Any], changes))
    return _back(contact_id, "pagerduty-saved")


@bp.post("/contacts/<contact_id>/pagerduty/delete")
def delete_pagerduty(contact_id: str) -> Response:
    """Remove the PagerDuty credentials (API DELETE /pagerduty_credentials/ID)."""
    _require(contact_id)
    with contact_lock():
        media_store.delete_pagerduty_credentials(db(), contact_id)
    return _back(contact_id, "pagerduty-deleted")


# --- helpers ---------------------------------------------------------------------


def _require(contact_id: str) -> None:
    """404 (and nothing done) unless the contact exists."""
    if not contact_store.contact_exists(db(), contact_id):
        abort(404, description=f"No contact '{contact_id}': nothing was done.")


def _back(contact_id: str, notice: str) -> Response:
    return redirect(url_for("ui.contact", contact_id=contact_id, notice=notice), code=303)


def _contact_item(form: FormState, *, with_id: bool) -> dict[str, Any]:
    """The API contact object of the form (empty email/time zone = none)."""
    item: dict[str, Any] = {"first_name": form.text("first_name"), "last_name": form.text("last_name"),
                            "email": form.text("email") or None, "timezone": form.text("timezone") or None}
    if with_id:
        item["id"] = form.text("id", ID_LIMIT) or None
    return item


def _contact_errors(item: dict[str, Any]) -> dict[str, str]:
    """The API's check of a contact object, by field; an unknown time zone (the API ignores it) is refused."""
    errors: dict[str, str] = {}
    try:
        check_contact_item(item)
    except ApiError as exc:
        errors["id"] = "; ".join(exc.messages)
    if item["timezone"] is not None and not is_valid_zone(item["timezone"]):
        errors["timezone"] = f"Unknown time zone '{item['timezone']}' (e.g. Europe/Berlin, America/New_York, UTC)"
    return errors
