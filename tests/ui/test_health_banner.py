"""The red "monitoring is failing" banner on every page, and "no checks yet" on an empty install."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import flask
import pytest
import redis
import yaml

import web
from flapjack_py import keys
from flapjack_py.model.heartbeat import Heartbeat
from flapjack_py.runtime.embedded_redis import EmbeddedRedis
from flapjack_py.store import health as health_store
from flapjack_py.store.plumbing.client import StrRedis
from tests.forms import FormClient
from tests.polling import wait_for

from .conftest import CONFIG, World

PAGES = ["/", "/entities", "/contacts", "/alerts", "/status"]
HEARTBEAT_TIMEOUT = 10  # the smallest watchdog.heartbeat_timeout: a killed executive shows within seconds


@pytest.fixture
def app(real_r: redis.Redis) -> flask.Flask:
    """The UI as every UI test has it (conftest make_app), watchdog.heartbeat_timeout at its minimum."""
    built = web.create_app(redis=real_r, config={**CONFIG, "watchdog": {"heartbeat_timeout": HEARTBEAT_TIMEOUT}})
    built.config["TESTING"] = True
    built.test_client_class = FormClient
    return built


def gone_executive(client: redis.Redis, seconds_ago: int) -> None:
    """An executive whose last heartbeat was `seconds_ago` s ago (its key expired since)."""
    beat = Heartbeat(role="executive", host="old", pid=1, started=0, at=int(time.time()) - seconds_ago)
    health_store.save_heartbeat(client, keys.executive_heartbeat("old", 1), beat, 30)
    client.delete(keys.executive_heartbeat("old", 1))


@pytest.mark.real
def test_an_empty_install_says_no_checks_yet_and_why_nothing_works(client: flask.testing.FlaskClient) -> None:
    html = client.get("/").get_data(as_text=True)
    assert "all OK" not in html
    assert "Monitoring is failing" in html and "No executive has run yet" in html


@pytest.mark.real
def test_an_empty_install_with_an_executive_says_no_checks_yet(world: World, client: flask.testing.FlaskClient) -> None:
    world.drain()
    html = client.get("/").get_data(as_text=True)
    assert "no checks yet" in html and "all OK" not in html and "Monitoring is failing" not in html


@pytest.mark.real
def test_a_working_install_has_no_banner(world: World, client: flask.testing.FlaskClient) -> None:
    world.event("web-01", "HTTP", "ok")
    world.drain()
    html = client.get("/").get_data(as_text=True)
    assert "all OK" in html and "Monitoring is failing" not in html


@pytest.mark.real
@pytest.mark.slow
def test_the_banner_is_on_every_page_in_the_browser(world: World, real_r: redis.Redis, page,
                                                    base_url: str, real_s: StrRedis) -> None:
    world.event("web-01", "HTTP", "ok")
    world.drain()
    real_r.delete(keys.heartbeats(), *real_r.keys("executive_heartbeat:*"))  # the executive that ran is gone...
    gone_executive(real_s, 180)  # ...and the last one seen beat 3 minutes ago
    for path in PAGES:
        page.goto(base_url + path)
        banner = page.locator(".health-banner")
        assert banner.is_visible(), path
        assert "No executive has processed events for 3 min — alerts are not being sent" in banner.inner_text()
    page.screenshot(path="/tmp/flapjack-ui-health-banner.png")


@pytest.mark.real
@pytest.mark.slow
def test_a_killed_executive_puts_the_banner_in_the_browser(world: World, redis_server: EmbeddedRedis, page,
                                                           base_url: str, tmp_path: Path) -> None:
    """A real `flapjack executive` runs (no banner), is SIGKILLed, and the banner says so within the timeout."""
    config = tmp_path / "flapjack.yml"
    config.write_text(yaml.safe_dump({"redis": {"url": redis_server.url}, **CONFIG}))
    env = dict(os.environ, FLAPJACK_CONFIG=str(config))
    env.pop("FLAPJACK_REDIS_URL", None)
    executive = subprocess.Popen([sys.executable, "-c", "from flapjack_py.cli import main; main()", "executive"],
                                 env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
    try:
        world.event("web-01", "HTTP", "ok")
        wait_for(lambda: world.r.hget(keys.check("web-01", "HTTP"), "state"), 30, "the executive processes an event")
        page.goto(base_url + "/")
        assert page.locator(".health-banner").count() == 0
    finally:
        executive.send_signal(signal.SIGKILL)
        executive.wait(timeout=10)
    killed = time.monotonic()

    def banner() -> str:
        page.goto(base_url + "/")
        found = page.locator(".health-banner")
        return found.inner_text() if found.count() else ""

    text = wait_for(banner, HEARTBEAT_TIMEOUT + 15, "the banner after the kill")
    assert time.monotonic() - killed <= HEARTBEAT_TIMEOUT + 5
    assert "No executive has processed events for" in text and "alerts are not being sent" in text, text
