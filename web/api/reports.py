"""API resource: reports (api-v1.md 11). Routes are added to web.api.bp; OpenAPI path items go in PATHS."""

from __future__ import annotations

from typing import Any

from flask import Response

from flapjack_py import keys
from flapjack_py.store import checks as check_store
from flapjack_py.store import entities as entity_store
from flapjack_py.store import history
from flapjack_py.store.history import REPORT_TYPES

from ..errors import ApiError
from . import bp
from .common import answer, ctx, id_list, query_time, split_check_id
from .schemas import NULL_INT, NULL_STR, STR_LIST, ids_param, ok, operation, query

Group = tuple[str, str, list[str]]  # entity id, entity name, check names


def entity_groups(raw_ids: str | None) -> list[Group]:
    """Entities (all, or by id: 404 when unknown) with their current checks."""
    client = ctx().client
    if raw_ids is None:
        entities = [(e.id, e.name) for e in entity_store.list_entities(client)]
    else:
        entities = []
        for eid in id_list(raw_ids):
            name = entity_store.entity_name(client, eid)
            if name is None:
                raise ApiError(404, f"could not find entity '{eid}'")
            entities.append((eid, name))
    return [(eid, name, check_store.current_check_names(client, name)) for eid, name in entities]


def check_groups(raw_ids: str | None) -> list[Group]:
    """Checks (every current one, or by id: 400 malformed, 404 unknown entity) grouped by entity."""
    client = ctx().client
    groups: dict[str, Group] = {}
    if raw_ids is None:
        for name in history.current_entity_names(client):
            eid = entity_store.entity_id(client, name)
            if eid is not None:
                groups[name] = (eid, name, check_store.current_check_names(client, name))
        return [g for g in groups.values() if g[2]]
    for check_id in id_list(raw_ids):
        entity, check = split_check_id(check_id)
        eid = entity_store.entity_id(client, entity)
        if eid is None:
            raise ApiError(404, f"could not find entity check '{check_id}'")
        checks = groups.setdefault(entity, (eid, entity, []))[2]
        if check not in checks:
            checks.append(check)
    return list(groups.values())


@bp.route("/<any(status,scheduled_maintenance,unscheduled_maintenance,outage,downtime):rtype>_report/"
          "<any(entities,checks):kind>", methods=["GET"])
@bp.route("/<any(status,scheduled_maintenance,unscheduled_maintenance,outage,downtime):rtype>_report/"
          "<any(entities,checks):kind>/<ids>", methods=["GET"])
def get_report(rtype: str, kind: str, ids: str | None = None) -> Response:
    groups = entity_groups(ids) if kind == "entities" else check_groups(ids)
    start = end = None
    if rtype != "status":
        start, end = query_time("start_time"), query_time("end_time")
    client = ctx().client
    found, linked_entities, linked_checks = [], [], []
    for eid, name, checks in groups:
        check_ids = [keys.check_id(name, c) for c in checks]
        linked_entities.append({"id": eid, "name": name, "links": {"checks": check_ids}})
        for check, check_id in zip(checks, check_ids, strict=True):
            fields = history.check_report(client, rtype, name, check, start, end)
            found.append({**fields, "links": {"entity": [eid], "check": [check_id]}})
            linked_checks.append({"id": check_id, "name": check})
    return answer({f"{rtype}_reports": found, "linked": {"entities": linked_entities, "checks": linked_checks}})


PERIOD = {"type": "object", "properties": {"start_time": {"type": "integer"}, "duration": {"type": "number"},
                                             "summary": {"type": "string"}, "end_time": {"type": "integer"}}}
OUTAGE = {"type": "object", "properties": {"state": {"type": "string"}, "start_time": {"type": "integer"},
                                             "end_time": NULL_INT, "duration": NULL_INT,
                                             "summary": {"type": "string"}, "details": {"type": "string"}}}
FIELDS: dict[str, dict[str, Any]] = {
    "status": {"name": {"type": "string"}, "state": NULL_STR, "enabled": {"type": "boolean"}, "summary": NULL_STR,
               "details": NULL_STR, "perfdata": {"type": ["array", "null"]},
               "in_unscheduled_maintenance": {"type": "boolean"}, "in_scheduled_maintenance": {"type": "boolean"},
               **{f: NULL_INT for f in ("initial_failure_delay", "repeat_failure_delay", "last_update",
                                        "last_change", "last_problem_notification", "last_recovery_notification",
                                        "last_acknowledgement_notification")}},
    "scheduled_maintenance": {"scheduled_maintenances": {"type": "array", "items": PERIOD}},
    "unscheduled_maintenance": {"unscheduled_maintenances": {"type": "array", "items": PERIOD}},
    "outage": {"outages": {"type": "array", "items": OUTAGE}},
    "downtime": {"total_seconds": {"type": "object", "additionalProperties": {"type": "integer"}},
                 "percentages": {"type": "object", "additionalProperties": {"type": ["number", "null"]}},
                 "downtime": {"type": "array", "items": OUTAGE}},
}
LINKS = {"type": "object", "properties": {"entity": STR_LIST, "check": STR_LIST}}
LINKED = {"type": "object", "properties": {
    "entities": {"type": "array", "items": {"type": "object", "properties": {
        "id": {"type": "string"}, "name": {"type": "string"},
        "links": {"type": "object", "properties": {"checks": STR_LIST}}}}},
    "checks": {"type": "array", "items": {"type": "object", "properties": {
        "id": {"type": "string"}, "name": {"type": "string"}}}}}}


def _report_schema(rtype: str) -> dict[str, Any]:
    item = {"type": "object", "properties": {**FIELDS[rtype], "links": LINKS}}
    return {"type": "object", "required": [f"{rtype}_reports", "linked"],
            "properties": {f"{rtype}_reports": {"type": "array", "items": item}, "linked": LINKED}}


def _paths() -> dict[str, Any]:
    paths: dict[str, Any] = {}
    for rtype in REPORT_TYPES:
        times = [] if rtype == "status" else [query("start_time", "ISO 8601; unparseable = unbounded"),
                                              query("end_time", "ISO 8601; unparseable = unbounded")]
        for kind in ("entities", "checks"):
            summary = f"{rtype.replace('_', ' ')} report for {kind}"
            paths[f"/{rtype}_report/{kind}"] = {"get": operation(
                summary, ok(_report_schema(rtype)), (), params=times, tag="reports")}
            paths[f"/{rtype}_report/{kind}/{{ids}}"] = {"get": operation(
                summary + " by id", ok(_report_schema(rtype)), ("400", "404"), params=[ids_param(), *times],
                tag="reports")}
    return paths


PATHS: dict[str, Any] = _paths()
