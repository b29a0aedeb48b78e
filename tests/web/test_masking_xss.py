"""What each role sees of contacts (addresses masked for viewers, credentials for non-admins), and stored
`<script>` shown as text on every page and in email HTML.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from flapjack_py.access import MASK, Role
from flapjack_py.config.settings import load_config
from flapjack_py.notify import render
from flapjack_py.store import media as media_store
from flapjack_py.store.plumbing.client import StrRedis
from tests.ui.conftest import World

from .conftest import People

pytestmark = pytest.mark.real
XSS = "<script>alert(1)</script>"
IMG = "<img src=x onerror=alert(2)>"
E, C = f"web-01{IMG}", f"HTTP {XSS}"  # entity names cannot hold "/" in UI URLs
EMAIL, PHONE = "ann@example.com", "+15551234567"
PD = {"service_key": "pd-routing-key-123", "subdomain": "acme", "token": "pd-api-token-456", "username": "ann-pd",
      "password": "pd-password-789"}
SECRETS = (PD["service_key"], PD["token"], PD["password"])


@pytest.fixture
def world(real_r: Any, people: People, clock: Any, real_s: StrRedis) -> World:
    """Contact ann (email, sms, PagerDuty) on an entity and check whose names and summary hold a script; alerted."""
    found = World(real_r)
    found.contact("ann", f"Ann{XSS}", f"Oncall{XSS}", E, email=EMAIL)
    media_store.set_medium(real_s, "ann", "sms", PHONE, 60)
    media_store.set_pagerduty_credentials(real_s, "ann", PD)
    found.event(E, C, "ok")
    found.drain()
    clock.advance(10)
    found.event(E, C, "critical", XSS, initial_failure_delay=0, details=XSS)
    found.drain()
    return found


def pages() -> list[str]:
    from urllib.parse import quote

    check = f"/checks/{quote(E)}/{quote(C)}"
    return ["/", "/checks", check, "/entities", f"/entities/{quote(E)}", "/contacts", "/contacts/ann", "/alerts",
            "/status"]


def api_text(client: Any, people: People, role: Role) -> str:
    paths = ["/api/contacts", "/api/media", "/api/pagerduty_credentials", "/api/alerts", "/api/contacts/ann/alerts"]
    return "".join(client.get(p, headers=people.bearer(role)).get_data(as_text=True) for p in paths)


def ui_text(client: Any, people: People, role: Role) -> str:
    people.login(client, role)
    texts = []
    for url in pages():
        response = client.get(url)
        assert response.status_code == 200, url
        texts.append(response.get_data(as_text=True))
    return "".join(texts)


def test_a_viewer_sees_no_address_and_no_credential(world: World, client: Any, people: People) -> None:
    for text in (api_text(client, people, Role.VIEWER), ui_text(client, people, Role.VIEWER)):
        for secret in (EMAIL, PHONE, PD["username"], *SECRETS):
            assert secret not in text
        assert MASK in text or json.dumps(MASK)[1:-1] in text  # the API's JSON escapes it


def test_a_responder_sees_addresses_but_no_credential(world: World, client: Any, people: People) -> None:
    for text in (api_text(client, people, Role.RESPONDER), ui_text(client, people, Role.RESPONDER)):
        assert EMAIL in text and PHONE in text
        for secret in SECRETS:
            assert secret not in text


def test_an_admin_sees_everything(world: World, client: Any, people: People) -> None:
    text = api_text(client, people, Role.ADMIN)
    assert EMAIL in text and PHONE in text and all(secret in text for secret in SECRETS)


UI_SCRIPTS = ('<script src="/ui-static/localtime.js" defer></script>',
              '<script src="/ui-static/live.js" defer></script>',
              '<script src="/ui-static/bulk.js" defer></script>',
              '<script src="/ui-static/vendor/uplot/uPlot.iife.min.js" defer></script>',
              '<script src="/ui-static/charts.js" defer></script>')


def test_stored_script_is_text_on_every_page(world: World, client: Any, people: People) -> None:
    people.login(client, Role.ADMIN)
    for url in pages():
        page = client.get(url).get_data(as_text=True)
        assert XSS not in page and IMG not in page, url
        for script in UI_SCRIPTS:  # the UI's scripts: static files (CSP 'self')
            page = page.replace(script, "")
        assert "<script" not in page.lower() and "<img" not in page.lower(), url
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in client.get(pages()[2]).get_data(as_text=True)


def test_stored_script_is_text_in_email_html() -> None:
    alert = {"media": "email", "event_id": f"{E}:{C}", "notification_type": "problem", "state": "critical",
             "summary": XSS, "details": XSS, "contact_first_name": XSS, "time": 1_700_000_000}
    html = render.render_template("email", "alert.html", alert, load_config(None))
    assert XSS not in html and "<script" not in html.lower()
    assert "&lt;script&gt;" in html
