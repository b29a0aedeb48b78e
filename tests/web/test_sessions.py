"""UI login: the form, sessions (cookie flags, idle timeout, logout, password change), the rate limit, the open mode."""

from __future__ import annotations

from typing import Any

import pytest

from flapjack_py import credentials
from flapjack_py.access import Role
from flapjack_py.store import users as user_store
from flapjack_py.store.plumbing.client import StrRedis

from .conftest import PASSWORD, People

pytestmark = pytest.mark.real


def test_pages_redirect_to_the_login_form_and_back(client: Any, people: People) -> None:
    response = client.get("/entities?q=db")
    assert response.status_code == 303 and response.headers["Location"] == "/login?next=/entities?q%3Ddb"
    form = client.get(response.headers["Location"]).get_data(as_text=True)
    assert 'name="username"' in form and 'name="password"' in form and 'name="csrf_token"' in form
    assert "failing" not in form  # nothing about the monitored world before login
    logged_in = client.post("/login", data={"username": "viewer", "password": PASSWORD, "next": "/entities?q=db"})
    assert logged_in.status_code == 303 and logged_in.headers["Location"] == "/entities?q=db"
    assert client.get("/entities").status_code == 200


def test_the_session_cookie_is_httponly_and_lax(client: Any, people: People) -> None:
    response = people.login(client, Role.VIEWER)
    cookie = [c for c in response.headers.getlist("Set-Cookie") if c.startswith("flapjack_session=")][-1]
    assert "HttpOnly" in cookie and "SameSite=Lax" in cookie and "Secure" not in cookie


def test_secure_cookies_setting(make_app: Any, people: People) -> None:
    client = make_app(secure_cookies=True).test_client()
    response = people.login(client, Role.VIEWER)
    assert "Secure" in [c for c in response.headers.getlist("Set-Cookie") if c.startswith("flapjack_session=")][-1]


def test_a_wrong_password_or_unknown_user_is_refused(client: Any, people: People) -> None:
    for name, password in (("viewer", "wrong password"), ("nobody", PASSWORD), ("viewer", "")):
        response = client.post("/login", data={"username": name, "password": password})
        assert response.status_code == 401 and "Unknown user or wrong password" in response.get_data(as_text=True)
    assert client.get("/").status_code == 303


def test_logout_ends_the_session(client: Any, people: People) -> None:
    people.login(client, Role.VIEWER)
    assert client.get("/").status_code == 200
    assert client.post("/logout").headers["Location"] == "/login"
    assert client.get("/").status_code == 303


def test_idle_sessions_end(client: Any, people: People, clock: Any) -> None:
    people.login(client, Role.VIEWER)
    clock.advance(3000)
    assert client.get("/").status_code == 200  # activity restarts the idle clock
    clock.advance(3000)
    assert client.get("/").status_code == 200
    clock.advance(3601)
    assert client.get("/").status_code == 303


def test_a_password_change_or_deletion_ends_open_sessions(client: Any, people: People) -> None:
    people.login(client, Role.RESPONDER)
    assert client.get("/").status_code == 200
    user = user_store.load_user(people.s, "responder")
    assert user is not None
    user_store.save_user(people.s, user_store.User(user.name, user.role, credentials.hash_password("new password!"), 0))
    assert client.get("/").status_code == 303
    people.login(client, Role.RESPONDER, "new password!")
    assert client.get("/").status_code == 200
    user_store.remove_user(people.s, "responder")
    assert client.get("/").status_code == 303


def test_next_stays_on_this_site(client: Any, people: People) -> None:
    for target in ("https://evil.example/", "//evil.example", "/\t/evil.example", "/\\evil.example", "javascript:x"):
        response = client.post("/login", data={"username": "viewer", "password": PASSWORD, "next": target})
        assert response.headers["Location"] == "/", target


def test_refresh_redirects_stay_on_this_site(client: Any) -> None:
    for query in ("next=/%09/evil.example", "next=//evil.example", "next=https://evil.example", "next=/%5Cevil.example"):
        response = client.get(f"/refresh?every=15&{query}")
        assert response.status_code == 303 and response.headers["Location"] == "/", query
    assert client.get("/refresh?every=15&next=/entities?q=a").headers["Location"] == "/entities?q=a"


def test_failed_logins_are_limited_per_user_and_per_address(make_app: Any, people: People) -> None:
    app = make_app(login_rate_limit="3 per 15 minutes")

    def attempt(name: str, address: str, password: str = "wrong password") -> int:
        client = app.test_client()
        client.environ_base["REMOTE_ADDR"] = address
        return int(client.post("/login", data={"username": name, "password": password}).status_code)

    assert [attempt("viewer", f"10.0.0.{n}") for n in range(4)] == [401, 401, 401, 429]  # per user
    assert attempt("viewer", "10.0.0.9", PASSWORD) == 429  # even the right password, until the window ends
    assert [attempt(f"guess{n}", "10.9.9.9") for n in range(4)] == [401, 401, 401, 429]  # per address
    assert attempt("admin", "10.0.0.50", PASSWORD) == 303  # others are not locked out
    assert attempt("admin", "10.0.0.51", PASSWORD) == 303  # successes are not counted


def test_the_open_mode_shows_a_banner(client: Any) -> None:
    page = client.get("/").get_data(as_text=True)
    assert "No user exists" in page and "flapjack user add NAME --role admin --password-stdin" in page


def test_no_banner_once_users_exist(client: Any, people: People) -> None:
    people.login(client, Role.ADMIN)
    page = client.get("/").get_data(as_text=True)
    assert "No user exists" not in page and "admin (admin)" in page


def test_a_viewer_is_not_shown_forms_it_may_not_use(client: Any, people: People, real_r: Any) -> None:
    from tests.ui.conftest import World

    world = World(real_r)
    world.event("web-01", "HTTP", "critical")
    world.drain()
    people.login(client, Role.VIEWER)
    page = client.get("/checks/web-01/HTTP").get_data(as_text=True)
    assert "ack-form" not in page and "may look but not change" in page
    people.login(client, Role.RESPONDER)
    assert "ack-form" in client.get("/checks/web-01/HTTP").get_data(as_text=True)


def test_long_lists_are_paged(client: Any, real_r: Any, real_s: StrRedis) -> None:
    from flapjack_py.store import contacts as contact_store
    from flapjack_py.store import entities as entity_store

    contact_store.create_contact(real_s, {"id": "ann", "first_name": "Ann"})
    for n in range(450):
        entity_store.save_entity(real_s, f"id-{n}", f"host-{n:04d}")
        entity_store.add_entity_contacts(real_s, f"id-{n}", ["ann"])
    page = client.get("/entities?page=3").get_data(as_text=True)
    assert "host-0449" in page and "host-0399" not in page and "Page 3 of 3 (450)" in page
    page = client.get("/contacts/ann?entities_page=2").get_data(as_text=True)
    assert "host-0200" in page and "host-0199" not in page and "host-0400" not in page
    assert 'href="/contacts/ann?entities_page=3"' in page
    assert "Page 2 of 3" in client.get("/entities?page=2&_external=1&_scheme=javascript").get_data(as_text=True)
    assert "javascript:" not in client.get("/entities?page=2&_external=1&_scheme=javascript").get_data(as_text=True)
