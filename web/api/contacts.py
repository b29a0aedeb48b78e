"""API resource: contacts (api-v1.md 4) and a contact's alert history (api-v1.md 14).

Routes are added to web.api.bp; OpenAPI path items go in PATHS.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from flask import Response, request

from flapjack_py.access import shown_address
from flapjack_py.config.media import is_known_medium, known_media
from flapjack_py.errors import AlreadyExists
from flapjack_py.model.contacts import Contact
from flapjack_py.store import alerts as alert_store
from flapjack_py.store import contacts as store
from flapjack_py.store import entities as entity_store
from flapjack_py.store import rules as rule_store
from flapjack_py.store.plumbing.client import StrRedis

from ..auth import current_principal
from ..errors import ApiError
from . import alerts, bp
from .common import (
    PatchOp,
    contact_lock,
    created,
    ctx,
    id_list,
    json_body,
    no_content,
    patch_ops,
    query_time,
    wrapped_list,
)
from .paging import META, PARAMETERS, listing
from .schemas import LOCATION, NO_CONTENT, NULL_STR, STR_LIST, ids_param, ok, operation, patch_body, query, wrapper

NO_CONTACTS = "No valid contacts were submitted"
NAME_FIELDS = ("first_name", "last_name", "email")


@bp.route("/contacts", methods=["GET"])
@bp.route("/contacts/<ids>", methods=["GET"])
def get_contacts(ids: str | None = None) -> Response:
    """Every contact, or the listed ones in request order (404 when none is found)."""
    client = ctx().client
    if ids is None:
        contacts = store.list_contacts(client)
    else:
        wanted = id_list(ids)
        contacts = store.load_contacts(client, wanted)
        if not contacts:
            raise ApiError(404, f"could not find contacts '{', '.join(wanted)}'")
    return listing("contacts", contacts, lambda page: contacts_json(client, page))


@bp.route("/contacts", methods=["POST"])
def post_contacts() -> Response:
    """Create contacts (each with its automatic general rule); 409 when an id is taken."""
    items = wrapped_list("contacts", 422, NO_CONTACTS, NO_CONTACTS)
    for item in items:
        check_contact_item(item)
    with contact_lock():
        try:
            new_ids = store.create_contacts(ctx().client, items)
        except AlreadyExists as exc:
            raise ApiError(409, str(exc)) from None
    return created("contacts", new_ids, new_ids)


@bp.route("/contacts/<ids>", methods=["PATCH"])
def patch_contacts(ids: str) -> Response:
    """Apply JSON-Patch operations to every listed contact (all must exist)."""
    json_body()
    client, wanted = ctx().client, id_list(ids)
    with contact_lock():
        require_contacts(client, wanted)
        ops = patch_ops("contacts")
        for contact_id in wanted:
            for op in ops:
                apply_contact_op(client, contact_id, op)
    return no_content()


@bp.route("/contacts/<ids>", methods=["DELETE"])
def delete_contacts(ids: str) -> Response:
    """Delete every listed contact with its rules, media and links (all must exist)."""
    client, wanted = ctx().client, id_list(ids)
    with contact_lock():
        require_contacts(client, wanted)
        for contact_id in wanted:
            store.delete_contact(client, contact_id)
    return no_content()


@bp.route("/contacts/<contact_id>/alerts", methods=["GET"])
def get_contact_alerts(contact_id: str) -> Response:
    """The contact's alert history, newest first ([addition]; as GET /alerts?contact_id=)."""
    client = ctx().client
    if not store.contact_exists(client, contact_id):
        raise ApiError(404, f"could not find contact '{contact_id}'")
    args = request.args
    found = alert_store.find_alerts(client, contact=contact_id, media=args.get("media") or None,
                                alert_type=args.get("type") or None, start=query_time("start_time"),
                                end=query_time("end_time"), limit=alerts.limit_arg())
    return listing("alerts", found, lambda page: [alerts.present(a) for a in page])


# --- helpers ---------------------------------------------------------------------


def contacts_json(client: StrRedis, contacts: Sequence[Contact]) -> list[dict[str, Any]]:
    """The API representation of contacts (api-v1.md 4), links included."""
    ids = [c.id for c in contacts]
    entities = entity_store.entity_ids_for_contacts(client, ids)
    links = store.contact_links(client, ids)
    role = current_principal().role
    return [{"id": c.id, "first_name": c.first_name, "last_name": c.last_name,
             "email": shown_address(role, "email", c.email) if c.email else c.email,
             "timezone": c.timezone,
             "links": {"entities": entities[c.id],
                       "media": [f"{c.id}_{m}" for m in links[c.id][0] if is_known_medium(m)],
                       "notification_rules": links[c.id][1]}} for c in contacts]


def check_contact_item(item: Any) -> None:
    """422 unless `item` is a contact object: id a string or number; legacy `media` an object of known media."""
    if not isinstance(item, dict):
        raise ApiError(422, NO_CONTACTS)
    cid = item.get("id")
    if cid is not None and (isinstance(cid, bool) or not isinstance(cid, str | int | float) or cid == ""):
        raise ApiError(422, NO_CONTACTS)
    media = item.get("media")
    if media is None:
        return
    if not isinstance(media, dict) or not all(v is None or isinstance(v, str | dict) for v in media.values()):
        raise ApiError(422, NO_CONTACTS)
    for name in media:
        if not is_known_medium(name):
            raise ApiError(422, f"Invalid media type '{name}'")


def require_contacts(client: StrRedis, ids: Sequence[str]) -> None:
    """404 naming the missing ones unless every contact exists."""
    found = {c.id for c in store.load_contacts(client, ids)}
    missing = [cid for cid in ids if cid not in found]
    if missing:
        raise ApiError(404, f"could not find contacts '{', '.join(missing)}'")


def apply_contact_op(client: StrRedis, contact_id: str, op: PatchOp) -> None:
    """One supported contact operation (api-v1.md 4.3); unsupported ones and invalid values are ignored."""
    value = str(op.value) if isinstance(op.value, int | float) and not isinstance(op.value, bool) else op.value
    if op.op == "replace" and op.field in NAME_FIELDS and (value is None or isinstance(value, str)):
        if value is None and op.field == "first_name":
            value = ""  # [py] a contact without first_name would vanish
        store.update_contact(client, contact_id, **cast(dict[str, Any], {op.field: value}))
    elif op.op == "replace" and op.field == "timezone" and (value is None or isinstance(value, str)):
        store.set_timezone(client, contact_id, value)
    elif op.field == "entities" and op.op == "add" and isinstance(value, str):
        if entity_store.entity_name(client, value) is not None:
            entity_store.add_entity_contacts(client, value, [contact_id])
    elif op.field == "entities" and op.op == "remove" and op.member:
        entity_store.remove_entity_contacts(client, op.member, [contact_id])
    elif op.field == "notification_rules" and op.op == "add" and isinstance(value, str):
        if rule_store.load_rule(client, value) is not None:
            rule_store.move_rule(client, value, contact_id)
    elif op.field == "notification_rules" and op.op == "remove" and op.member:
        if rule_store.load_rule(client, op.member) is not None:
            rule_store.delete_rule(client, op.member)


# --- OpenAPI -----------------------------------------------------------------------

CONTACT = {"type": "object", "required": ["id", "first_name", "last_name", "email", "timezone", "links"],
           "properties": {"id": {"type": "string"}, "first_name": NULL_STR, "last_name": NULL_STR,
                          "email": NULL_STR, "timezone": NULL_STR,
                          "links": {"type": "object", "required": ["entities", "media", "notification_rules"],
                                    "properties": {"entities": STR_LIST, "media": STR_LIST,
                                                   "notification_rules": STR_LIST}}}}
MEDIUM_IN = {"type": ["object", "string", "null"], "description": "address, or {address, interval, rollup_threshold}"}
CONTACT_IN = {"type": "object", "properties": {
    "id": {"type": ["string", "number"], "minLength": 1}, "first_name": {"type": "string"},
    "last_name": {"type": "string"}, "email": {"type": "string"}, "timezone": NULL_STR,
    "media": {"type": "object", "propertyNames": {"enum": list(known_media())}, "additionalProperties": MEDIUM_IN}}}
LIST = {"type": "object", "required": ["contacts"], "properties": {"contacts": {"type": "array", "items": CONTACT},
                                                                    "meta": META}}
PATCH_TYPES = ("application/json-patch+json",)

PATHS: dict[str, Any] = {
    "/contacts": {
        "get": operation("List contacts", ok(LIST), ("400",), params=PARAMETERS, tag="contacts"),
        "post": operation("Create contacts", ok(STR_LIST, "201", "Created", LOCATION),
                          ("400", "409", "415", "422", "423"), body=wrapper("contacts", CONTACT_IN), tag="contacts"),
    },
    "/contacts/{ids}": {
        "get": operation("Get contacts", ok(LIST), ("400", "404"), params=[ids_param(), *PARAMETERS], tag="contacts"),
        "patch": operation("Update contacts (JSON-Patch)", NO_CONTENT, ("400", "404", "415", "423"),
                           params=[ids_param()], body=patch_body("contacts"), body_types=PATCH_TYPES,
                           tag="contacts"),
        "delete": operation("Delete contacts", NO_CONTENT, ("404", "423"), params=[ids_param()], tag="contacts"),
    },
    "/contacts/{contact_id}/alerts": {
        "get": operation("A contact's alert history, newest first", ok(alerts.ALERT_LIST), ("400", "404"),
                         params=[ids_param("contact id") | {"name": "contact_id"}, query("media", "medium name"),
                                 query("type", "problem, recovery, acknowledgement or test"),
                                 query("start_time", "ISO 8601"), query("end_time", "ISO 8601"),
                                 query("limit", "at most this many (default 100)", {"type": "integer", "minimum": 1}),
                                 *PARAMETERS], tag="contacts"),
    },
}
