"""API resource [addition]: escalation policies, and which entities (or ALL) link to them.

Entities link to policies through `links.escalation_policies` (also JSON-Patch on /entities, in
web/api/entities.py); the ALL pseudo-entity is linked here, through `links.entities`. Routes are
added to web.api.bp; OpenAPI path items go in PATHS.
"""

from __future__ import annotations

import uuid
from typing import Any

from flask import Response

from flapjack_py.model.escalation import InvalidPolicy, Policy, policy_from_json, policy_to_json
from flapjack_py.store import entities as entity_store
from flapjack_py.store import escalation as store

from ..errors import ApiError
from . import bp
from .common import answer, created, ctx, id_list, no_content, not_found_list, patch_ops, wrapped_list
from .schemas import LOCATION, NO_CONTENT, STR_LIST, ids_param, ok, operation, patch_body, wrapper

NAME = "escalation_policies"
MAX_ITEMS = 50
PATCHABLE = ("name", "levels", "repeat")


def present(policy: Policy) -> dict[str, Any]:
    """The API form of a policy with the entities linked to it."""
    return {**policy_to_json(policy), "links": {"entities": store.entities_linked_to(ctx().client, policy.id)}}


@bp.route("/escalation_policies", methods=["GET"])
@bp.route("/escalation_policies/<ids>", methods=["GET"])
def get_policies(ids: str | None = None) -> Response:
    return answer({NAME: [present(p) for p in _find(ids)]})


@bp.route("/escalation_policies", methods=["POST"])
def post_policies() -> Response:
    items = wrapped_list(NAME, 422)
    if not items or len(items) > MAX_ITEMS or not all(isinstance(i, dict) for i in items):
        raise ApiError(422, f"No valid {NAME} were submitted")
    made = [(_parse(item, _new_id(item)), _entity_links(item)) for item in items]
    taken = [p.id for p, _ in made if store.load_policies(ctx().client, [p.id])]
    if taken:
        raise ApiError(409, f"Escalation policies already exist with the following IDs: {', '.join(taken)}")
    for policy, entities in made:
        store.save_policy(ctx().client, policy)
        for entity_id in entities:
            store.link(ctx().client, entity_id, [policy.id])
    return created(NAME, [p.id for p, _ in made], [p.id for p, _ in made])


@bp.route("/escalation_policies/<ids>", methods=["PATCH"])
def patch_policies(ids: str) -> Response:
    found = _find(ids)
    ops = patch_ops(NAME)
    changed = []
    for policy in found:
        data = policy_to_json(policy)
        data.update({op.field: op.value for op in ops if op.op == "replace" and op.field in PATCHABLE})
        changed.append(_parse(data, policy.id))
    for policy in changed:
        store.save_policy(ctx().client, policy)
        for op in ops:
            if op.field == "entities" and op.op == "add":
                store.link(ctx().client, _entity(op.value), [policy.id])
            elif op.field == "entities" and op.op == "remove":
                store.unlink(ctx().client, op.member or "", [policy.id])
    return no_content()


@bp.route("/escalation_policies/<ids>", methods=["DELETE"])
def delete_policies(ids: str) -> Response:
    for policy in _find(ids):
        store.delete_policy(ctx().client, policy.id)
    return no_content()


def _find(ids: str | None) -> list[Policy]:
    if ids is None:
        return store.load_policies(ctx().client)
    wanted = id_list(ids)
    found = store.load_policies(ctx().client, wanted)
    missing = [i for i in wanted if i not in {p.id for p in found}]
    if missing:
        raise not_found_list(f"could not find {NAME} ", missing)
    return found


def _parse(item: dict[str, Any], policy_id: str) -> Policy:
    try:
        return policy_from_json(item, policy_id)
    except InvalidPolicy as exc:
        raise ApiError(422, str(exc)) from None


def _entity_links(item: dict[str, Any]) -> list[str]:
    links = item.get("links")
    entities = links.get("entities") if isinstance(links, dict) else None
    if entities is None:
        return []
    if not isinstance(entities, list):
        raise ApiError(422, "links.entities must be a list of entity ids (or ALL)")
    return [_entity(e) for e in entities]


def _entity(value: Any) -> str:
    if value == "ALL" or (isinstance(value, str) and entity_store.entity_name(ctx().client, value) is not None):
        return str(value)
    raise ApiError(422, f"could not find entity '{value}'")


def _new_id(item: dict[str, Any]) -> str:
    given = item.get("id")
    if isinstance(given, str) and given and len(given) <= 100 and not set(given) & set(",/"):
        return given
    return str(uuid.uuid4())


TARGET = {"type": "object", "properties": {"schedule": {"type": "string"}, "contact": {"type": "string"}},
          "minProperties": 1, "maxProperties": 1}
POLICY = {"type": "object", "properties": {
    "id": {"type": "string"}, "name": {"type": "string"}, "repeat": {"type": "integer", "minimum": 0, "maximum": 10},
    "levels": {"type": "array", "items": {"type": "object", "properties": {
        "delay": {"type": "integer", "minimum": 0}, "targets": {"type": "array", "items": TARGET}}}},
    "links": {"type": "object", "properties": {"entities": STR_LIST}}}}
PATHS: dict[str, Any] = {
    "/escalation_policies": {
        "get": operation("List escalation policies", ok(wrapper(NAME, POLICY)), (), tag="escalation"),
        "post": operation("Create escalation policies", ok(STR_LIST, "201", "Created", LOCATION),
                          ("400", "409", "415", "422"), body=wrapper(NAME, POLICY), tag="escalation"),
    },
    "/escalation_policies/{ids}": {
        "get": operation("Get escalation policies", ok(wrapper(NAME, POLICY)), ("404",), params=[ids_param()],
                         tag="escalation"),
        "patch": operation("Replace name, levels or repeat; add/remove links/entities", NO_CONTENT,
                           ("400", "404", "415", "422"), params=[ids_param()], body=patch_body(NAME),
                           body_types=("application/json-patch+json",), tag="escalation"),
        "delete": operation("Delete escalation policies (and their links)", NO_CONTENT, ("404",),
                            params=[ids_param()], tag="escalation"),
    },
}
