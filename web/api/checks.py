"""API resource: checks (api-v1.md 9). Routes are added to web.api.bp; OpenAPI path items go in PATHS."""

from __future__ import annotations

import json
import time
from typing import Any

from flask import Response

from flapjack_py import actions, keys
from flapjack_py.model.names import check_name_problem
from flapjack_py.store import checks as check_store
from flapjack_py.store import entities as entity_store
from flapjack_py.store import history
from flapjack_py.store import tags as tag_store

from ..actors import request_acting, request_actor
from ..errors import ApiError
from . import bp, paging
from .common import (
    created,
    ctx,
    id_list,
    json_body,
    no_content,
    not_found_list,
    patch_ops,
    split_check_id,
    wrapped_list,
)
from .entities import tag_list
from .schemas import LOCATION, NO_CONTENT, STR_LIST, ids_param, ok, operation, patch_body, wrapper


def derived_tags(entity: str, check: str) -> list[str]:
    """[v1] tags every check shows: entity name split at its first '.', check name split on spaces."""
    parts = [p.lower() for p in entity.split(".", 1)] + [w.lower() for w in check.split(" ")]
    return [p for p in parts if p]


def present(entity: str, check: str, entity_id: str) -> dict[str, Any]:
    """The v1 representation of a check."""
    client = ctx().client
    tags = list(dict.fromkeys(tag_store.check_tags(client, entity, check) + derived_tags(entity, check)))
    return {"id": keys.check_id(entity, check), "name": check, "entity_name": entity,
            "enabled": check_store.is_enabled(client, entity, check), "tags": tags,
            "links": {"entities": [entity_id]}}


def resolve_checks(raw_ids: str) -> list[tuple[str, str]]:
    """(entity, check) of the path's check ids: 400 when malformed, 404 when an entity is unknown."""
    found = []
    for check_id in id_list(raw_ids):
        entity, check = split_check_id(check_id)
        if entity_store.entity_id(ctx().client, entity) is None:
            raise ApiError(404, f"could not find entity '{entity}'")
        found.append((entity, check))
    return found


@bp.route("/checks", methods=["GET"])
@bp.route("/checks/<path:ids>", methods=["GET"])
def get_checks(ids: str | None = None) -> Response:
    client = ctx().client
    ids_by_name = {name: eid for eid, name in entity_store.all_entity_names(client).items()}
    wanted = check_store.all_check_ids(client) if ids is None else id_list(ids)
    result = []
    for check_id in wanted:
        entity, sep, check = check_id.partition(":")
        if sep and entity and check and entity in ids_by_name:
            result.append((entity, check, ids_by_name[entity]))
    if ids is not None and not result:
        raise not_found_list("could not find entity checks: ", wanted)
    return paging.listing("checks", result, lambda page: [present(*c) for c in page])


@bp.route("/checks", methods=["POST"])
def post_checks() -> Response:
    client = ctx().client
    parsed = []
    for item in wrapped_list("checks"):
        item = item if isinstance(item, dict) else {}
        entity_id, name = item.get("entity_id"), item.get("name")
        if not isinstance(entity_id, str) or not entity_id:
            raise ApiError(403, "Entity id not provided")
        if not isinstance(name, str) or not name:
            raise ApiError(403, "Name not provided")
        if problem := check_name_problem(name):
            raise ApiError(422, f"{problem}: {json.dumps(name)}")
        entity = entity_store.entity_name(client, entity_id)
        if entity is None:
            raise ApiError(404, f"could not find entity '{entity_id}'")
        parsed.append((entity, name, tag_list(item.get("tags"))))
    now = int(time.time())
    for entity, name, tags in parsed:
        history.enable_check(client, entity, name, now)
        tag_store.add_check_tags(client, entity, name, tags)
    ids = list(dict.fromkeys(keys.check_id(e, n) for e, n, _ in parsed))
    return created("checks", ids, ids)


@bp.route("/checks/<path:ids>", methods=["PATCH"])
def patch_checks(ids: str) -> Response:
    json_body()
    targets = resolve_checks(ids)
    client = ctx().client
    ops = patch_ops("checks")
    switches = [op.value for op in ops if op.op == "replace" and op.field == "enabled" and isinstance(op.value, bool)]
    if switches:
        actions.authorise(client, "enable" if switches[-1] else "disable", targets, request_actor(), request_acting(),
                          int(time.time()))
    for op in ops:
        for entity, check in targets:
            if op.op == "replace" and op.field == "enabled" and isinstance(op.value, bool):
                actions.set_enabled(client, entity, check, op.value is True, actor=request_actor(),
                                    acting=request_acting(), now=int(time.time()))
            elif op.op == "add" and op.field == "tags":
                tag_store.add_check_tags(client, entity, check, tag_list(op.value))
            elif op.op == "remove" and op.field == "tags":
                tag_store.remove_check_tags(client, entity, check, [op.member or ""])
    return no_content()


CHECK = {"type": "object", "required": ["id", "name", "entity_name", "enabled", "tags", "links"], "properties": {
    "id": {"type": "string"}, "name": {"type": "string"}, "entity_name": {"type": "string"},
    "enabled": {"type": "boolean"}, "tags": STR_LIST,
    "links": {"type": "object", "properties": {"entities": STR_LIST}}}}
CHECK_LIST = {"type": "object", "required": ["checks"], "properties": {
    "checks": {"type": "array", "items": CHECK}, "meta": paging.META}}
CHECK_IN = {"type": "object", "required": ["entity_id", "name"], "properties": {
    "entity_id": {"type": "string"}, "name": {"type": "string"}, "tags": STR_LIST}}
CHECK_IDS = ids_param("comma-separated check ids, ENTITY:CHECK")

PATHS: dict[str, Any] = {
    "/checks": {
        "get": operation("List checks", ok(CHECK_LIST), ("400",), params=list(paging.PARAMETERS), tag="checks"),
        "post": operation("Create (enable) checks (a name with a control character: 422)",
                          ok(STR_LIST, "201", "Created", LOCATION), ("400", "403", "404", "415", "422"),
                          body=wrapper("checks", CHECK_IN), tag="checks"),
    },
    "/checks/{ids}": {
        "get": operation("Get checks by id", ok(CHECK_LIST), ("404",), params=[CHECK_IDS, *paging.PARAMETERS],
                         tag="checks"),
        "patch": operation("Update checks (JSON-Patch)", NO_CONTENT, ("400", "404", "415"), params=[CHECK_IDS],
                           body=patch_body("checks"), body_types=("application/json-patch+json",), tag="checks"),
    },
}
