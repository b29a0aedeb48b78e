"""The analytics page (issue 32) in a real browser (Debian chromium through Playwright): its three plots are drawn
with uPlot, it passes the accessibility check the other pages pass (axe-core, light and dark; at 360 px nothing
scrolls sideways), and a bad period is named next to the form."""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser import BROWSER_TEST

from .conftest import World
from .test_accessibility import PHONE, axe_problems

pytestmark = BROWSER_TEST


@pytest.fixture
def everything(world: World) -> World:
    """Bea (email, at any time) is paged about web-01.example.com: HTTP fails twice and recovers, Disk once."""
    world.contact("bea", "Bea", "Pager", "web-01.example.com")
    for check, state in (("HTTP", "critical"), ("HTTP", "ok"), ("HTTP", "critical"), ("HTTP", "ok"),
                         ("Disk", "warning")):
        world.event("web-01.example.com", check, "ok" if state != "ok" else "critical", initial_failure_delay=0)
        world.drain()
        world.event("web-01.example.com", check, state, f"{check} says {state}", initial_failure_delay=0)
        world.drain()
    return world


def test_the_analytics_page_draws_its_plots(everything: World, browser: Any, base_url: str) -> None:
    page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    page.goto(base_url + "/analytics?since=1d")
    for chart in ("#pages-per-day", "#response-times", "#hour-of-week"):
        page.wait_for_selector(f"{chart}[data-drawn='1'] canvas")
    assert int(page.get_attribute("#hour-of-week", "data-cells") or 0) >= 1  # the pages' hour is painted
    pages = int(page.inner_text("#analytics-summary .tile .big"))
    assert pages >= 2
    assert page.inner_text("#noisy-checks tbody tr:first-child td:first-child").startswith("web-01.example.com:")
    assert "bea" in page.inner_text("#people-paged")


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_analytics_page_passes_the_accessibility_check(everything: World, browser: Any,
                                                            base_url: str, scheme: str) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 900}, color_scheme=scheme, bypass_csp=True)
    page = context.new_page()
    for path in ("/analytics", "/analytics?since=someday"):
        page.goto(base_url + path)
        assert axe_problems(page) == [], path
    context.close()


def test_the_analytics_page_fits_a_phone(everything: World, browser: Any, base_url: str) -> None:
    page = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True).new_page()
    page.goto(base_url + "/analytics")
    page.wait_for_selector("#hour-of-week[data-drawn='1']")
    assert page.evaluate("() => document.documentElement.scrollWidth") <= PHONE["width"]


def test_a_bad_period_is_named_next_to_the_form(everything: World, browser: Any, base_url: str) -> None:
    page = browser.new_context().new_page()
    response = page.goto(base_url + "/analytics?since=someday")
    assert response.status == 400
    assert "since: could not read the time 'someday'" in page.inner_text("#period-problem")
    assert page.get_attribute("input[name=since]", "aria-invalid") == "true"
    response = page.goto(base_url + "/analytics?team=nope")
    assert response.status == 400 and "could not find team 'nope'" in page.inner_text("#period-problem")


def test_the_filters_narrow_the_figures(everything: World, browser: Any, base_url: str) -> None:
    page = browser.new_context().new_page()
    page.goto(base_url + "/analytics")
    page.get_by_label("Contact").fill("nobody")
    page.get_by_role("button", name="Show").click()
    page.wait_for_url("**contact=nobody**")
    assert page.inner_text("#analytics-summary .tile .big") == "0"
    assert page.get_by_label("Contact").input_value() == "nobody"
