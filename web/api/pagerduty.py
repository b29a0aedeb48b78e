"""API resource: a contact's PagerDuty credentials, id = the contact id (api-v1.md 6).

Routes are added to web.api.bp; OpenAPI path items go in PATHS.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from flask import Response

from flapjack_py.access import Role, shown_address, shown_credential
from flapjack_py.store import contacts as store
from flapjack_py.store import media as media_store
from flapjack_py.store.plumbing.client import StrRedis

from ..auth import current_principal
from ..errors import ApiError
from . import bp
from .common import PatchOp, contact_lock, created, ctx, id_list, json_body, no_content, patch_ops, wrapped_list
from .paging import META, PARAMETERS, listing
from .schemas import LOCATION, NO_CONTENT, STR_LIST, ids_param, ok, operation, patch_body, wrapper

NO_CREDENTIALS = "No valid pagerduty credentials were submitted"
FIELDS = ("service_key", "subdomain", "token", "username", "password")
SECRET_FIELDS = frozenset({"service_key", "token", "password"})
"""Fields only admins read; others get flapjack_py.access.MASK."""


@bp.route("/contacts/<contact_id>/pagerduty_credentials", methods=["POST"])
def post_pagerduty_credentials(contact_id: str) -> Response:
    """Create or overwrite a contact's credentials from the last item of the list."""
    items = wrapped_list("pagerduty_credentials", 422, NO_CREDENTIALS, NO_CREDENTIALS)
    if not items or not isinstance(items[-1], dict):
        raise ApiError(422, NO_CREDENTIALS)
    credentials = items[-1]
    if not set(credentials) <= set(FIELDS) or not all(is_value(v) for v in credentials.values()):
        raise ApiError(422, "Pagerduty credential data has incorrect fields")
    client = ctx().client
    with contact_lock():
        if not store.contact_exists(client, contact_id):
            raise ApiError(422, f"Contact id: '{contact_id}' could not be loaded")
        media_store.set_pagerduty_credentials(client, contact_id, {k: text(v) for k, v in credentials.items()})
    return created("pagerduty_credentials", [contact_id], [contact_id])


@bp.route("/pagerduty_credentials", methods=["GET"])
@bp.route("/pagerduty_credentials/<ids>", methods=["GET"])
def get_pagerduty_credentials(ids: str | None = None) -> Response:
    """The credentials of every contact that has some, or of the listed contacts (unknown contact: 404)."""
    client = ctx().client
    if ids is None:
        contact_ids = [c.id for c in store.list_contacts(client)]
    else:
        contact_ids = id_list(ids)
        require_contacts(client, contact_ids)
    found = [(cid, media_store.load_pagerduty_credentials(client, cid)) for cid in contact_ids]
    return listing("pagerduty_credentials", [(cid, creds) for cid, creds in found if creds is not None],
                   credentials_json)


@bp.route("/pagerduty_credentials/<ids>", methods=["PATCH"])
def patch_pagerduty_credentials(ids: str) -> Response:
    """Replace single fields of the listed contacts' credentials (created empty when missing)."""
    json_body()
    client, contact_ids = ctx().client, id_list(ids)
    require_contacts(client, contact_ids)
    ops = patch_ops("pagerduty_credentials")
    for contact_id in contact_ids:
        for op in ops:
            apply_credentials_op(client, contact_id, op)
    return no_content()


@bp.route("/pagerduty_credentials/<ids>", methods=["DELETE"])
def delete_pagerduty_credentials(ids: str) -> Response:
    """Remove the listed contacts' credentials."""
    client, contact_ids = ctx().client, id_list(ids)
    require_contacts(client, contact_ids)
    for contact_id in contact_ids:
        media_store.delete_pagerduty_credentials(client, contact_id)
    return no_content()


# --- helpers ---------------------------------------------------------------------


def require_contacts(client: StrRedis, ids: Sequence[str]) -> None:
    """404 `could not find contact '<id>'` for the first unknown contact."""
    known = {c.id for c in store.load_contacts(client, ids)}
    for contact_id in ids:
        if contact_id not in known:
            raise ApiError(404, f"could not find contact '{contact_id}'")


def credentials_json(found: Sequence[tuple[str, dict[str, str]]]) -> list[dict[str, Any]]:
    """The API representation (api-v1.md 6): the five fields and links, no id; secrets masked for non-admins."""
    role = current_principal().role
    return [{**{name: _shown(role, name, creds.get(name, "")) for name in FIELDS}, "links": {"contacts": [cid]}}
            for cid, creds in found]


def _shown(role: Role, name: str, value: str) -> str:
    return shown_credential(role, value) if name in SECRET_FIELDS else shown_address(role, "", value)


def is_value(value: Any) -> bool:
    """A credential value: a string, a number, or null (stored as '')."""
    return value is None or isinstance(value, str | int | float) and not isinstance(value, bool)


def text(value: Any) -> str:
    """A credential value as stored."""
    return "" if value is None else str(value)


def apply_credentials_op(client: StrRedis, contact_id: str, op: PatchOp) -> None:
    """One `replace` of a credential field; other operations and invalid values are ignored."""
    if op.op == "replace" and op.field in FIELDS and is_value(op.value):
        media_store.update_pagerduty_credentials(client, contact_id, **cast(dict[str, Any], {op.field: text(op.value)}))


# --- OpenAPI -----------------------------------------------------------------------

CREDENTIALS = {"type": "object", "required": [*FIELDS, "links"],
               "properties": {**{name: {"type": "string"} for name in FIELDS},
                              "links": {"type": "object", "required": ["contacts"],
                                        "properties": {"contacts": STR_LIST}}}}
CREDENTIALS_IN = {"type": "object", "additionalProperties": False,
                  "properties": {name: {"type": ["string", "null"]} for name in FIELDS}}
LIST = {"type": "object", "required": ["pagerduty_credentials"],
        "properties": {"pagerduty_credentials": {"type": "array", "items": CREDENTIALS}, "meta": META}}

PATHS: dict[str, Any] = {
    "/contacts/{contact_id}/pagerduty_credentials": {
        "post": operation("Create or replace a contact's PagerDuty credentials (the last item is used)",
                          ok(STR_LIST, "201", "Created", LOCATION), ("400", "415", "422", "423"),
                          params=[ids_param("contact id") | {"name": "contact_id"}],
                          body=wrapper("pagerduty_credentials", CREDENTIALS_IN), tag="pagerduty_credentials"),
    },
    "/pagerduty_credentials": {
        "get": operation("List PagerDuty credentials", ok(LIST), ("400",), params=PARAMETERS, tag="pagerduty_credentials"),
    },
    "/pagerduty_credentials/{ids}": {
        "get": operation("Get PagerDuty credentials of contacts", ok(LIST), ("400", "404"),
                         params=[ids_param("comma-separated contact ids"), *PARAMETERS], tag="pagerduty_credentials"),
        "patch": operation("Update PagerDuty credentials (JSON-Patch)", NO_CONTENT, ("400", "404", "415"),
                           params=[ids_param("comma-separated contact ids")],
                           body=patch_body("pagerduty_credentials"), body_types=("application/json-patch+json",),
                           tag="pagerduty_credentials"),
        "delete": operation("Delete PagerDuty credentials", NO_CONTENT, ("404",),
                            params=[ids_param("comma-separated contact ids")], tag="pagerduty_credentials"),
    },
}
