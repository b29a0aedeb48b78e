"""CSRF tokens and Origin checks on writes, security headers on every page, body size limits, empty tokens."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from flapjack_py import keys
from flapjack_py.access import Role, exposure_problem, is_loopback
from flapjack_py.errors import ConfigError
from web.headers import SECURITY_HEADERS

from .conftest import People, known_check, world_keys
from .test_policy import ROUTES

pytestmark = pytest.mark.real
ACK = "/checks/web-01/HTTP/acknowledge"
FORM = {"duration": "1 hour", "comment": "on it"}


@pytest.mark.parametrize("logged_in", [False, True], ids=["open mode", "responder"])
def test_a_form_post_without_the_csrf_token_changes_nothing(make_app: Any, people: People, logged_in: bool) -> None:
    if not logged_in:
        people.r.flushall()  # no user, no token: the open mode, where CSRF matters just as much
    known_check(people.r)
    client = make_app().test_client()
    if logged_in:
        people.login(client, Role.RESPONDER)
    before = world_keys(people.r)
    response = client.post(ACK, data={**FORM, "csrf_token": ""})
    assert response.status_code == 400 and "CSRF" in response.get_data(as_text=True)
    assert world_keys(people.r) == before and not people.r.exists(keys.events())
    assert client.post(ACK, data=FORM).status_code == 303  # with the token it works
    assert people.r.llen(keys.events()) == 1


@pytest.mark.parametrize("headers", [{"Origin": "https://evil.example"}, {"Origin": "null"},
                                     {"Sec-Fetch-Site": "cross-site"}])
def test_a_form_post_from_another_origin_changes_nothing(client: Any, people: People, headers: dict[str, str]) -> None:
    known_check(people.r)
    people.login(client, Role.RESPONDER)
    token = client.csrf_token()
    response = client.post(ACK, data={**FORM, "csrf_token": token}, headers=headers)
    assert response.status_code == 403
    assert not people.r.exists(keys.events())
    assert client.post(ACK, data={**FORM, "csrf_token": token}, headers={"Origin": "http://localhost"}).status_code \
        == 303


def test_an_api_write_from_another_origin_is_refused_even_in_the_open_mode(client: Any, real_r: Any) -> None:
    response = client.post("/api/test_notifications/checks/web-01:HTTP", headers={"Origin": "https://evil.example"})
    assert response.status_code == 403 and not real_r.exists(keys.events())
    response = client.post("/api/contacts/1", data={"_method": "DELETE"}, headers={"Origin": "https://evil.example"})
    assert response.status_code == 403


def test_a_browser_session_calls_the_api_with_the_csrf_header(client: Any, people: People) -> None:
    people.login(client, Role.RESPONDER)
    assert client.get("/api/contacts").status_code == 200  # reads need no token
    url = "/api/test_notifications/checks/web-01:HTTP"
    assert client.post(url).status_code == 400  # a write needs the CSRF header
    assert not people.r.exists(keys.events())
    response = client.post(url, headers={"X-CSRFToken": client.csrf_token()})
    assert response.status_code == 404 and "could not find" in response.get_data(as_text=True)  # past the gate


def test_security_headers_on_every_page(client: Any, people: People) -> None:
    people.login(client, Role.ADMIN)
    gets = sorted({url for _, method, url in ROUTES if method == "GET"}) + ["/login", "/nothing", "/api/nothing"]
    for url in gets:
        response = client.get(url)
        for name, value in SECURITY_HEADERS.items():
            assert response.headers.get(name) == value, (url, name)
    csp = SECURITY_HEADERS["Content-Security-Policy"]
    assert "script-src 'self'" in csp and "frame-ancestors 'none'" in csp and "unsafe-inline" not in csp


def test_no_inline_script_in_any_template() -> None:
    for template in Path(__file__).resolve().parents[2].joinpath("web", "templates").rglob("*.html"):
        text = template.read_text().lower()
        assert not re.search(r"<script(?![^>]*\bsrc=)", text), f"{template}: inline script (CSP refuses it)"
        assert not re.search(r"\son[a-z]+\s*=", text), f"{template}: inline event handler"


@pytest.mark.parametrize("path", ["/api/contacts", "/checks/web-01/HTTP/acknowledge", "/login"])
def test_bodies_over_the_limit_are_413_before_they_are_read(make_app: Any, real_r: Any, path: str) -> None:
    client = make_app(max_content_length=2048).test_client()
    response = client.post(path, data=b"x" * 2049, content_type="application/json")
    assert response.status_code == 413
    if path.startswith("/api"):
        assert response.get_json(force=True)["errors"]
    assert client.post("/api/contacts", json={"contacts": [{"id": "1", "first_name": "A"}]}).status_code == 201


def test_an_empty_token_is_never_valid(make_app: Any, real_r: Any) -> None:
    with pytest.raises(ConfigError):
        make_app(api_token="")  # e.g. api_token: ${UNSET_OR_EMPTY}: refused at startup
    client = make_app(api_token="s3cret-token").test_client()
    for header in ("Bearer ", "Bearer", "Bearer  ", ""):
        assert client.get("/api/contacts", headers={"Authorization": header}).status_code == 401
    assert client.get("/").status_code == 303  # and the UI needs a login too


def test_web_api_token_acts_as_an_admin(make_app: Any, people: People) -> None:
    client = make_app(api_token=["s3cret-token"]).test_client()
    response = client.post("/api/contacts", json={"contacts": [{"id": "9", "first_name": "A"}]},
                           headers={"Authorization": "Bearer s3cret-token"})
    assert response.status_code == 201


def test_listening_beyond_loopback_needs_a_user_or_allow_anonymous() -> None:
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost") and is_loopback("[::1]")
    assert not is_loopback("0.0.0.0") and not is_loopback("monitor.example.com") and not is_loopback("10.1.2.3")
    problem = exposure_problem("0.0.0.0", credentials_exist=False, allow_anonymous=False)
    assert problem and "flapjack user add" in problem and "web.allow_anonymous" in problem
    assert exposure_problem("0.0.0.0", credentials_exist=True, allow_anonymous=False) is None
    assert exposure_problem("0.0.0.0", credentials_exist=False, allow_anonymous=True) is None
    assert exposure_problem("127.0.0.1", credentials_exist=False, allow_anonymous=False) is None
