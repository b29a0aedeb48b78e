"""API resource: entities (api-v1.md 8). Routes are added to web.api.bp; OpenAPI path items go in PATHS."""

from __future__ import annotations

import json
from typing import Any

from flask import Response, request

from flapjack_py.model.names import entity_name_problem
from flapjack_py.store import entities as store
from flapjack_py.store import escalation as escalation_store

from ..errors import ApiError
from . import bp, paging
from .common import created, ctx, id_list, json_body, no_content, not_found_list, patch_ops, wrapped_list
from .schemas import LOCATION, NO_CONTENT, STR_LIST, ids_param, ok, operation, patch_body, query, wrapper

TRUE = ("1", "t", "true", "y", "yes")
FALSE = ("0", "f", "false", "n", "no")


def present(entity: store.Entity, policies: list[str] | None = None) -> dict[str, Any]:
    """The v1 representation of an entity, plus [addition] the escalation policies it links to."""
    return {"id": entity.id, "name": entity.name, "links": {"contacts": entity.contacts, "checks": entity.checks,
                                                            "escalation_policies": policies or []}}


def tag_list(value: Any) -> list[str]:
    """A tag value of a body or patch: a string or a list of strings (other items dropped)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [t for t in value if isinstance(t, str) and t]
    return []


def refuse_unfit_name(name: str) -> None:
    """422 naming the problem when `name` cannot be an entity name (flapjack_py.model.names: no ':' or control character)."""
    problem = entity_name_problem(name)
    if problem:
        raise ApiError(422, f"{problem}: {json.dumps(name)}")


def find_entities(raw_ids: str) -> list[str]:
    """The path's entity ids, all known, else 404 `could not find entity '<id>'`."""
    ids = id_list(raw_ids)
    names = store.all_entity_names(ctx().client)
    for eid in ids:
        if eid not in names:
            raise ApiError(404, f"could not find entity '{eid}'")
    return ids


def _present_all(entities: Any) -> list[dict[str, Any]]:
    links = escalation_store.linked_for_entities(ctx().client, [e.id for e in entities])
    return [present(e, links[e.id]) for e in entities]


@bp.route("/entities", methods=["GET"])
@bp.route("/entities/<ids>", methods=["GET"])
def get_entities(ids: str | None = None) -> Response:
    client = ctx().client
    if ids is None:
        flag = request.args.get("enabled", "").lower()
        enabled = True if flag in TRUE else False if flag in FALSE else None
        return paging.listing("entities", store.list_entities(client, enabled), _present_all)
    wanted = id_list(ids)
    found = store.load_entities(client, wanted)
    if not found:
        raise not_found_list("could not find entities: ", wanted)
    return paging.listing("entities", found, _present_all)


@bp.route("/entities", methods=["POST"])
def post_entities() -> Response:
    items = wrapped_list("entities")
    parsed = [_import_item(item) for item in items]
    for _, name, _, _ in parsed:
        if not name:
            raise ApiError(403, "Entity name not provided")
        refuse_unfit_name(name)
    for eid, name, contacts, tags in parsed:
        store.import_entity(ctx().client, eid, name, contacts, tags)
    ids = list(dict.fromkeys(p[0] for p in parsed))
    return created("entities", ids, ids)


def _import_item(item: Any) -> tuple[str, str, list[str] | None, list[str]]:
    eid = item.get("id") if isinstance(item, dict) else None
    if isinstance(eid, int) and not isinstance(eid, bool):
        eid = str(eid)
    if not isinstance(eid, str) or not eid:
        raise ApiError(403, "Entity with a nil id detected")
    name = item.get("name")
    contacts = item.get("contacts")
    contact_ids = [c for c in contacts if isinstance(c, str)] if isinstance(contacts, list) else None
    return eid, name if isinstance(name, str) else "", contact_ids, tag_list(item.get("tags"))


@bp.route("/entities/<ids>", methods=["PATCH"])
def patch_entities(ids: str) -> Response:
    json_body()
    entity_ids = find_entities(ids)
    client = ctx().client
    ops = patch_ops("entities")
    for op in ops:
        if op.op == "replace" and op.field == "name" and isinstance(op.value, str) and op.value:
            refuse_unfit_name(op.value)  # before any op is applied
    for op in ops:
        for eid in entity_ids:
            if op.op == "replace" and op.field == "name" and isinstance(op.value, str) and op.value:
                store.rename_entity(client, eid, op.value)
            elif op.field == "contacts" and op.op == "add":
                store.add_entity_contacts(client, eid, tag_list(op.value))
            elif op.field == "contacts" and op.op == "remove":
                store.remove_entity_contacts(client, eid, [op.member or ""])
            elif op.field == "tags" and op.op == "add":
                store.add_entity_tags(client, eid, tag_list(op.value))
            elif op.field == "tags" and op.op == "remove":
                store.remove_entity_tags(client, eid, [op.member or ""])
            elif op.field == "escalation_policies":
                _patch_policy_link(eid, op.op, tag_list(op.value) if op.op == "add" else [op.member or ""])
    return no_content()


def _patch_policy_link(entity_id: str, op: str, policy_ids: list[str]) -> None:
    """[addition] Link (`add`, unknown policies ignored as v1 ignores unknown ids) or unlink policies."""
    client = ctx().client
    if op == "add":
        known = {p.id for p in escalation_store.load_policies(client, policy_ids)}
        escalation_store.link(client, entity_id, [p for p in policy_ids if p in known])
    elif op == "remove":
        escalation_store.unlink(client, entity_id, policy_ids)


ENTITY = {"type": "object", "required": ["id", "name", "links"], "properties": {
    "id": {"type": "string"}, "name": {"type": "string"},
    "links": {"type": "object", "properties": {"contacts": STR_LIST, "checks": STR_LIST,
                                               "escalation_policies": STR_LIST}}}}
ENTITY_LIST = {"type": "object", "required": ["entities"], "properties": {
    "entities": {"type": "array", "items": ENTITY}, "meta": paging.META}}
ENTITY_IN = {"type": "object", "required": ["id", "name"], "properties": {
    "id": {"type": "string"}, "name": {"type": "string"}, "contacts": STR_LIST, "tags": STR_LIST}}
_LIST_PARAMS = [query("enabled", "keep only enabled (1/t/true/y/yes) or disabled (0/f/false/n/no) entities"),
                *paging.PARAMETERS]

PATHS: dict[str, Any] = {
    "/entities": {
        "get": operation("List entities", ok(ENTITY_LIST), ("400",), params=_LIST_PARAMS, tag="entities"),
        "post": operation("Import (upsert) entities (a name with ':' or a control character: 422)",
                          ok(STR_LIST, "201", "Created", LOCATION), ("400", "403", "415", "422"),
                          body=wrapper("entities", ENTITY_IN), tag="entities"),
    },
    "/entities/{ids}": {
        "get": operation("Get entities by id", ok(ENTITY_LIST), ("404",), params=[ids_param(), *paging.PARAMETERS],
                         tag="entities"),
        "patch": operation("Update entities (JSON-Patch)", NO_CONTENT, ("400", "404", "415", "422"),
                           params=[ids_param()], body=patch_body("entities"),
                           body_types=("application/json-patch+json",), tag="entities"),
    },
}
