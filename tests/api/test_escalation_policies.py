"""[addition] Escalation policies through the API, and entities linking to them (links.escalation_policies,
JSON-Patch on /entities; ALL through the policy's links.entities)."""

from __future__ import annotations

import pytest

from flapjack_py.store import entities as entity_store
from flapjack_py.store import escalation as store

from .helpers import body_of, errors, patch, post

pytestmark = pytest.mark.real
E = "www.example.com"
POLICY = {"id": "ops", "name": "Ops", "repeat": 1,
          "levels": [{"delay": 0, "targets": [{"schedule": "primary"}]}, {"delay": 900, "targets": [{"contact": "21"}]}]}


@pytest.fixture
def eid(send, real_s, clock):
    send(E, "SSH", "ok")
    return entity_store.entity_id(real_s, E)


def test_create_get_patch_delete(client, real_s, eid):
    res = post(client, "/api/escalation_policies", {"escalation_policies": [{**POLICY, "links": {"entities": ["ALL"]}}]})
    assert res.status_code == 201 and body_of(res) == ["ops"]
    [got] = body_of(client.get("/api/escalation_policies/ops"))["escalation_policies"]
    assert got == {**POLICY, "links": {"entities": ["ALL"]}}
    ops = [{"op": "replace", "path": "/escalation_policies/0/repeat", "value": 0},
           {"op": "add", "path": "/escalation_policies/0/links/entities", "value": eid},
           {"op": "remove", "path": "/escalation_policies/0/links/entities/ALL"}]
    assert patch(client, "/api/escalation_policies/ops", ops).status_code == 204
    [got] = body_of(client.get("/api/escalation_policies"))["escalation_policies"]
    assert got["repeat"] == 0 and got["links"] == {"entities": [eid]}
    assert store.policy_for_entity(real_s, eid).id == "ops"
    assert client.delete("/api/escalation_policies/ops").status_code == 204
    assert errors(client.get("/api/escalation_policies/ops"), 404) == ["could not find escalation_policies 'ops'"]
    assert store.linked_policy_ids(real_s, eid) == []


def test_entities_link_to_policies_by_json_patch(client, real_s, eid):
    post(client, "/api/escalation_policies", {"escalation_policies": [POLICY]})
    link = [{"op": "add", "path": "/entities/0/links/escalation_policies", "value": "ops"},
            {"op": "add", "path": "/entities/0/links/escalation_policies", "value": "unknown"}]
    assert patch(client, f"/api/entities/{eid}", link).status_code == 204
    [entity] = body_of(client.get(f"/api/entities/{eid}"))["entities"]
    assert entity["links"]["escalation_policies"] == ["ops"]
    unlink = [{"op": "remove", "path": "/entities/0/links/escalation_policies/ops"}]
    assert patch(client, f"/api/entities/{eid}", unlink).status_code == 204
    assert body_of(client.get(f"/api/entities/{eid}"))["entities"][0]["links"]["escalation_policies"] == []


@pytest.mark.parametrize(("over", "says"), [
    ({"levels": []}, "levels must be a list"),
    ({"levels": [{"delay": -1, "targets": [{"contact": "21"}]}]}, "delay must be"),
    ({"levels": [{"delay": 0, "targets": [{"team": "x"}]}]}, "a target is"),
    ({"repeat": 99}, "repeat must be"),
    ({"links": {"entities": ["nope"]}}, "could not find entity 'nope'"),
])
def test_bad_policies_are_refused(client, eid, over, says):
    assert says in errors(post(client, "/api/escalation_policies", {"escalation_policies": [{**POLICY, **over}]}), 422)[0]
