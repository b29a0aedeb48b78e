"""The UI in a real browser (headless Chromium through Playwright): what the on-call person sees and clicks."""

from __future__ import annotations

import json
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from flapjack_py import keys
from tests.browser import BROWSER_TEST, expect

from .conftest import World

SCREENSHOT = "/tmp/flapjack-ui-front.png"

pytestmark = BROWSER_TEST


@pytest.fixture
def three_checks(world: World) -> World:
    world.contact("ann", "Ann", "Oncall", "web-01.example.com")
    world.event("db-01.example.com", "Disk / Util", "ok")
    world.event("web-01.example.com", "HTTP port 80", "ok")
    world.event("db-01.example.com", "MySQL: replication", "warning", "Replication lag 45s", initial_failure_delay=0)
    world.drain()
    world.event("web-01.example.com", "HTTP port 80", "critical", "Connection refused", initial_failure_delay=0)
    world.drain()
    return world


def test_failing_check_comes_first_with_its_state(three_checks: World, page, base_url: str) -> None:
    page.goto(base_url + "/")
    first = page.locator("#unhandled table tbody tr").first
    assert "HTTP port 80" in first.inner_text()
    assert first.locator(".state").inner_text().strip().lower() == "critical"
    assert "Ann Oncall" in first.inner_text()
    assert page.locator("#unhandled table tbody tr").count() == 2
    page.screenshot(path=SCREENSHOT, full_page=True)


def test_acknowledge_from_the_check_page_queues_the_ack(three_checks: World, page, base_url: str) -> None:
    page.goto(base_url + "/")
    page.locator("#unhandled table tbody tr").first.get_by_role("link", name="HTTP port 80").click()
    page.wait_for_url("**/checks/web-01.example.com/HTTP*")
    form = page.locator("#ack-form")
    form.locator("input[name=duration]").fill("30 minutes")
    form.locator("input[name=comment]").fill("Ann is on it")
    form.get_by_role("button", name="Acknowledge").click()
    page.wait_for_url("**notice=ack-queued")
    assert "Acknowledgement queued" in page.inner_text("main")
    [raw] = three_checks.r.lrange(keys.events(), 0, -1)
    event = json.loads(raw)
    assert (event["type"], event["state"], event["check"], event["duration"], event["summary"]) == \
        ("action", "acknowledgement", "HTTP port 80", 1800, "Ann is on it")


def test_times_show_in_the_viewers_zone_with_utc_on_hover(three_checks: World, browser, base_url: str) -> None:
    tab = browser.new_context(timezone_id="Asia/Tokyo", locale="en-GB").new_page()
    tab.goto(base_url + "/checks/web-01.example.com/HTTP port 80")
    generated = tab.locator("footer time.local")
    moment = datetime.fromisoformat(generated.get_attribute("datetime").replace("Z", "+00:00"))
    assert generated.get_attribute("title") == moment.strftime("%Y-%m-%d %H:%M:%S UTC")
    tokyo = moment.astimezone(ZoneInfo("Asia/Tokyo")).strftime("%H:%M:%S")
    assert tokyo in generated.inner_text() and "UTC" not in generated.inner_text()


def test_live_updates_never_wipe_a_half_typed_acknowledgement(three_checks: World, page, base_url: str) -> None:
    check_url = base_url + "/checks/web-01.example.com/HTTP port 80"
    page.goto(base_url + "/refresh?every=5&next=/")  # the shortest live-update period offered
    page.goto(check_url)
    assert page.locator("#live-age").inner_text().startswith("updated")
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    form = page.locator("#ack-form")
    form.locator("input[name=comment]").fill("Ann is on it, half typed")
    form.locator("input[name=duration]").fill("30 minutes")
    page.locator("footer").click()  # focus leaves the form; its content alone must protect it
    three_checks.event("web-01.example.com", "HTTP port 80", "critical", "Still refused", initial_failure_delay=0)
    three_checks.drain()
    expect(page.locator("main")).to_contain_text("Still refused", timeout=15_000)
    page.wait_for_timeout(11_000)  # past two more live updates
    assert len([url for url in requests if "/checks/web-01.example.com/HTTP" in url]) >= 2, requests
    assert "http-equiv" not in page.content()
    assert form.locator("input[name=comment]").input_value() == "Ann is on it, half typed"
    assert form.locator("input[name=duration]").input_value() == "30 minutes"
    assert "updated" in page.locator("#live-age").inner_text()
    form.get_by_role("button", name="Acknowledge").click()
    page.wait_for_url("**notice=ack-queued")
    assert "Acknowledgement queued" in page.inner_text("main")
    [raw] = three_checks.r.lrange(keys.events(), 0, -1)
    event = json.loads(raw)
    assert (event["state"], event["duration"], event["summary"]) == ("acknowledgement", 1800, "Ann is on it, half typed")


def test_the_overview_updates_in_place_and_pauses(three_checks: World, page, base_url: str) -> None:
    page.goto(base_url + "/refresh?every=5&next=/")
    page.locator("body").evaluate("element => element.setAttribute('data-marker', 'same page')")
    three_checks.event("db-01.example.com", "Disk / Util", "critical", "Disk full", initial_failure_delay=0)
    three_checks.drain()
    expect(page.locator("#unhandled")).to_contain_text("Disk full", timeout=15_000)
    assert page.locator("body").get_attribute("data-marker") == "same page"  # updated in place, not reloaded
    assert "3 unhandled" in page.locator("header nav").inner_text()
    page.get_by_role("button", name="Pause").click()
    assert page.locator("#live-age").inner_text() == "paused"
    three_checks.event("db-01.example.com", "Disk / Util", "ok", "Disk fine again")
    three_checks.drain()
    page.wait_for_timeout(7_000)
    assert "Disk full" in page.locator("#unhandled").inner_text()  # paused: nothing changed
    page.get_by_role("button", name="Resume").click()
    expect(page.locator("#unhandled")).not_to_contain_text("Disk full", timeout=15_000)
