"""Contact views: every contact, and one contact's media, notification rules, entities and alerts."""

from __future__ import annotations

from flask import abort, render_template

from flapjack_py import keys
from flapjack_py.store import contacts as contact_store
from flapjack_py.store import entities as entity_store
from flapjack_py.store import rules as rule_store

from . import bp, paging, queries
from .context import db


@bp.get("/contacts")
def contacts() -> str:
    """Every contact, by last name, a page at a time."""
    page = paging.page_of(contact_store.list_contacts(db()))
    return render_template("ui/contacts.html", contacts=page.items, page=page)


@bp.get("/contacts/<contact_id>")
def contact(contact_id: str) -> str:
    """A contact's media (intervals, rollup thresholds), rules, entities and the alerts sent to them."""
    client = db()
    found = contact_store.load_contact(client, contact_id)
    if found is None:
        abort(404, description=f"No contact '{contact_id}'")
    names = entity_store.all_entity_names(client)
    entity_ids = entity_store.entity_ids_for_contact(client, contact_id)
    return render_template(
        "ui/contact.html", contact=found, name=queries.full_name(found),
        media=contact_store.load_media(client, contact_id),
        rules=rule_store.load_rules(client, contact_id, ensure_general=False),
        entities=paging.page_of(sorted(names.get(eid, eid) for eid in entity_ids), paging.page_arg("entities_page")),
        everything=contact_id in entity_store.contact_ids_for_entity(client, keys.ALL_ENTITIES_ID),
        alerts=queries.recent_alerts(client, keys.alerts_by_contact(contact_id), limit=50))
