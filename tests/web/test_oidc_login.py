"""Single sign-on against a real OpenID Connect provider on loopback (npm's oidc-provider 8.x, started by a
fixture, installed by scripts/test), driven through the real redirect flow in headless Chromium: a user in the
admins group gets admin, one in ops gets responder on team ops, one in no mapped group is refused with a
page saying so, and a forged `state` is refused."""

from __future__ import annotations

import os
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import flask
import flask.testing
import pytest

from flapjack_py.access import Role
from flapjack_py.config.redaction import config_secrets
from flapjack_py.config.settings import load_config
from flapjack_py.store import audit
from flapjack_py.store import teams as team_store
from flapjack_py.store import users as user_store
from tests.browser import BROWSER_TEST

from .conftest import PASSWORD, People

pytestmark = BROWSER_TEST
PROVIDER_DIR = Path(os.environ.get("FLAPJACK_OIDC_PROVIDER_DIR",
                                   Path.home() / ".cache/flapjack-py/oidc-provider-8"))
SCRIPT = Path(__file__).with_name("oidc_provider.mjs")
SECRET = "flapjack-client-secret-for-tests"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def provider_port() -> int:
    return _free_port()


def _oidc(port: int) -> dict[str, Any]:
    return {"issuer": f"http://127.0.0.1:{port}", "client_id": "flapjack", "client_secret": SECRET,
            "role_map": {"admins": "admin", "ops": "responder"}, "team_map": {"ops": "ops"}}


@pytest.fixture
def app(make_app: Any, people: People, provider_port: int) -> flask.Flask:
    return make_app(oidc=_oidc(provider_port))  # type: ignore[no-any-return]


@pytest.fixture
def provider(base_url: str, provider_port: int) -> Iterator[str]:
    """The provider, its client redirecting to the app served at `base_url`."""
    assert (PROVIDER_DIR / "node_modules/oidc-provider").is_dir(), f"oidc-provider missing in {PROVIDER_DIR}: " \
        "scripts/test installs it"
    process = subprocess.Popen(["node", str(SCRIPT), str(PROVIDER_DIR), str(provider_port),
                                f"{base_url}/login/sso/callback", SECRET],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 20
        while True:
            assert process.poll() is None, f"oidc-provider exited: {process.stderr.read() if process.stderr else ''}"
            try:
                socket.create_connection(("127.0.0.1", provider_port), timeout=0.2).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "oidc-provider did not listen"
                time.sleep(0.1)
        yield f"http://127.0.0.1:{provider_port}"
    finally:
        process.terminate()
        process.wait(timeout=10)


def _sign_in(browser: Any, base_url: str, name: str) -> Any:
    """Click "Sign in with SSO", log in at the provider as `name`, consent; the tab where it ends."""
    page = browser.new_context().new_page()
    page.set_default_timeout(15_000)
    page.goto(f"{base_url}/login")
    page.click("#sso")
    page.fill('input[name="login"]', name)
    page.fill('input[name="password"]', "any")
    page.click('button[type="submit"]')
    page.click('button[type="submit"]')  # consent: Continue
    page.wait_for_url(f"{base_url}/**")
    page.wait_for_load_state()
    return page


def test_groups_give_the_role_and_team(people: People, provider: str, browser: Any, base_url: str) -> None:
    admin = _sign_in(browser, base_url, "ada")
    assert "Log in" not in admin.title() and admin.goto(f"{base_url}/audit").status == 200
    assert user_store.load_user(people.s, "ada").role is Role.ADMIN  # type: ignore[union-attr]
    responder = _sign_in(browser, base_url, "olga")
    assert responder.goto(f"{base_url}/audit").status == 403 and responder.goto(f"{base_url}/").status == 200
    assert user_store.load_user(people.s, "olga").role is Role.RESPONDER  # type: ignore[union-attr]
    assert [(t.id, t.members) for t in team_store.list_teams(people.s)] == [("ops", ("olga",))]
    now = int(time.time())
    assert [(e.actor, e.detail, e.outcome) for e in audit.read(people.s, now - 60, now + 60)
            if e.action == "login"] == [("ada", "oidc", "ok"), ("olga", "oidc", "ok")]


def test_a_user_in_no_mapped_group_is_refused(people: People, provider: str, browser: Any, base_url: str) -> None:
    page = _sign_in(browser, base_url, "carl")
    assert "Single sign-on refused: carl is in no group that gives a role" in page.content()
    assert user_store.load_user(people.s, "carl") is None
    assert page.goto(f"{base_url}/").url.startswith(f"{base_url}/login")


def test_a_forged_state_is_refused(people: People, provider: str, browser: Any, base_url: str) -> None:
    page = browser.new_context().new_page()
    page.goto(f"{base_url}/login/sso")  # a sign-in under way: the session holds its state
    answer = page.goto(f"{base_url}/login/sso/callback?code=forged-code&state=forged-state")
    assert answer.status == 403 and "state does not match" in page.content()
    assert page.goto(f"{base_url}/").url.startswith(f"{base_url}/login")


def test_the_client_secret_is_a_secret_and_the_password_form_can_go(make_app: Any, people: People,
                                                                     provider_port: int) -> None:
    assert SECRET in config_secrets(load_config({"web": {"oidc": _oidc(provider_port)}}))
    with_form = make_app(oidc=_oidc(provider_port)).test_client()
    token = with_form.csrf_token()  # a valid session and CSRF token, as a script keeping an old page would have
    app = make_app(oidc=_oidc(provider_port), password_login=False)
    app.test_client_class = flask.testing.FlaskClient
    client = app.test_client()
    client.set_cookie("flapjack_session", with_form.get_cookie("flapjack_session").value)
    page = client.get("/login").get_data(as_text=True)
    assert "Sign in with SSO" in page and 'name="password"' not in page
    refused = client.post("/login", data={"username": "admin", "password": PASSWORD, "csrf_token": token})
    assert refused.status_code == 401 and client.get("/").status_code == 303
