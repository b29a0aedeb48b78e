"""Notification rules over the JSON API (api-v1.md 7), against a real Redis."""

from __future__ import annotations

import pytest
import redis
from flask.testing import FlaskClient

from flapjack_py import keys
from flapjack_py.model.rules import ALL_MEDIA
from tests.api.helpers import JSONAPI, body_of, errors, patch, post

WEEKDAYS = {"start_time": "2013-02-01 08:00:00", "end_time": "2013-02-01 18:00:00",
            "rrules": [{"rule_type": "Weekly", "interval": 1, "week_start": 0, "validations": {"day": [1, 2, 3, 4, 5]}}],
            "exrules": [], "rtimes": [], "extimes": []}
ITEM = {"id": "r1", "entities": ["foo-app-01.example.com"], "tags": ["physical", "database"],
        "warning_media": ["email"], "critical_media": ["sms", "email"], "warning_blackhole": False,
        "critical_blackhole": None, "time_restrictions": [WEEKDAYS], "entity_tags": ["old"], "contact_id": "x"}


@pytest.fixture
def ada(client: FlaskClient) -> str:
    assert post(client, "/api/contacts", {"contacts": [{"id": "21", "first_name": "Ada"},
                                                       {"id": "22", "first_name": "Bob"}]}).status_code == 201
    return "21"


def add_rules(client: FlaskClient, contact_id: str, *rules: dict) -> object:
    return post(client, f"/api/contacts/{contact_id}/notification_rules", {"notification_rules": list(rules)})


def test_post_creates_rules(client: FlaskClient, ada: str) -> None:
    response = add_rules(client, ada, ITEM, {"id": "r2", "regex_tags": ["^db", "^a"]})
    assert response.status_code == 201
    assert response.headers["Location"] == "http://localhost/api/notification_rules/r1,r2"
    assert body_of(response) == ["r1", "r2"]
    assert body_of(client.get("/api/notification_rules/r1")) == {"notification_rules": [{
        "id": "r1", "tags": ["database", "physical"], "regex_tags": [], "entities": ["foo-app-01.example.com"],
        "regex_entities": None, "time_restrictions": [WEEKDAYS], "unknown_media": None,
        "warning_media": ["email"], "critical_media": ["sms", "email"], "unknown_blackhole": False,
        "warning_blackhole": False, "critical_blackhole": False, "links": {"contacts": ["21"]}}]}
    assert body_of(client.get("/api/notification_rules/r2"))["notification_rules"][0]["regex_tags"] == ["^a", "^db"]
    assert {"r1", "r2"} <= set(body_of(client.get("/api/contacts/21"))["contacts"][0]["links"]["notification_rules"])


def test_post_generates_uuid(client: FlaskClient, ada: str) -> None:
    response = add_rules(client, ada, {"tags": ["x"]})
    [new_id] = body_of(response)
    assert len(new_id) == 36


@pytest.mark.parametrize("body", [{}, {"notification_rules": {}}, {"notification_rules": [ITEM, 3]}])
def test_post_invalid_wrapper_is_422(client: FlaskClient, ada: str, body: dict) -> None:
    response = post(client, "/api/contacts/21/notification_rules", body)
    assert errors(response, 422) == ["No valid notification rules were submitted"]


def test_post_unknown_contact_is_404(client: FlaskClient) -> None:
    assert errors(add_rules(client, "nope", ITEM), 404) == ["could not find contact 'nope'"]


def test_post_validation_collects_every_message_and_creates_nothing(client: FlaskClient, ada: str) -> None:
    bad = {"entities": "x", "regex_entities": [1], "tags": "db", "regex_tags": {}, "time_restrictions": [{}],
           "unknown_media": 3, "warning_media": [None], "critical_media": "sms", "unknown_blackhole": "yes",
           "warning_blackhole": 0, "critical_blackhole": []}
    response = add_rules(client, ada, ITEM, bad, {"time_restrictions": [{**WEEKDAYS, "rrules": [
        {"rule_type": "Weekly", "validations": {"day": [1, 2, 3, 4, 5, 6, 7]}}]}]})
    assert errors(response, 422) == [
        "Rule entities must be a list of strings", "Rule regex_entities must be a list of strings",
        "Rule tags must be a tag_set of strings", "Rule regex_tags must be a tag_set of strings",
        "Rule time restrictions are invalid", "Rule unknown_media must be a list of strings",
        "Rule warning_media must be a list of strings", "Rule critical_media must be a list of strings",
        "Rule unknown_blackhole must be true or false", "Rule warning_blackhole must be true or false",
        "Rule critical_blackhole must be true or false", "Rule time restrictions are invalid"]
    assert errors(client.get("/api/notification_rules/r1"), 404) == ["could not find notification rules 'r1'"]


def test_post_long_rule_type_is_invalid(client: FlaskClient, ada: str) -> None:
    restriction = {**WEEKDAYS, "rrules": [{"rule_type": "IceCube::WeeklyRule"}]}
    assert errors(add_rules(client, ada, {"time_restrictions": [restriction]}), 422) == [
        "Rule time restrictions are invalid"]


def test_post_taken_ids(client: FlaskClient, ada: str) -> None:
    add_rules(client, ada, {"id": "r1"})
    response = add_rules(client, ada, {"id": "r1"})
    assert errors(response, 422) == ["a notification rule already exists with id 'r1'"]
    response = add_rules(client, ada, {"id": "r1"}, {"id": "r2"})
    assert response.status_code == 200 and response.get_data() == b""
    assert "Location" not in response.headers
    assert body_of(client.get("/api/notification_rules/r2"))["notification_rules"][0]["id"] == "r2"


def test_get_all_and_by_ids(client: FlaskClient, ada: str) -> None:
    add_rules(client, ada, {"id": "r1"}, {"id": "r2"})
    response = client.get("/api/notification_rules")
    assert response.status_code == 200 and response.headers["Content-Type"] == JSONAPI
    assert len(body_of(response)["notification_rules"]) == 4  # plus the two automatic general rules
    assert [r["id"] for r in body_of(client.get("/api/notification_rules/r2,nope,r1"))["notification_rules"]] == \
        ["r2", "r1"]
    assert errors(client.get("/api/notification_rules/x,y"), 404) == ["could not find notification rules 'x, y'"]
    body = body_of(client.get("/api/notification_rules?per_page=3"))
    assert len(body["notification_rules"]) == 3
    assert body["meta"]["pagination"] == {"page": 1, "per_page": 3, "total_pages": 2, "total_count": 4}


def test_patch_replaces_valid_values_and_ignores_invalid(client: FlaskClient, ada: str) -> None:
    add_rules(client, ada, ITEM, {"id": "r2"})
    response = patch(client, "/api/notification_rules/r1,r2", [
        {"op": "replace", "path": "/notification_rules/0/tags", "value": ["b", "a"]},
        {"op": "replace", "path": "/notification_rules/0/critical_blackhole", "value": True},
        {"op": "replace", "path": "/notification_rules/0/time_restrictions", "value": None},
        {"op": "replace", "path": "/notification_rules/0/entities", "value": "not a list"},
        {"op": "replace", "path": "/notification_rules/0/warning_blackhole", "value": "yes"},
        {"op": "replace", "path": "/notification_rules/0/id", "value": "r9"},
        {"op": "add", "path": "/notification_rules/0/links/contacts", "value": "22"}])
    assert response.status_code == 204 and response.get_data() == b""
    for rule_id, entities in (("r1", ["foo-app-01.example.com"]), ("r2", None)):
        found = body_of(client.get(f"/api/notification_rules/{rule_id}"))["notification_rules"][0]
        assert (found["id"], found["tags"], found["critical_blackhole"], found["time_restrictions"],
                found["entities"], found["warning_blackhole"], found["links"]) == \
            (rule_id, ["a", "b"], True, None, entities, False, {"contacts": ["21"]})


def test_patch_errors(client: FlaskClient, ada: str) -> None:
    add_rules(client, ada, {"id": "r1"})
    ops = [{"op": "replace", "path": "/notification_rules/0/tags", "value": ["x"]}]
    assert errors(patch(client, "/api/notification_rules/r1,x,y", ops), 404) == [
        "could not find notification rule 'x'"]
    assert body_of(client.get("/api/notification_rules/r1"))["notification_rules"][0]["tags"] == []
    assert errors(patch(client, "/api/notification_rules/r1", []), 400) == ["Invalid JSON-Patch request"]
    response = client.patch("/api/notification_rules/r1", json=ops, content_type="application/vnd.api+json")
    assert errors(response, 415) == ["Unsupported Content-Type"]


def test_delete(client: FlaskClient, ada: str, real_r: redis.Redis) -> None:
    add_rules(client, ada, {"id": "r1"}, {"id": "r2"})
    assert errors(client.delete("/api/notification_rules/r1,nope"), 404) == ["could not find notification rule 'nope'"]
    response = client.delete("/api/notification_rules/r1,r2")
    assert response.status_code == 204 and response.get_data() == b""
    assert not real_r.exists(keys.notification_rule("r1"))
    assert not real_r.sismember(keys.contact_notification_rules(ada), "r2")
    assert errors(client.get("/api/notification_rules/r1,r2"), 404) == ["could not find notification rules 'r1, r2'"]


def test_delete_with_unknown_owner_is_404_and_deletes_nothing(client: FlaskClient, ada: str,
                                                              real_r: redis.Redis) -> None:
    add_rules(client, ada, {"id": "r1"})
    real_r.hset(keys.notification_rule("orphan"), mapping={"id": "orphan", "contact_id": "ghost"})
    assert errors(client.delete("/api/notification_rules/r1,orphan"), 404) == ["could not find contact 'ghost'"]
    assert real_r.exists(keys.notification_rule("r1"))


def test_general_rule_has_every_medium(client: FlaskClient, ada: str) -> None:
    [rule_id] = body_of(client.get("/api/contacts/21"))["contacts"][0]["links"]["notification_rules"]
    found = body_of(client.get(f"/api/notification_rules/{rule_id}"))["notification_rules"][0]
    assert found["warning_media"] == found["critical_media"] == list(ALL_MEDIA)
    assert (found["unknown_media"], found["entities"], found["tags"]) == (None, [], [])


def test_post_regex_re2_cannot_run_is_422_with_the_reason(client: FlaskClient, ada: str) -> None:
    response = add_rules(client, ada, {**ITEM, "regex_entities": ["(?<!db)-prod"]})

    [message] = errors(response, 422)
    assert message.startswith("Rule regex_entities: /(?<!db)-prod/ is not a valid RE2 regular expression")
