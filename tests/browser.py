"""What the real-browser tests share (Debian chromium through Playwright, never `playwright install`).

The fixtures (`browser`, `page`, `base_url`) are in tests/conftest.py; a browser test module sets
`pytestmark = BROWSER_TEST`.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
TIMEOUT_MS = 15_000
"""Playwright's wait for a page event or element (a loaded machine is slow)."""

BROWSER_TEST = [pytest.mark.real, pytest.mark.slow,
                pytest.mark.skipif(not os.path.exists(CHROMIUM), reason=f"{CHROMIUM} is absent (apt-get install chromium)")]
"""The marks of a test module that drives chromium."""


@contextmanager
def serving(server: Any) -> Iterator[str]:
    """Run `server` (anything with serve_forever/shutdown, bound to 127.0.0.1) in a thread; yield its base URL."""
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        thread.join(5)


@contextmanager
def serving_app(app: Any) -> Iterator[str]:
    """The WSGI `app` served by werkzeug on 127.0.0.1, a free port, in a thread."""
    from werkzeug.serving import make_server

    with serving(make_server("127.0.0.1", 0, app, threaded=True)) as url:
        yield url


@contextmanager
def chromium() -> Iterator[Any]:
    """A headless Debian chromium driven by Playwright (skips the test without playwright)."""
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as p:
        found = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            yield found
        finally:
            found.close()


def expect(locator: Any) -> Any:
    """playwright's expect (imported only when the browser tests run)."""
    return pytest.importorskip("playwright.sync_api").expect(locator)
