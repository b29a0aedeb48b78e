"""CSRF in a real browser (Debian chromium through Playwright): a logged-in responder visits another site
whose page posts the acknowledge form to Flapjack; nothing is queued. Logging in through the form works.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from flapjack_py import keys
from flapjack_py.access import Role
from tests.ui.test_browser import ARGS, CHROMIUM

from .conftest import PASSWORD, People

pytestmark = [pytest.mark.real, pytest.mark.slow,
              pytest.mark.skipif(not os.path.exists(CHROMIUM), reason=f"{CHROMIUM} is absent (apt-get install chromium)")]


def serve(app: Any) -> Iterator[str]:
    from werkzeug.serving import make_server

    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()
    thread.join(5)


@pytest.fixture
def flapjack_url(app: Any, people: People) -> Iterator[str]:
    yield from serve(app)


@pytest.fixture
def evil_url(flapjack_url: str) -> Iterator[str]:
    """Another site (same host, other port: same-site for cookies, another origin) with a self-submitting form."""
    page = f"""<!doctype html><form id="f" method="post" action="{flapjack_url}/checks/web-01/HTTP/acknowledge">
      <input name="duration" value="100 years"><input name="comment" value="pwned"></form>
      <script>document.getElementById('f').submit()</script>""".encode()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.end_headers()
            self.wfile.write(page)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}/"
    server.shutdown()
    thread.join(5)


@pytest.fixture
def page() -> Iterator[Any]:
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        tab = browser.new_page()
        tab.set_default_timeout(15_000)
        yield tab
        browser.close()


def test_a_cross_site_form_post_is_refused_in_a_real_browser(page: Any, flapjack_url: str, evil_url: str,
                                                            people: People) -> None:
    page.goto(flapjack_url + "/")
    page.wait_for_url("**/login**")
    page.fill("input[name=username]", Role.RESPONDER.value)
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(flapjack_url + "/")
    assert "responder (responder)" in page.inner_text("header")
    with page.expect_response(lambda r: "/acknowledge" in r.url) as answer:
        page.goto(evil_url)
    assert answer.value.status in (400, 403)
    assert not people.r.exists(keys.events())
