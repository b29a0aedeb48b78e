"""Every UI page in a real browser (Debian chromium through Playwright): axe-core (vendored, tests/ui/vendor)
finds no serious or critical WCAG 2.2 A/AA violation in light and dark mode; at 360 x 740 nothing scrolls
sideways and every control is at least 44 px high; the skip link and keyboard focus are visible."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from flapjack_py.model.escalation import policy_from_json
from flapjack_py.store import contacts as contact_store
from flapjack_py.store import escalation as escalation_store
from flapjack_py.store import media as media_store
from flapjack_py.store import rules as rule_store
from tests.browser import BROWSER_TEST

from .conftest import World

AXE = Path(__file__).parent / "vendor" / "axe-core" / "axe.min.js"
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]
PHONE = {"width": 360, "height": 740}
TAP = 44
"""Smallest height of a control people tap, in CSS pixels."""

pytestmark = BROWSER_TEST


@pytest.fixture
def everything(world: World) -> World:
    """Failing, acknowledged and OK checks, a contact with media, PagerDuty and a weekly rule, alerts sent."""
    world.contact("ann", "Ann", "Oncall", "web-01.example.com")
    media_store.set_medium(world.s, "ann", "sms", "+49 170 1234567", 600, 3)
    media_store.set_pagerduty_credentials(world.s, "ann", {"service_key": "k", "subdomain": "acme"})
    contact_store.set_timezone(world.s, "ann", "Europe/Berlin")
    rule = rule_store.load_rules(world.s, "ann")[0]
    rule_store.save_rule(world.s, rule.__class__(**{**rule.to_dict(), "time_restrictions": [
        {"start_time": "2024-01-01 09:00:00", "end_time": "2024-01-01 17:00:00",
         "rrules": [{"validations": {"day": [1, 2, 3, 4, 5]}, "rule_type": "Weekly", "interval": 1}]}]}))
    for check, state in (("HTTP port 80", "critical"), ("Disk /var", "warning"), ("Load", "ok")):
        world.event("web-01.example.com", check, "ok")
        world.drain()
        world.event("web-01.example.com", check, state, f"{check} says {state}", initial_failure_delay=0)
    world.drain()
    policy = {"name": "Web", "repeat": 1, "levels": [{"delay": 0, "targets": [{"contact": "ann"}]},
                                                     {"delay": 900, "targets": [{"schedule": "primary"}]}]}
    escalation_store.save_policy(world.s, policy_from_json(policy, "web"))
    return world


def pages(world: World) -> list[str]:
    rule_id = rule_store.rule_ids(world.s, "ann")[0]
    return ["/", "/?entity=web-01&state=critical", "/checks/web-01.example.com/HTTP port 80", "/checks/web-01.example.com/Load", "/entities",
            "/entities/web-01.example.com", "/contacts", "/contacts/ann", "/contacts/ann/rules/new",
            f"/contacts/ann/rules/{rule_id}", "/alerts", "/status", "/login", "/no/such/page",
            "/escalation_policies", "/escalation_policies/web", "/escalation_policies/new", "/oncall"]


def axe_problems(page: Any) -> list[str]:
    """Serious and critical violations axe-core finds on the loaded page, one line each."""
    page.add_script_tag(path=str(AXE))
    result = page.evaluate("tags => axe.run(document, {runOnly: {type: 'tag', values: tags}})", AXE_TAGS)
    return [f"{v['id']} ({v['impact']}): {v['help']} -- {[n['target'] for n in v['nodes']][:5]}"
            for v in result["violations"] if v["impact"] in ("serious", "critical")]


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_axe_finds_no_serious_violation_on_any_page(everything: World, browser: Any, base_url: str,
                                                     scheme: str) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 900}, color_scheme=scheme,
                                  bypass_csp=True)  # axe is injected as a script the app itself never serves
    page = context.new_page()
    found = {}
    for path in pages(everything):
        page.goto(base_url + path)
        problems = axe_problems(page)
        if problems:
            found[path] = problems
    context.close()
    assert found == {}, "\n".join(f"{path}: {problem}" for path, problems in found.items() for problem in problems)


def test_at_360_px_no_page_scrolls_sideways_and_controls_are_44_px(everything: World, browser: Any,
                                                                    base_url: str) -> None:
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    page = context.new_page()
    wide, small = {}, {}
    for path in pages(everything):
        page.goto(base_url + path)
        page.evaluate("() => document.querySelectorAll('details').forEach(d => { d.open = true; })")
        width = page.evaluate("() => document.documentElement.scrollWidth")
        if width > PHONE["width"]:
            wide[path] = width
        tiny = page.evaluate("""min => Array.from(document.querySelectorAll(
              'button, select, summary, input:not([type=hidden]):not([type=checkbox]), label.choice, nav a, .pager a'))
            .filter(e => e.offsetParent !== null)
            .map(e => [e.outerHTML.slice(0, 80), Math.round(e.getBoundingClientRect().height)])
            .filter(([, h]) => h < min)""", TAP)
        if tiny:
            small[path] = tiny[:5]
    context.close()
    assert wide == {}, "pages wider than the phone"
    assert small == {}, f"controls lower than {TAP} px"


def test_the_skip_link_comes_first_and_focus_is_visible(everything: World, browser: Any, base_url: str) -> None:
    page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    page.goto(base_url + "/contacts/ann")
    page.keyboard.press("Tab")
    focused = page.evaluate("() => [document.activeElement.textContent.trim(), document.activeElement.getAttribute('href')]")
    assert focused == ["Skip to content", "#main"]
    assert page.evaluate("() => getComputedStyle(document.activeElement).outlineStyle") != "none"
    box = page.evaluate("() => document.activeElement.getBoundingClientRect().top")
    assert box >= 0  # shown on the screen while focused
    page.keyboard.press("Enter")
    page.keyboard.press("Tab")
    inside = page.evaluate("() => document.querySelector('main').contains(document.activeElement)")
    assert inside
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("Shift+Tab")  # back into the menu: a navigation link shows its focus ring
    style = page.evaluate("() => [document.activeElement.tagName, getComputedStyle(document.activeElement).outlineWidth]")
    assert style[0] == "A" and style[1] != "0px"


def test_every_time_is_an_iso_time_element(everything: World, browser: Any, base_url: str) -> None:
    page = browser.new_context().new_page()
    bad = {}
    for path in pages(everything):
        page.goto(base_url + path)
        values = page.evaluate("() => Array.from(document.querySelectorAll('time')).map(t => t.getAttribute('datetime'))")
        wrong = [v for v in values if not re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ|PT\d+S", v or "")]
        if wrong or not values:
            bad[path] = wrong or "no <time> at all"
    assert set(bad) <= {"/login", "/no/such/page", "/contacts/ann/rules/new"}, bad  # the footer's time is everywhere


def test_people_round_trip_in_the_browser_with_the_message_next_to_the_field(everything: World, browser: Any,
                                                                             base_url: str) -> None:
    page = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True).new_page()
    page.goto(base_url + "/contacts")
    form = page.locator("form[action$='/contacts']")
    form.get_by_label("First name").fill("Bob")
    form.get_by_label("Last name").fill("Builder")
    form.get_by_label("Time zone").fill("Europe/Berlinn")
    form.get_by_role("button", name="Add contact").click()
    zone = page.get_by_label("Time zone")
    message = page.locator("#" + zone.get_attribute("aria-describedby").split()[-1])
    assert message.inner_text().startswith("Unknown time zone 'Europe/Berlinn'")
    assert zone.get_attribute("aria-invalid") == "true" and page.get_by_label("Last name").input_value() == "Builder"
    zone.fill("Europe/Berlin")
    page.get_by_role("button", name="Add contact").click()
    page.wait_for_url("**notice=contact-created")
    contact_id = page.url.split("/contacts/")[1].split("?")[0]

    page.get_by_text("Add a notification rule").click()
    page.get_by_label("Entities (one per line").fill("web-01.example.com")
    page.get_by_role("group", name="Critical: alert by").get_by_label("sms", exact=True).check()
    window = page.locator("fieldset.window").first
    for day in ("Sat", "Sun"):
        window.get_by_label(day).check()
    window.get_by_label("From").fill("22:00")
    page.get_by_role("button", name="Create rule").click()  # no end time: refused, the day boxes kept
    assert page.locator("fieldset.window").first.get_by_label("Sat").is_checked()
    end = page.locator("fieldset.window").first.get_by_label("To")
    assert end.get_attribute("aria-invalid") == "true"
    assert "is not a time of day" in page.locator("#" + end.get_attribute("aria-describedby")).inner_text()
    end.fill("06:00")
    page.get_by_role("button", name="Create rule").click()
    page.wait_for_url("**notice=rule-created**")
    assert "Only Sat, Sun 22:00–06:00 (next day)" in page.inner_text("main")
    [rule] = [r for r in rule_store.load_rules(everything.s, contact_id, ensure_general=False) if r.entities]
    assert (rule.entities, rule.critical_media, rule.warning_media) == (["web-01.example.com"], ["sms"], [])
