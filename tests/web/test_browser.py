"""CSRF in a real browser (Debian chromium through Playwright): a logged-in responder visits another site
whose page posts the acknowledge form to Flapjack; nothing is queued. Logging in through the form works.
"""

from __future__ import annotations

from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from flapjack_py import keys
from flapjack_py.access import Role
from tests.browser import BROWSER_TEST, serving

from .conftest import PASSWORD, People

pytestmark = BROWSER_TEST


@pytest.fixture
def evil_url(base_url: str) -> Iterator[str]:
    """Another site (same host, other port: same-site for cookies, another origin) with a self-submitting form."""
    page = f"""<!doctype html><form id="f" method="post" action="{base_url}/checks/web-01/HTTP/acknowledge">
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

    with serving(ThreadingHTTPServer(("127.0.0.1", 0), Handler)) as url:
        yield url + "/"


def test_a_cross_site_form_post_is_refused_in_a_real_browser(people: People, page: Any, base_url: str,
                                                            evil_url: str) -> None:
    page.goto(base_url + "/")
    page.wait_for_url("**/login**")
    page.fill("input[name=username]", Role.RESPONDER.value)
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(base_url + "/")
    assert "responder (responder)" in page.inner_text("header")
    with page.expect_response(lambda r: "/acknowledge" in r.url) as answer:
        page.goto(evil_url)
    assert answer.value.status in (400, 403)
    assert not people.r.exists(keys.events())
