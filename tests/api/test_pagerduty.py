"""PagerDuty credentials over the JSON API (api-v1.md 6), against a real Redis."""

from __future__ import annotations

import pytest
import redis
from flask.testing import FlaskClient

from flapjack_py import keys
from tests.api.helpers import body_of, errors, patch, post

FULL = {"service_key": "a1b2c3", "subdomain": "acme", "token": "t0k3n", "username": "ada", "password": "s3cret"}


@pytest.fixture
def ada(client: FlaskClient) -> str:
    assert post(client, "/api/contacts", {"contacts": [{"id": "21", "first_name": "Ada"},
                                                       {"id": "22", "first_name": "Bob"}]}).status_code == 201
    return "21"


def credentials(contact_id: str, **fields: str) -> dict:
    values = {name: fields.get(name, "") for name in FULL}
    return {**values, "links": {"contacts": [contact_id]}}


def test_post_creates_from_last_item(client: FlaskClient, ada: str) -> None:
    response = post(client, "/api/contacts/21/pagerduty_credentials",
                    {"pagerduty_credentials": [{"service_key": "old"}, FULL]})
    assert response.status_code == 201
    assert response.headers["Location"] == "http://localhost/api/pagerduty_credentials/21"
    assert body_of(response) == ["21"]
    assert body_of(client.get("/api/pagerduty_credentials")) == {"pagerduty_credentials": [credentials("21", **FULL)]}


def test_post_overwrites_and_missing_fields_read_empty(client: FlaskClient, ada: str) -> None:
    post(client, "/api/contacts/21/pagerduty_credentials", {"pagerduty_credentials": [FULL]})
    post(client, "/api/contacts/21/pagerduty_credentials", {"pagerduty_credentials": [{"service_key": "k2"}]})
    assert body_of(client.get("/api/pagerduty_credentials/21")) == {
        "pagerduty_credentials": [credentials("21", service_key="k2")]}
    assert "21_pagerduty" not in body_of(client.get("/api/contacts/21"))["contacts"][0]["links"]["media"]


@pytest.mark.parametrize(("body", "message"), [
    ({}, "No valid pagerduty credentials were submitted"),
    ({"pagerduty_credentials": []}, "No valid pagerduty credentials were submitted"),
    ({"pagerduty_credentials": FULL}, "No valid pagerduty credentials were submitted"),
    ({"pagerduty_credentials": [FULL, "x"]}, "No valid pagerduty credentials were submitted"),
    ({"pagerduty_credentials": [{**FULL, "colour": "red"}]}, "Pagerduty credential data has incorrect fields"),
    ({"pagerduty_credentials": [{"token": ["x"]}]}, "Pagerduty credential data has incorrect fields"),
])
def test_post_invalid_is_422(client: FlaskClient, ada: str, body: dict, message: str) -> None:
    assert errors(post(client, "/api/contacts/21/pagerduty_credentials", body), 422) == [message]
    assert body_of(client.get("/api/pagerduty_credentials")) == {"pagerduty_credentials": []}


def test_post_unknown_contact_is_422(client: FlaskClient) -> None:
    response = post(client, "/api/contacts/9/pagerduty_credentials", {"pagerduty_credentials": [FULL]})
    assert errors(response, 422) == ["Contact id: '9' could not be loaded"]


def test_post_when_locked_is_423(client: FlaskClient, ada: str, real_r: redis.Redis) -> None:
    real_r.set(keys.contact_mass_update_lock(), "other")
    response = post(client, "/api/contacts/21/pagerduty_credentials", {"pagerduty_credentials": [FULL]})
    assert errors(response, 423) == ["unable to obtain lock for resource 'contact_mass_update'"]


def test_get_by_ids_omits_contacts_without_and_404s_unknown(client: FlaskClient, ada: str) -> None:
    post(client, "/api/contacts/21/pagerduty_credentials", {"pagerduty_credentials": [FULL]})
    assert body_of(client.get("/api/pagerduty_credentials/22,21")) == {
        "pagerduty_credentials": [credentials("21", **FULL)]}
    assert errors(client.get("/api/pagerduty_credentials/21,9"), 404) == ["could not find contact '9'"]


def test_patch_updates_one_field_and_creates_when_missing(client: FlaskClient, ada: str) -> None:
    post(client, "/api/contacts/21/pagerduty_credentials", {"pagerduty_credentials": [FULL]})
    response = patch(client, "/api/pagerduty_credentials/21,22", [
        {"op": "replace", "path": "/pagerduty_credentials/0/token", "value": "new"},
        {"op": "replace", "path": "/pagerduty_credentials/0/colour", "value": "red"},
        {"op": "replace", "path": "/pagerduty_credentials/0/username", "value": {"x": 1}}])
    assert response.status_code == 204
    assert body_of(client.get("/api/pagerduty_credentials")) == {"pagerduty_credentials": [
        credentials("21", **{**FULL, "token": "new"}), credentials("22", token="new")]}


def test_patch_errors(client: FlaskClient, ada: str) -> None:
    ops = [{"op": "replace", "path": "/pagerduty_credentials/0/token", "value": "x"}]
    assert errors(patch(client, "/api/pagerduty_credentials/21,9", ops), 404) == ["could not find contact '9'"]
    assert body_of(client.get("/api/pagerduty_credentials")) == {"pagerduty_credentials": []}
    assert errors(patch(client, "/api/pagerduty_credentials/21", {}), 400) == ["Invalid JSON-Patch request"]


def test_delete(client: FlaskClient, ada: str, real_r: redis.Redis) -> None:
    post(client, "/api/contacts/21/pagerduty_credentials", {"pagerduty_credentials": [FULL]})
    assert errors(client.delete("/api/pagerduty_credentials/21,9"), 404) == ["could not find contact '9'"]
    response = client.delete("/api/pagerduty_credentials/21,22")
    assert response.status_code == 204 and response.get_data() == b""
    assert body_of(client.get("/api/pagerduty_credentials")) == {"pagerduty_credentials": []}
    assert not real_r.exists(keys.contact_pagerduty("21"))
