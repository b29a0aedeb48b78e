"""Contact views: every contact, and one contact's media, notification rules, entities and alerts.

Admins see the same pages with forms (web/ui/people.py, web/ui/rule_forms.py); a refused
form comes back here through `render_contacts`/`render_contact` with its messages.
"""

from __future__ import annotations

from zoneinfo import available_timezones

from flask import abort, render_template, request

from flapjack_py import keys
from flapjack_py.config.media import known_media
from flapjack_py.store import contacts as contact_store
from flapjack_py.store import entities as entity_store
from flapjack_py.store import media as media_store
from flapjack_py.store import read_models as queries
from flapjack_py.store import rules as rule_store
from flapjack_py.store import schedules as schedule_store
from flapjack_py.views import oncall as oncall_view

from . import bp, paging
from .context import db, now
from .form_state import FormState, lookup

NOTICES = {
    "contact-created": "Contact created, with the general notification rule every contact gets.",
    "contact-saved": "Contact saved.",
    "contact-deleted": "Contact deleted, with its media, rules and links.",
    "medium-saved": "Medium saved.",
    "medium-deleted": "Medium removed.",
    "pagerduty-saved": "PagerDuty credentials saved.",
    "pagerduty-deleted": "PagerDuty credentials removed.",
    "rule-created": "Notification rule created.",
    "rule-saved": "Notification rule saved.",
    "rule-deleted": "Notification rule deleted.",
}
"""Notice codes a people form's redirect carries, and what the page then says."""
MEDIA_TYPES = tuple(m for m in known_media() if m != "pagerduty")
"""Media a contact's media form offers (PagerDuty has its own form)."""
TIMEZONES = sorted(available_timezones())
"""Time zone names offered in the contact form."""


@bp.get("/contacts")
def contacts() -> str:
    """Every contact, by last name, a page at a time (and, for admins, the form adding one)."""
    return render_contacts()


def render_contacts(failed: FormState | None = None) -> str:
    page = paging.page_of(contact_store.list_contacts(db()))
    return render_template("ui/contacts.html", contacts=page.items, page=page, forms=lookup(failed),
                           timezones=TIMEZONES, notice=NOTICES.get(request.args.get("notice", "")))


@bp.get("/contacts/<contact_id>")
def contact(contact_id: str) -> str:
    """A contact's media (intervals, rollup thresholds), rules, entities and the alerts sent to them."""
    return render_contact(contact_id)


def render_contact(contact_id: str, failed: FormState | None = None) -> str:
    """The contact page; `failed` is a refused form to show again with its messages."""
    client = db()
    found = contact_store.load_contact(client, contact_id)
    if found is None:
        abort(404, description=f"No contact '{contact_id}'")
    names = entity_store.all_entity_names(client)
    entity_ids = entity_store.entity_ids_for_contact(client, contact_id)
    media = media_store.load_media(client, contact_id, include_pagerduty=False)
    return render_template(
        "ui/contact.html", contact=found, name=queries.full_name(found), media=media,
        missing_media=[m for m in MEDIA_TYPES if m not in media],
        pagerduty=media_store.load_pagerduty_credentials(client, contact_id),
        rules=rule_store.load_rules(client, contact_id, ensure_general=False),
        entities=paging.page_of(sorted(names.get(eid, eid) for eid in entity_ids), paging.page_arg("entities_page")),
        everything=contact_id in entity_store.contact_ids_for_entity(client, keys.ALL_ENTITIES_ID),
        alerts=queries.recent_alerts(client, contact_id, limit=50),
        forms=lookup(failed), timezones=TIMEZONES, notice=NOTICES.get(request.args.get("notice", "")),
        on_call=_on_call(contact_id))


def _on_call(contact_id: str) -> list[oncall_view.ScheduleNow]:
    """The schedules on which the contact is on call now (their current shift)."""
    client = db()
    schedules = schedule_store.load_schedules(client)
    if not schedules:
        return []
    return oncall_view.on_call_in(schedules, contact_id, now(), schedule_store.known_contacts(client))
