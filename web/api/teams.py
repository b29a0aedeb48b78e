"""API resource [addition]: teams, who is in them and what they own (flapjack_py.model.teams).

A team owns entities, tags, schedules, escalation policies and contacts; its members (user names) may act
on the checks it owns (flapjack_py.actions enforces it). Read by viewers, written by admins (web/policy.py).
PATCH: `replace` a field (name or a whole list), `add`/`remove` one member of a list through `links/FIELD`.
"""

from __future__ import annotations

import uuid
from typing import Any

from flask import Response

from flapjack_py.model.teams import LISTS, MAX_ITEM, Team, make_team, team_problems
from flapjack_py.store import teams as store

from ..errors import ApiError
from . import bp
from .common import answer, created, ctx, id_list, no_content, not_found_list, patch_ops, wrapped_list
from .schemas import LOCATION, NO_CONTENT, STR_LIST, ids_param, ok, operation, patch_body, wrapper

NAME = "teams"
MAX_TEAMS = 100
"""Most teams one POST creates."""


@bp.route("/teams", methods=["GET"])
@bp.route("/teams/<ids>", methods=["GET"])
def get_teams(ids: str | None = None) -> Response:
    return answer({NAME: [t.as_json() for t in _find(ids)]})


@bp.route("/teams", methods=["POST"])
def post_teams() -> Response:
    items = wrapped_list(NAME, 422)
    if not items or len(items) > MAX_TEAMS or not all(isinstance(i, dict) for i in items):
        raise ApiError(422, f"No valid {NAME} were submitted (1 to {MAX_TEAMS} objects)")
    problems = [f"teams[{n}]: {p}" for n, item in enumerate(items) for p in team_problems(item)]
    if problems:
        raise ApiError(422, *problems[:20])
    made = [make_team(_new_id(item), item) for item in items]
    existing = {t.id for t in store.list_teams(ctx().client)}
    taken = [t.id for t in made if t.id in existing]
    if taken:
        raise ApiError(409, f"Teams already exist with the following IDs: {', '.join(taken)}")
    for team in made:
        store.save_team(ctx().client, team)
    return created(NAME, [t.id for t in made], [t.id for t in made])


@bp.route("/teams/<ids>", methods=["PATCH"])
def patch_teams(ids: str) -> Response:
    found = _find(ids)
    ops = patch_ops(NAME)
    replaced = {op.field: op.value for op in ops if op.op == "replace"}
    problems = team_problems(replaced, partial=True)
    for op in ops:
        if op.op in ("add", "remove") and op.field not in LISTS:
            problems.append(f"links/{op.field}: not a list of a team ({', '.join(LISTS)})")
        if op.op == "add" and not (isinstance(op.value, str) and 0 < len(op.value) <= MAX_ITEM):
            problems.append(f"links/{op.field}: the value added must be a string of 1 to {MAX_ITEM} characters")
    if problems:
        raise ApiError(422, *problems[:20])
    for team in found:
        store.save_team(ctx().client, _patched(team, replaced, ops))
    return no_content()


@bp.route("/teams/<ids>", methods=["DELETE"])
def delete_teams(ids: str) -> Response:
    for team in _find(ids):
        store.delete_team(ctx().client, team.id)
    return no_content()


def _patched(team: Team, replaced: dict[str, Any], ops: list[Any]) -> Team:
    fields: dict[str, Any] = {**team.as_json(), **replaced}
    for op in ops:
        if op.op == "add" and op.value not in fields[op.field]:
            fields[op.field] = [*fields[op.field], op.value]
        elif op.op == "remove":
            fields[op.field] = [v for v in fields[op.field] if v != op.member]
    return make_team(team.id, fields)


def _find(ids: str | None) -> list[Team]:
    teams = store.list_teams(ctx().client)
    if ids is None:
        return teams
    wanted = id_list(ids)
    found = [t for t in teams if t.id in wanted]
    missing = [i for i in wanted if i not in {t.id for t in found}]
    if missing:
        raise not_found_list(f"could not find {NAME} ", missing)
    return found


def _new_id(item: dict[str, Any]) -> str:
    given = item.get("id")
    if isinstance(given, str) and given and len(given) <= 100 and not set(given) & set(",/ "):
        return given
    return str(uuid.uuid4())


TEAM: dict[str, Any] = {"type": "object", "required": ["name"], "properties": {
    "id": {"type": "string", "maxLength": 100}, "name": {"type": "string", "minLength": 1, "maxLength": 100},
    **{name: {**STR_LIST, "maxItems": 1000} for name in LISTS}}}
PATHS: dict[str, Any] = {
    "/teams": {
        "get": operation("List teams (members and what they own)", ok(wrapper(NAME, TEAM)), (), tag="teams"),
        "post": operation("Create teams (admins)", ok(STR_LIST, "201", "Created", LOCATION),
                          ("400", "403", "409", "415", "422"), body=wrapper(NAME, TEAM), tag="teams"),
    },
    "/teams/{ids}": {
        "get": operation("Get teams", ok(wrapper(NAME, TEAM)), ("404",), params=[ids_param()], tag="teams"),
        "patch": operation("Replace name or a list; add/remove one member of a list through links/FIELD (admins)",
                           NO_CONTENT, ("400", "403", "404", "415", "422"), params=[ids_param()],
                           body=patch_body(NAME), body_types=("application/json-patch+json",), tag="teams"),
        "delete": operation("Delete teams (admins)", NO_CONTENT, ("403", "404"), params=[ids_param()], tag="teams"),
    },
}
