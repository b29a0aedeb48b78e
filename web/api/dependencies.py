"""API resource [addition]: dependencies (issue 33.1). A child (a check, every check of an entity, every check
with a tag) depends on a parent check; while the parent fails, the child's problems are not paged.

`POST /dependencies` `{"dependencies": [{"parent": "E:C", "child": {"check"|"entity"|"tag": NAME}}]}` ->
201 with the new ids; a cycle (directly or through entities and tags) -> 422 naming it. Records and
validation: flapjack_py.model.dependencies; storage: flapjack_py.store.dependencies.
"""

from __future__ import annotations

import time
import uuid
from typing import Any

from flask import Response

from flapjack_py.model.dependencies import InvalidDependency, id_problem, parse_item, to_json
from flapjack_py.store import dependencies as store

from ..errors import ApiError
from . import bp
from .common import answer, created, ctx, find_listed, no_content, wrapped_list
from .schemas import LOCATION, NO_CONTENT, STR_LIST, ids_param, ok, operation, wrapper

NAME = "dependencies"
MAX_ITEMS = 1000
"""Most dependencies one POST creates."""


@bp.route("/dependencies", methods=["GET"])
@bp.route("/dependencies/<ids>", methods=["GET"])
def get_dependencies(ids: str | None = None) -> Response:
    return answer({NAME: [to_json(d) for d in find_listed(ids, _load, NAME)]})


@bp.route("/dependencies", methods=["POST"])
def post_dependencies() -> Response:
    items = wrapped_list(NAME, 422)
    if not items or len(items) > MAX_ITEMS:
        raise ApiError(422, f"'{NAME}' must list 1 to {MAX_ITEMS} dependencies")
    now = int(time.time())
    made = [_parse(n, item, now) for n, item in enumerate(items)]
    if len({d.id for d in made}) < len(made):
        raise ApiError(422, "the same id is given twice")
    try:
        store.add(ctx().client, made)
    except store.DependencyExists as exc:
        raise ApiError(409, str(exc)) from None
    except InvalidDependency as exc:
        raise ApiError(422, str(exc)) from None
    ids = [d.id for d in made]
    return created(NAME, ids, ids)


@bp.route("/dependencies/<ids>", methods=["DELETE"])
def delete_dependencies(ids: str) -> Response:
    store.delete(ctx().client, [d.id for d in find_listed(ids, _load, NAME)])
    return no_content()


def _load(client: Any, ids: list[str] | None) -> list[Any]:
    return store.load_all(client) if ids is None else store.load(client, ids)


def _parse(number: int, item: Any, now: int) -> Any:
    given = item.get("id") if isinstance(item, dict) else None
    if given is not None and (problem := id_problem(given)):
        raise ApiError(422, f"{NAME}[{number}]: {problem}")
    try:
        return parse_item(item, given or str(uuid.uuid4()), now)
    except InvalidDependency as exc:
        raise ApiError(422, f"{NAME}[{number}]: {exc}") from None


CHILD = {"type": "object", "minProperties": 1, "maxProperties": 1, "properties": {
    "check": {"type": "string", "description": "ENTITY:CHECK"}, "entity": {"type": "string"},
    "tag": {"type": "string", "description": "a stored check tag"}}}
DEPENDENCY = {"type": "object", "required": ["parent", "child"], "properties": {
    "id": {"type": "string", "maxLength": 100}, "parent": {"type": "string", "description": "ENTITY:CHECK"},
    "child": CHILD, "created_at": {"type": "integer", "readOnly": True}}}
PATHS: dict[str, Any] = {
    "/dependencies": {
        "get": operation("List dependencies", ok(wrapper(NAME, DEPENDENCY)), (), tag="dependencies"),
        "post": operation("Create dependencies (a cycle is refused with 422 naming it)",
                          ok(STR_LIST, "201", "Created", LOCATION), ("400", "409", "415", "422"),
                          body=wrapper(NAME, DEPENDENCY), tag="dependencies"),
    },
    "/dependencies/{ids}": {
        "get": operation("Get dependencies", ok(wrapper(NAME, DEPENDENCY)), ("404",), params=[ids_param()],
                         tag="dependencies"),
        "delete": operation("Delete dependencies", NO_CONTENT, ("404",), params=[ids_param()], tag="dependencies"),
    },
}
