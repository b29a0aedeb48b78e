"""Every route of the app, every role: anonymous is refused, a role below the route's is 403, the right role works.

The routes come from the app's URL map, so a new route without a line in
web/policy.py fails here (and is refused to everyone at run time).
"""

from __future__ import annotations

import re
from typing import Any

import fakeredis
import flask
import pytest

import web
from flapjack_py.access import Role, allows
from web import policy

from .conftest import People, world_keys

pytestmark = pytest.mark.real


def routes() -> list[tuple[str, str, str]]:
    """(endpoint, method, sample URL) of every route of a freshly built app."""
    app = web.create_app(redis=fakeredis.FakeRedis())
    found = []
    for rule in app.url_map.iter_rules():
        for method in sorted((rule.methods or set()) - {"HEAD", "OPTIONS"}):
            found.append((rule.endpoint, method, sample_url(rule.rule)))
    return sorted(set(found))


def sample_url(rule: str) -> str:
    """The rule with every variable filled in: paths get a check id, `any(...)` its first choice."""
    rule = re.sub(r"<path:\w+>", "web-01:HTTP", rule)
    rule = re.sub(r"<any\((\w+)[^>]*>", r"\1", rule)
    return re.sub(r"<(\w+:)?\w+>", "x", rule)


ROUTES = routes()
GUARDED = [r for r in ROUTES if policy.required(r[0]) not in (policy.OPEN, policy.SIGNED)]
SIGNED = [r for r in ROUTES if policy.required(r[0]) == policy.SIGNED]
BODIES: dict[str, dict[str, Any]] = {
    "POST": {"json": {}}, "PATCH": {"json": [], "content_type": "application/json-patch+json"}, "DELETE": {},
    "GET": {},
}


def test_every_route_has_a_line_in_the_policy_table() -> None:
    missing = sorted({endpoint for endpoint, _, _ in ROUTES if policy.required(endpoint) is None})
    assert missing == [], f"add these endpoints to web/policy.py: {missing}"
    assert len(GUARDED) >= 55


def test_a_route_missing_from_the_table_is_refused_even_to_admins(make_app: Any, people: People) -> None:
    app: flask.Flask = make_app()
    app.add_url_rule("/api/forgotten", "api.forgotten", lambda: "secret")
    response = app.test_client().get("/api/forgotten", headers=people.bearer(Role.ADMIN))
    assert response.status_code == 403
    assert response.get_json(force=True) == {"errors": ["this route has no access rule"]}


@pytest.mark.parametrize(("endpoint", "method", "url"), SIGNED, ids=[f"{m} {e}" for e, m, _ in SIGNED])
def test_signed_routes_refuse_unsigned_requests_even_from_admins(make_app: Any, people: People, endpoint: str,
                                                                method: str, url: str) -> None:
    before = world_keys(people.r)
    for headers in ({}, people.bearer(Role.ADMIN)):
        response = make_app().test_client().open(url, method=method, headers=headers, data={"From": "+1"})
        assert response.status_code == 403, (endpoint, response.status_code)
    assert world_keys(people.r) == before


def test_a_signed_route_without_a_check_is_refused(make_app: Any) -> None:
    app: flask.Flask = make_app()
    policy.POLICY["api.unchecked"] = policy.SIGNED
    try:
        app.add_url_rule("/api/unchecked", "api.unchecked", lambda: "done")
        assert app.test_client().get("/api/unchecked").status_code == 403
    finally:
        del policy.POLICY["api.unchecked"]


@pytest.mark.parametrize(("endpoint", "method", "url"), GUARDED, ids=[f"{m} {e}" for e, m, _ in GUARDED])
def test_anonymous_is_refused(make_app: Any, people: People, endpoint: str, method: str, url: str) -> None:
    before = world_keys(people.r)
    response = make_app().test_client().open(url, method=method, **_body(url, method))
    if url.startswith("/api"):
        assert response.status_code == 401
        assert response.get_json(force=True) == {"errors": ["authentication required"]}
    else:
        assert response.status_code == 303
        assert response.headers["Location"].startswith("/login")
    assert world_keys(people.r) == before


@pytest.mark.parametrize(("endpoint", "method", "url"), GUARDED, ids=[f"{m} {e}" for e, m, _ in GUARDED])
def test_each_role_gets_what_the_table_says(make_app: Any, people: People, endpoint: str, method: str,
                                           url: str) -> None:
    needed = Role(policy.required(endpoint))
    for role in Role:
        client = make_app().test_client()
        if url.startswith("/api"):
            response = client.open(url, method=method, headers=people.bearer(role), **_body(url, method))
        else:
            assert people.login(client, role).status_code == 303
            response = client.open(url, method=method, **_body(url, method, client))
        refused = _refused_for_role(response)
        assert refused is not allows(role, needed), (role, response.status_code, response.get_data(as_text=True))
        assert response.status_code != 401


def _body(url: str, method: str, client: Any = None) -> dict[str, Any]:
    if not url.startswith("/api"):
        return {"data": {"csrf_token": client.csrf_token()}} if client and method == "POST" else {}
    return dict(BODIES[method])


def _refused_for_role(response: Any) -> bool:
    if response.status_code != 403:
        return False
    text = response.get_data(as_text=True)
    return "needs the" in text and "role" in text
