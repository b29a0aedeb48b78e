"""OpenAPI building blocks shared by the entity, check, maintenance, report, metric and alert modules."""

from __future__ import annotations

from typing import Any

JSONAPI = "application/vnd.api+json"
STR_LIST: dict[str, Any] = {"type": "array", "items": {"type": "string"}}
NULL_INT: dict[str, Any] = {"type": ["integer", "null"]}
NULL_STR: dict[str, Any] = {"type": ["string", "null"]}


def error_refs(*statuses: str) -> dict[str, Any]:
    """Response entries for the given error statuses (for resource modules' PATHS)."""
    return {s: {"$ref": f"#/components/responses/E{s}"} for s in statuses}


def ids_param(description: str = "comma-separated ids") -> dict[str, Any]:
    return {"name": "ids", "in": "path", "required": True, "description": description, "schema": {"type": "string"}}


def query(name: str, description: str = "", schema: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"name": name, "in": "query", "required": False, "description": description,
            "schema": schema or {"type": "string"}}


def ok(schema: dict[str, Any], status: str = "200", description: str = "OK",
       headers: dict[str, Any] | None = None) -> dict[str, Any]:
    response: dict[str, Any] = {"description": description, "content": {JSONAPI: {"schema": schema}}}
    if headers:
        response["headers"] = headers
    return {status: response}


NO_CONTENT: dict[str, Any] = {"204": {"description": "No content"}}
LOCATION: dict[str, Any] = {"Location": {"schema": {"type": "string"}}}


def operation(summary: str, responses: dict[str, Any], errors: tuple[str, ...], *,
              params: list[dict[str, Any]] | None = None, body: dict[str, Any] | None = None,
              body_types: tuple[str, ...] = ("application/vnd.api+json", "application/json"),
              tag: str = "", signed: bool = False) -> dict[str, Any]:
    """One OpenAPI operation object; `signed`: called by another service, which proves itself by a signature or
    token of its own (no login, no bearer token: `security: [{}]`)."""
    op: dict[str, Any] = {"summary": summary, "responses": {**responses, **error_refs("401", *errors)}}
    if signed:
        op["security"] = [{}]
    if tag:
        op["tags"] = [tag]
    if params:
        op["parameters"] = params
    if body is not None:
        op["requestBody"] = {"required": False, "content": {t: {"schema": body} for t in body_types}}
    return op


def patch_body(collection: str) -> dict[str, Any]:
    """A JSON-Patch document as api-v1.md 2 accepts it."""
    return {"type": "array", "items": {"type": "object", "properties": {
        "op": {"type": "string", "enum": ["replace", "add", "remove"]},
        "path": {"type": "string", "pattern": f"^/{collection}/0/"},
        "value": {}}, "required": ["op", "path"]}}


def wrapper(name: str, item: dict[str, Any], required: bool = True) -> dict[str, Any]:
    """`{"<name>": [item, ...]}`."""
    schema: dict[str, Any] = {"type": "object", "properties": {name: {"type": "array", "items": item}}}
    if required:
        schema["required"] = [name]
    return schema
