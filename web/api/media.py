"""API resource: media of contacts, ids `CONTACTID_TYPE` (api-v1.md 5).

Routes are added to web.api.bp; OpenAPI path items go in PATHS.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, cast

from flask import Response

from flapjack_py.access import shown_address
from flapjack_py.config.media import is_known_medium, known_media
from flapjack_py.model.contacts import Medium
from flapjack_py.store import contacts as store
from flapjack_py.store import media as media_store
from flapjack_py.store.plumbing.client import StrRedis, to_int

from ..auth import current_principal
from ..errors import ApiError
from . import bp
from .common import PatchOp, contact_lock, created, ctx, id_list, json_body, no_content, patch_ops, wrapped_list
from .paging import META, PARAMETERS, listing
from .schemas import LOCATION, NO_CONTENT, NULL_INT, STR_LIST, ids_param, ok, operation, patch_body, wrapper

NO_MEDIA = "No valid media were submitted"
MEDIA_TYPES = tuple(m for m in known_media() if m != "pagerduty")
"""Media the media routes address (PagerDuty has its own resource, api-v1.md 6)."""


@bp.route("/contacts/<contact_id>/media", methods=["POST"])
def post_media(contact_id: str) -> Response:
    """Upsert media of a contact; the ids are always `<contact_id>_<type>`."""
    items = wrapped_list("media", 422, NO_MEDIA, NO_MEDIA)
    for item in items:
        check_medium_item(contact_id, item)
    client = ctx().client
    with contact_lock():
        if not store.contact_exists(client, contact_id):
            raise ApiError(422, f"Contact id: '{contact_id}' could not be loaded")
        media_store.set_media(client, contact_id, [medium_from(contact_id, item) for item in items])
    new_ids = [f"{contact_id}_{item['type']}" for item in items]
    return created("media", new_ids, new_ids)


@bp.route("/media", methods=["GET"])
@bp.route("/media/<ids>", methods=["GET"])
def get_media(ids: str | None = None) -> Response:
    """Every medium of every contact, or the listed ones that exist (unknown contact: 404)."""
    client = ctx().client
    if ids is None:
        media = [m for c in store.list_contacts(client) for m in present_media(client, c.id, MEDIA_TYPES)]
    else:
        media = resolve_media(client, id_list(ids))
    return listing("media", media, media_json)


@bp.route("/media/<ids>", methods=["PATCH"])
def patch_media(ids: str) -> Response:
    """Replace address, interval or rollup_threshold of every listed medium that exists."""
    json_body()
    client = ctx().client
    media = resolve_media(client, id_list(ids))
    ops = patch_ops("media")
    for medium in media:
        for op in ops:
            apply_medium_op(client, medium, op)
    return no_content()


@bp.route("/media/<ids>", methods=["DELETE"])
def delete_media(ids: str) -> Response:
    """Remove every listed medium that exists."""
    client = ctx().client
    for medium in resolve_media(client, id_list(ids)):
        media_store.delete_medium(client, medium.contact_id, medium.type)
    return no_content()


# --- helpers ---------------------------------------------------------------------


def parse_media_id(media_id: str) -> tuple[str, str] | None:
    """(contact id, type) of `<contact id>_<type>`: the longest contact id that leaves `_<type>`; None if none."""
    matches = [(media_id[:-len(name) - 1], name) for name in MEDIA_TYPES
               if media_id.endswith("_" + name) and len(media_id) > len(name) + 1]
    return max(matches, key=lambda m: len(m[0])) if matches else None


def resolve_media(client: StrRedis, ids: Sequence[str]) -> list[Medium]:
    """The existing media among `ids` in order; 422 for an unparseable id, 404 for an unknown contact."""
    wanted = []
    for media_id in ids:
        parsed = parse_media_id(media_id)
        if parsed is None:
            raise ApiError(422, f"Could not get contact_id from media_id '{media_id}'")
        wanted.append(parsed)
    contact_ids = list(dict.fromkeys(cid for cid, _ in wanted))
    known = {c.id for c in store.load_contacts(client, contact_ids)}
    for cid in contact_ids:
        if cid not in known:
            raise ApiError(404, f"could not find contact '{cid}'")
    media = {cid: media_store.load_media(client, cid) for cid in contact_ids}
    return [media[cid][kind] for cid, kind in wanted if kind in media[cid]]


def present_media(client: StrRedis, contact_id: str, types: Sequence[str]) -> list[Medium]:
    """The contact's media of the given types, in hash order."""
    return [m for m in media_store.load_media(client, contact_id, include_pagerduty=False).values() if m.type in types]


def media_json(media: Sequence[Medium]) -> list[dict[str, Any]]:
    """The API representation of media (api-v1.md 5)."""
    role = current_principal().role
    return [{"id": m.id, "type": m.type, "address": shown_address(role, m.type, m.address), "interval": m.interval,
             "rollup_threshold": m.rollup_threshold, "links": {"contacts": [m.contact_id]}} for m in media]


def check_medium_item(contact_id: str, item: Any) -> None:
    """422 unless `item` is a medium object with a conformant id (if any), known type, address and integers."""
    if not isinstance(item, dict):
        raise ApiError(422, NO_MEDIA)
    problems = medium_field_errors(contact_id, item)
    if problems:
        raise ApiError(422, next(iter(problems.values())))


def medium_field_errors(contact_id: str, item: dict[str, Any]) -> dict[str, str]:
    """The API's message for each field of a medium object that is wrong, in checking order ({} = valid).

    The web UI shows them next to its form fields; check_medium_item answers the first one.
    """
    if item.get("id") is not None and item["id"] not in [f"{contact_id}_{name}" for name in known_media()]:
        return {"id": "Media creation cannot include non-conformant IDs"}
    kind = item.get("type")
    if not isinstance(kind, str) or not is_known_medium(kind):
        return {"type": f"Invalid media type '{'' if kind is None else kind}'"}
    if kind == "pagerduty":
        return {}
    errors = {} if is_address(item.get("address")) else {"address": NO_MEDIA}
    errors.update({name: NO_MEDIA for name in ("interval", "rollup_threshold") if not is_count(item.get(name))})
    return errors


def medium_from(contact_id: str, item: dict[str, Any]) -> Medium | None:
    """The medium a checked item describes (None for pagerduty, which is not stored here)."""
    if item["type"] == "pagerduty":
        return None
    return Medium(contact_id=contact_id, type=item["type"], address=str(item["address"]),
                  interval=to_int(item.get("interval")), rollup_threshold=to_int(item.get("rollup_threshold")))


def is_address(value: Any) -> bool:
    """A string address (a number is taken as its digits)."""
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def is_count(value: Any) -> bool:
    """null, an integer, or a string starting with digits (stored values are read by leading digits)."""
    if value is None or (isinstance(value, int) and not isinstance(value, bool)):
        return True
    if isinstance(value, float):
        return math.isfinite(value)
    return isinstance(value, str) and to_int(value) is not None


def apply_medium_op(client: StrRedis, medium: Medium, op: PatchOp) -> None:
    """One `replace` of address/interval/rollup_threshold; invalid values are ignored (api-v1.md 2)."""
    if op.op != "replace":
        return
    if op.field == "address" and is_address(op.value):
        media_store.update_medium(client, medium.contact_id, medium.type, address=str(op.value))
    elif op.field in ("interval", "rollup_threshold") and is_count(op.value):
        value = None if op.value is None else to_int(op.value)
        media_store.update_medium(client, medium.contact_id, medium.type, **cast(dict[str, Any], {op.field: value}))


# --- OpenAPI -----------------------------------------------------------------------

MEDIUM = {"type": "object", "required": ["id", "type", "address", "interval", "rollup_threshold", "links"],
          "properties": {"id": {"type": "string"}, "type": {"type": "string", "enum": list(MEDIA_TYPES)},
                         "address": {"type": "string"}, "interval": NULL_INT, "rollup_threshold": NULL_INT,
                         "links": {"type": "object", "required": ["contacts"], "properties": {"contacts": STR_LIST}}}}
MEDIUM_IN = {"type": "object", "required": ["type", "address"], "properties": {
    "id": {"type": "string", "description": "optional; must be <contact_id>_<type>"},
    "type": {"type": "string", "enum": list(known_media())}, "address": {"type": "string"},
    "interval": NULL_INT, "rollup_threshold": NULL_INT}}
LIST = {"type": "object", "required": ["media"], "properties": {"media": {"type": "array", "items": MEDIUM},
                                                                "meta": META}}

PATHS: dict[str, Any] = {
    "/contacts/{contact_id}/media": {
        "post": operation("Create or update media of a contact", ok(STR_LIST, "201", "Created", LOCATION),
                          ("400", "415", "422", "423"), params=[ids_param("contact id") | {"name": "contact_id"}],
                          body=wrapper("media", MEDIUM_IN), tag="media"),
    },
    "/media": {"get": operation("List media", ok(LIST), ("400",), params=PARAMETERS, tag="media")},
    "/media/{ids}": {
        "get": operation("Get media", ok(LIST), ("400", "404", "422"), params=[ids_param(), *PARAMETERS], tag="media"),
        "patch": operation("Update media (JSON-Patch)", NO_CONTENT, ("400", "404", "415", "422"),
                           params=[ids_param()], body=patch_body("media"),
                           body_types=("application/json-patch+json",), tag="media"),
        "delete": operation("Delete media", NO_CONTENT, ("404", "422"), params=[ids_param()], tag="media"),
    },
}
