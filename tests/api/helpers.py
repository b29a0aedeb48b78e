"""Request and assertion helpers for the API tests."""

from __future__ import annotations

from typing import Any

from flask.testing import FlaskClient

JSONAPI = "application/vnd.api+json; charset=UTF-8"


def post(client: FlaskClient, path: str, body: Any, content_type: str = "application/vnd.api+json") -> Any:
    return client.post(path, json=body, content_type=content_type)


def patch(client: FlaskClient, path: str, ops: Any) -> Any:
    return client.patch(path, json=ops, content_type="application/json-patch+json")


def body_of(response: Any) -> Any:
    """The JSON body, after asserting the JSON-API content type."""
    assert response.headers["Content-Type"] == JSONAPI
    return response.get_json(force=True)


def errors(response: Any, status: int) -> list[str]:
    """The error messages, after asserting the status and content type."""
    assert response.status_code == status, response.get_data(as_text=True)
    return body_of(response)["errors"]
