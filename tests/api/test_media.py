"""Media over the JSON API (api-v1.md 5), against a real Redis."""

from __future__ import annotations

import pytest
import redis
from flask.testing import FlaskClient

from flapjack_py import keys
from tests.api.helpers import body_of, errors, patch, post


@pytest.fixture
def ada(client: FlaskClient) -> str:
    assert post(client, "/api/contacts", {"contacts": [{"id": "a_b", "first_name": "Ada"}]}).status_code == 201
    return "a_b"


def add_media(client: FlaskClient, contact_id: str, *media: dict) -> object:
    return post(client, f"/api/contacts/{contact_id}/media", {"media": list(media)})


def medium(contact_id: str, kind: str, address: str, interval: int | None = None,
           rollup_threshold: int | None = None) -> dict:
    return {"id": f"{contact_id}_{kind}", "type": kind, "address": address, "interval": interval,
            "rollup_threshold": rollup_threshold, "links": {"contacts": [contact_id]}}


def test_post_upserts_media(client: FlaskClient, ada: str, real_r: redis.Redis) -> None:
    response = add_media(client, ada, {"type": "sms_twilio", "address": "+61412345678", "interval": 300,
                                       "rollup_threshold": 5},
                         {"id": "a_b_email", "type": "email", "address": "ada@example.com", "interval": "120"},
                         {"type": "pagerduty", "address": "ignored"})
    assert response.status_code == 201
    assert response.headers["Location"] == "http://localhost/api/media/a_b_sms_twilio,a_b_email,a_b_pagerduty"
    assert body_of(response) == ["a_b_sms_twilio", "a_b_email", "a_b_pagerduty"]
    assert body_of(client.get("/api/media")) == {"media": [
        medium(ada, "sms_twilio", "+61412345678", 300, 5), medium(ada, "email", "ada@example.com", 120)]}
    assert real_r.hget(keys.contact_media(ada), "pagerduty") is None
    response = add_media(client, ada, {"type": "email", "address": "new@example.com"})
    assert response.status_code == 201
    assert body_of(client.get("/api/media/a_b_email")) == {"media": [medium(ada, "email", "new@example.com")]}


@pytest.mark.parametrize(("body", "message"), [
    ({}, "No valid media were submitted"),
    ({"media": {"type": "email"}}, "No valid media were submitted"),
    ({"media": ["email"]}, "No valid media were submitted"),
    ({"media": [{"type": "email", "address": ["x"]}]}, "No valid media were submitted"),
    ({"media": [{"type": "email", "address": "a@b", "interval": "soon"}]}, "No valid media were submitted"),
    ({"media": [{"type": "email", "address": "a@b", "rollup_threshold": True}]}, "No valid media were submitted"),
    ({"media": [{"id": "other_email", "type": "email", "address": "a@b"}]},
     "Media creation cannot include non-conformant IDs"),
    ({"media": [{"id": 5, "type": "email", "address": "a@b"}]}, "Media creation cannot include non-conformant IDs"),
    ({"media": [{"type": "pigeon", "address": "a@b"}]}, "Invalid media type 'pigeon'"),
    ({"media": [{"address": "a@b"}]}, "Invalid media type ''"),
])
def test_post_invalid_items_are_422_and_nothing_is_stored(client: FlaskClient, ada: str, body: dict,
                                                          message: str) -> None:
    body = {"media": [{"type": "sms", "address": "+1"}, *body["media"]]} if isinstance(body.get("media"), list) \
        else body
    assert errors(post(client, f"/api/contacts/{ada}/media", body), 422) == [message]
    assert body_of(client.get("/api/media")) == {"media": []}


def test_post_for_unknown_contact_is_422(client: FlaskClient) -> None:
    response = add_media(client, "nope", {"type": "email", "address": "a@b"})
    assert errors(response, 422) == ["Contact id: 'nope' could not be loaded"]


def test_post_when_locked_is_423(client: FlaskClient, ada: str, real_r: redis.Redis) -> None:
    real_r.set(keys.contact_mass_update_lock(), "other")
    response = add_media(client, ada, {"type": "email", "address": "a@b"})
    assert errors(response, 423) == ["unable to obtain lock for resource 'contact_mass_update'"]


def test_get_by_ids_parses_longest_contact_id_and_omits_missing(client: FlaskClient, ada: str) -> None:
    add_media(client, ada, {"type": "sms_twilio", "address": "+61"}, {"type": "email", "address": "a@b"})
    body = body_of(client.get("/api/media/a_b_email,a_b_sms,a_b_sms_twilio"))
    assert [m["id"] for m in body["media"]] == ["a_b_email", "a_b_sms_twilio"]
    assert body_of(client.get("/api/media/a_b_jabber")) == {"media": []}


@pytest.mark.parametrize("media_id", ["a_b_pagerduty", "a_b", "email", "_email", "a_b_pigeon"])
def test_get_unparseable_id_is_422(client: FlaskClient, ada: str, media_id: str) -> None:
    assert errors(client.get(f"/api/media/{media_id}"), 422) == [
        f"Could not get contact_id from media_id '{media_id}'"]


def test_get_unknown_contact_is_404(client: FlaskClient, ada: str) -> None:
    assert errors(client.get("/api/media/a_b_email,zz_sms"), 404) == ["could not find contact 'zz'"]


def test_get_all_follows_contact_order_and_paginates(client: FlaskClient) -> None:
    post(client, "/api/contacts", {"contacts": [{"id": "1", "first_name": "Zed", "last_name": "Z"},
                                                {"id": "2", "first_name": "Amy", "last_name": "A"}]})
    add_media(client, "1", {"type": "email", "address": "z@b"})
    add_media(client, "2", {"type": "sms", "address": "+1"}, {"type": "email", "address": "a@b"})
    assert [m["id"] for m in body_of(client.get("/api/media"))["media"]] == ["2_sms", "2_email", "1_email"]
    body = body_of(client.get("/api/media?per_page=2&page=2"))
    assert [m["id"] for m in body["media"]] == ["1_email"]
    assert body["meta"]["pagination"] == {"page": 2, "per_page": 2, "total_pages": 2, "total_count": 3}


def test_patch_replaces_fields_of_every_medium(client: FlaskClient, ada: str) -> None:
    add_media(client, ada, {"type": "email", "address": "a@b", "interval": 10, "rollup_threshold": 2},
              {"type": "sms", "address": "+1"})
    response = patch(client, "/api/media/a_b_email,a_b_sms,a_b_jabber", [
        {"op": "replace", "path": "/media/0/interval", "value": 80},
        {"op": "replace", "path": "/media/0/rollup_threshold", "value": None},
        {"op": "replace", "path": "/media/0/type", "value": "slack"},
        {"op": "replace", "path": "/media/0/interval", "value": "never"},
        {"op": "add", "path": "/media/0/links/contacts", "value": "x"}])
    assert response.status_code == 204
    assert body_of(client.get("/api/media"))["media"] == [medium(ada, "email", "a@b", 80),
                                                         medium(ada, "sms", "+1", 80)]
    patch(client, "/api/media/a_b_sms", [{"op": "replace", "path": "/media/0/address", "value": "+2"}])
    assert body_of(client.get("/api/media/a_b_sms"))["media"][0]["address"] == "+2"


def test_patch_errors(client: FlaskClient, ada: str) -> None:
    ops = [{"op": "replace", "path": "/media/0/interval", "value": 80}]
    assert errors(patch(client, "/api/media/a_b_email,x_sms", ops), 404) == ["could not find contact 'x'"]
    assert errors(patch(client, "/api/media/bogus", ops), 422) == [
        "Could not get contact_id from media_id 'bogus'"]
    assert errors(patch(client, "/api/media/a_b_email", []), 400) == ["Invalid JSON-Patch request"]


def test_delete_removes_address_interval_and_threshold(client: FlaskClient, ada: str, real_r: redis.Redis) -> None:
    add_media(client, ada, {"type": "email", "address": "a@b", "interval": 10, "rollup_threshold": 2},
              {"type": "sms", "address": "+1"})
    response = client.delete("/api/media/a_b_email,a_b_jabber")
    assert response.status_code == 204 and response.get_data() == b""
    assert [m["id"] for m in body_of(client.get("/api/media"))["media"]] == ["a_b_sms"]
    assert real_r.hget(keys.contact_media_intervals(ada), "email") is None
    assert real_r.hget(keys.contact_media_rollup_thresholds(ada), "email") is None


def test_delete_errors(client: FlaskClient, ada: str) -> None:
    assert errors(client.delete("/api/media/x_email"), 404) == ["could not find contact 'x'"]
    assert errors(client.delete("/api/media/x"), 422) == ["Could not get contact_id from media_id 'x'"]
