"""API resource: notification rules (api-v1.md 7).

Routes are added to web.api.bp; OpenAPI path items go in PATHS.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any

from flask import Response

from flapjack_py.errors import AlreadyExists
from flapjack_py.model.rules import (
    BOOLEAN_FIELDS,
    LIST_FIELDS,
    NotificationRule,
    rule_from_fields,
    update_rule_fields,
    validate_rule_fields,
)
from flapjack_py.store import contacts as store
from flapjack_py.store import rules as rule_store
from flapjack_py.store.plumbing.client import StrRedis

from ..errors import ApiError
from . import bp
from .common import PatchOp, created, ctx, id_list, json_body, no_content, patch_ops, wrapped_list
from .paging import META, PARAMETERS, listing
from .schemas import LOCATION, NO_CONTENT, STR_LIST, ids_param, ok, operation, patch_body, wrapper

NO_RULES = "No valid notification rules were submitted"
RULE_FIELDS = (*LIST_FIELDS, *BOOLEAN_FIELDS)
"""The fields a request may set (api-v1.md 2 `replace` fields)."""


@bp.route("/contacts/<contact_id>/notification_rules", methods=["POST"])
def post_notification_rules(contact_id: str) -> Response:
    """Create rules for a contact: 422 with every validation message, or 201 (200 when only some were created)."""
    items = wrapped_list("notification_rules", 422, NO_RULES, NO_RULES)
    if not all(isinstance(item, dict) for item in items):
        raise ApiError(422, NO_RULES)
    client = ctx().client
    if not store.contact_exists(client, contact_id):
        raise ApiError(404, f"could not find contact '{contact_id}'")
    messages = [message for item in items for message in validate_rule_fields(item)]
    if messages:
        raise ApiError(422, *messages)
    new_ids, failures = create_rules(client, contact_id, items)
    if failures and not new_ids:
        raise ApiError(422, *failures)
    if failures:
        return partly_created()
    return created("notification_rules", new_ids, new_ids)


@bp.route("/notification_rules", methods=["GET"])
@bp.route("/notification_rules/<ids>", methods=["GET"])
def get_notification_rules(ids: str | None = None) -> Response:
    """Every rule of every contact, or the listed ones in request order (404 when none is found)."""
    client = ctx().client
    if ids is None:
        rules = rule_store.load_rules_by_id(client, rule_store.all_rule_ids(client, store.all_contact_ids(client)))
    else:
        wanted = id_list(ids)
        rules = rule_store.load_rules_by_id(client, wanted)
        if not rules:
            raise ApiError(404, f"could not find notification rules '{', '.join(wanted)}'")
    return listing("notification_rules", rules, rules_json)


@bp.route("/notification_rules/<ids>", methods=["PATCH"])
def patch_notification_rules(ids: str) -> Response:
    """Replace fields of every listed rule; a value that makes the rule invalid is ignored ([v1])."""
    json_body()
    client = ctx().client
    rules = require_rules(client, id_list(ids))
    ops = patch_ops("notification_rules")
    for rule in rules:
        for op in ops:
            rule = apply_rule_op(rule, op)
        rule_store.save_rule(client, rule)
    return no_content()


@bp.route("/notification_rules/<ids>", methods=["DELETE"])
def delete_notification_rules(ids: str) -> Response:
    """Delete every listed rule; all rules and their owners must exist first."""
    client = ctx().client
    rules = require_rules(client, id_list(ids))
    owners = {c.id for c in store.load_contacts(client, list(dict.fromkeys(r.contact_id for r in rules)))}
    for rule in rules:
        if rule.contact_id not in owners:
            raise ApiError(404, f"could not find contact '{rule.contact_id}'")
    for rule in rules:
        rule_store.delete_rule(client, rule.id)
    return no_content()


# --- helpers ---------------------------------------------------------------------


def partly_created() -> Response:
    """[v1] 200 with an empty body and no Location: some rules were created, others had taken ids."""
    response = Response(status=200)
    del response.headers["Content-Type"]
    return response


def create_rules(client: StrRedis, contact_id: str, items: Sequence[dict[str, Any]]) -> tuple[list[str], list[str]]:
    """Create validated rules one by one: (ids created, messages of ids already taken)."""
    new_ids, failures = [], []
    for item in items:
        rule_id = item.get("id")
        rule_id = str(rule_id) if rule_id not in (None, "") and not isinstance(rule_id, dict | list) else None
        rule = rule_from_fields(rule_id or str(uuid.uuid4()), contact_id, item)
        try:
            rule_store.create_rule(client, rule)
        except AlreadyExists:
            failures.append(f"a notification rule already exists with id '{rule.id}'")
        else:
            new_ids.append(rule.id)
    return new_ids, failures


def require_rules(client: StrRedis, ids: Sequence[str]) -> list[NotificationRule]:
    """The rules in order; 404 naming the first unknown id."""
    rules = {rule.id: rule for rule in rule_store.load_rules_by_id(client, ids)}
    for rule_id in ids:
        if rule_id not in rules:
            raise ApiError(404, f"could not find notification rule '{rule_id}'")
    return [rules[rule_id] for rule_id in ids]


def apply_rule_op(rule: NotificationRule, op: PatchOp) -> NotificationRule:
    """`rule` with one `replace` applied, unless it is unsupported or leaves the rule invalid."""
    if op.op != "replace" or op.field not in RULE_FIELDS:
        return rule
    fields = {**{name: getattr(rule, name) for name in RULE_FIELDS}, op.field: op.value}
    if validate_rule_fields(fields):
        return rule
    return update_rule_fields(rule, {op.field: op.value})


def rules_json(rules: Sequence[NotificationRule]) -> list[dict[str, Any]]:
    """The API representation of rules (api-v1.md 7): tags and regex_tags always sorted lists."""
    return [{"id": r.id, "tags": sorted(r.tags or [], key=str), "regex_tags": sorted(r.regex_tags or [], key=str),
             "entities": r.entities, "regex_entities": r.regex_entities, "time_restrictions": r.time_restrictions,
             "unknown_media": r.unknown_media, "warning_media": r.warning_media, "critical_media": r.critical_media,
             "unknown_blackhole": r.unknown_blackhole, "warning_blackhole": r.warning_blackhole,
             "critical_blackhole": r.critical_blackhole, "links": {"contacts": [r.contact_id]}} for r in rules]


# --- OpenAPI -----------------------------------------------------------------------

NULL_STR_LIST = {"type": ["array", "null"], "items": {"type": "string"}}
RESTRICTIONS = {"type": ["array", "null"], "items": {"type": "object"},
                "description": "ice_cube-style time restrictions (api-v1.md 7.2)"}
RULE = {"type": "object", "required": ["id", "tags", "regex_tags", "entities", "regex_entities", "time_restrictions",
                                       *LIST_FIELDS[5:], *BOOLEAN_FIELDS, "links"],
        "properties": {"id": {"type": "string"}, "tags": STR_LIST, "regex_tags": STR_LIST,
                       "entities": {"type": ["array", "null"]}, "regex_entities": {"type": ["array", "null"]},
                       "time_restrictions": {"type": ["array", "null"]},
                       **{name: {"type": ["array", "null"]} for name in LIST_FIELDS[5:]},
                       **{name: {"type": "boolean"} for name in BOOLEAN_FIELDS},
                       "links": {"type": "object", "required": ["contacts"], "properties": {"contacts": STR_LIST}}}}
RULE_IN = {"type": "object", "properties": {
    "id": {"type": "string", "minLength": 1},
    **{name: NULL_STR_LIST for name in LIST_FIELDS if name != "time_restrictions"},
    "time_restrictions": RESTRICTIONS, **{name: {"type": ["boolean", "null"]} for name in BOOLEAN_FIELDS}}}
LIST = {"type": "object", "required": ["notification_rules"],
        "properties": {"notification_rules": {"type": "array", "items": RULE}, "meta": META}}

PATHS: dict[str, Any] = {
    "/contacts/{contact_id}/notification_rules": {
        "post": operation("Create notification rules for a contact", {
            **ok(STR_LIST, "201", "Created", LOCATION),
            "200": {"description": "Some rules were created, others had taken ids (empty body)"}},
            ("400", "404", "415", "422"), params=[ids_param("contact id") | {"name": "contact_id"}],
            body=wrapper("notification_rules", RULE_IN), tag="notification_rules"),
    },
    "/notification_rules": {
        "get": operation("List notification rules", ok(LIST), ("400",), params=PARAMETERS, tag="notification_rules"),
    },
    "/notification_rules/{ids}": {
        "get": operation("Get notification rules", ok(LIST), ("400", "404"), params=[ids_param(), *PARAMETERS],
                         tag="notification_rules"),
        "patch": operation("Update notification rules (JSON-Patch)", NO_CONTENT, ("400", "404", "415"),
                           params=[ids_param()], body=patch_body("notification_rules"),
                           body_types=("application/json-patch+json",), tag="notification_rules"),
        "delete": operation("Delete notification rules", NO_CONTENT, ("404",), params=[ids_param()],
                            tag="notification_rules"),
    },
}
