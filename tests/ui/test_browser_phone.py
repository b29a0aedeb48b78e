"""The phone in your hand at 3 a.m. (issue 34), in a real browser (Debian chromium through Playwright) at 390 x 844
(touch) and 1366 x 900, with 16 failing checks and a logged-in responder, rex: the first unhandled problem is on
the first screen, rows are dense, nothing scrolls sideways, ticking rows shows the action bar that acknowledges,
the acknowledgement names rex, an entity preset silences every check of a host, the on-call page names who is
on call until when; axe-core finds no serious or critical violation on these pages."""

from __future__ import annotations

from typing import Any

import pytest

from flapjack_py import credentials
from flapjack_py.access import Role
from flapjack_py.model.escalation import policy_from_json
from flapjack_py.oncall.schedule_data import schedule_from_json
from flapjack_py.store import escalation as escalation_store
from flapjack_py.store import maintenance as maint
from flapjack_py.store import maintenance_series as series_store
from flapjack_py.store import schedules as schedule_store
from flapjack_py.store import users as user_store
from tests.browser import BROWSER_TEST, expect

from .conftest import World
from .test_accessibility import axe_problems

pytestmark = BROWSER_TEST

PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True, "bypass_csp": True}
DESKTOP = {"viewport": {"width": 1366, "height": 900}, "bypass_csp": True}  # axe is injected
PASSWORD = "correct horse battery"
HOSTS = [f"web-0{n}.example.com" for n in range(1, 5)]
CHECKS = ["HTTP port 80", "Disk /var", "Load", "A rather long check name that would wrap: TLS certificate expiry"]
ROW_MAX = 100
"""Tallest a problem's row may be on a phone, in CSS pixels."""


@pytest.fixture
def sixteen(world: World) -> World:
    """16 failing checks on four hosts (Ann told), a rota (Ann then Bob, weekly) paged by policy `web`, user rex."""
    world.contact("ann", "Ann", "Oncall", HOSTS[0])
    world.contact("bob", "Bob", "Backup", HOSTS[1])
    for host in HOSTS:
        for check in CHECKS:
            world.event(host, check, "ok")
    world.drain()
    for i, host in enumerate(HOSTS):
        for j, check in enumerate(CHECKS):
            world.event(host, check, "critical" if (i + j) % 2 == 0 else "warning", f"{check} is failing on {host}",
                        initial_failure_delay=0)
    world.drain()
    rota = {"timezone": "UTC", "layers": [{"start": "2023-11-06T09:00Z", "rotation": "P1W", "contacts": ["ann", "bob"]}]}
    schedule_store.save_schedule(world.s, schedule_from_json(rota, 1_700_000_000, "primary"))
    policy = {"name": "Web", "levels": [{"delay": 0, "targets": [{"schedule": "primary"}]}]}
    escalation_store.save_policy(world.s, policy_from_json(policy, "web"))
    user_store.save_user(world.s, user_store.User("rex", Role.RESPONDER, credentials.hash_password(PASSWORD), 0))
    return world


def logged_in(browser: Any, base_url: str, **context: Any) -> Any:
    tab = browser.new_context(**context).new_page()
    tab.set_default_timeout(15_000)
    tab.goto(base_url + "/login")
    tab.fill("input[name=username]", "rex")
    tab.fill("input[name=password]", PASSWORD)
    tab.click("main button[type=submit]")
    tab.wait_for_url(base_url + "/")
    return tab


def sideways(tab: Any) -> int:
    """How far the page scrolls sideways (0: not at all)."""
    return int(tab.evaluate("() => document.documentElement.scrollWidth - document.documentElement.clientWidth"))


def test_on_a_phone_the_first_screen_is_the_work_and_the_action_bar_acknowledges(
        sixteen: World, browser: Any, base_url: str) -> None:
    tab = logged_in(browser, base_url, **PHONE)
    assert "(16 unhandled)" in tab.title() and "16 unhandled" in tab.locator("header nav").inner_text()
    rows = tab.locator("#unhandled table tbody tr")
    assert rows.count() == 16
    first = rows.first.bounding_box()
    assert first["y"] + first["height"] <= PHONE["viewport"]["height"], first  # on the first screen
    assert rows.first.locator(".state").inner_text().lower() == "critical"  # worst first
    heights = [rows.nth(i).bounding_box()["height"] for i in range(rows.count())]
    assert max(heights) <= ROW_MAX, heights
    assert sideways(tab) == 0
    box = rows.first.locator("label.tap").bounding_box()
    assert box["width"] >= 44 and box["height"] >= 44
    assert problems_of(tab) == []
    tab.goto(base_url + f"/checks/{HOSTS[0]}/{CHECKS[3]}")  # the check page leads with facts, then Acknowledge
    button = tab.locator("#ack-form").get_by_role("button", name="Acknowledge", exact=True).bounding_box()
    assert button["y"] + button["height"] <= PHONE["viewport"]["height"]
    assert [tab.locator("#ack-form .presets button").nth(i).inner_text() for i in range(4)] == [
        "15 min", "1 h", "4 h", "until 08:00"]
    assert sideways(tab) == 0 and problems_of(tab) == []
    tab.goto(base_url + "/")

    bar = tab.locator("#bulk")
    expect(bar).to_be_hidden()
    rows.nth(0).locator("label.tap").tap()
    rows.nth(1).locator("label.tap").tap()
    acknowledge = bar.get_by_role("button", name="Acknowledge (2)")
    expect(acknowledge).to_be_visible()
    assert tab.evaluate("() => getComputedStyle(document.getElementById('bulk')).position") == "fixed"
    assert acknowledge.bounding_box()["y"] + acknowledge.bounding_box()["height"] <= PHONE["viewport"]["height"]
    expect(bar.get_by_role("button", name="Maintenance")).to_be_visible()
    expect(bar.locator("summary", has_text="More")).to_be_visible()
    picked = [rows.nth(i).locator("input[name=ids]").get_attribute("value") for i in (0, 1)]
    dialogs: list[str] = []
    tab.once("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.accept()))
    acknowledge.tap()
    expect(tab.locator("main")).to_contain_text("Acknowledgement queued for 2 check(s)")
    assert dialogs == ["Acknowledge: 2 checks?"]
    sixteen.drain()
    for check_id in picked:
        entity, check = check_id.split(":", 1)
        assert maint.in_force(sixteen.s, entity, check, maint.UNSCHEDULED) is not None

    tab.goto(base_url + "/")
    assert "(14 unhandled)" in tab.title()
    handled = tab.locator("#handled table tbody tr")
    assert handled.count() == 2 and "Acknowledged by rex" in handled.first.inner_text()
    handled.first.locator("a.row-link").tap()
    tab.wait_for_url("**/checks/**")
    assert "Acknowledged by rex" in tab.locator("#facts").inner_text()
    assert sideways(tab) == 0
    tab.context.close()


def test_all_matching_selects_only_unhandled_problems(sixteen: World, browser: Any, base_url: str) -> None:
    entity, check = HOSTS[3], CHECKS[0]
    sixteen.event(entity, "Fine", "ok")
    sixteen.drain()
    tab = logged_in(browser, base_url, **DESKTOP)
    tab.locator("#select-fold summary").click()
    tab.get_by_label("all 16 unhandled problems").check()
    bar = tab.locator("#bulk")
    expect(bar.get_by_role("button", name="Acknowledge (16)")).to_be_visible()
    tab.once("dialog", lambda dialog: dialog.accept())
    bar.get_by_role("button", name="Maintenance").click()
    expect(tab.locator("main")).to_contain_text("Scheduled maintenance created on 16 check(s) for 1 hour")
    assert maint.in_force(sixteen.s, entity, check, maint.SCHEDULED) is not None
    assert maint.in_force(sixteen.s, entity, "Fine", maint.SCHEDULED) is None  # an ok check is left alone
    tab.context.close()


def test_at_1366_the_first_problem_shows_and_no_page_scrolls_sideways(sixteen: World, browser: Any,
                                                                     base_url: str) -> None:
    tab = logged_in(browser, base_url, **DESKTOP)
    first = tab.locator("#unhandled table tbody tr").first.bounding_box()
    assert first["y"] + first["height"] <= DESKTOP["viewport"]["height"]
    wide = {}
    for path in ("/", f"/checks/{HOSTS[0]}/{CHECKS[3]}", f"/entities/{HOSTS[0]}", "/oncall", "/contacts/ann"):
        tab.goto(base_url + path)
        assert tab.locator("main").count() == 1
        if sideways(tab):
            wide[path] = sideways(tab)
    assert wide == {}
    tab.goto(base_url + "/")
    told = tab.locator("#unhandled table tbody tr", has_text="told Ann Oncall by email").first
    told.locator("a.row-link").click()
    tab.wait_for_url("**/checks/**")
    assert tab.locator("#decisions pre.decision").count() >= 1  # the page with its trace
    facts = tab.locator("#facts").inner_text()
    assert "Who was told:" in facts and "Ann Oncall by email" in facts  # as the overview's row says
    assert tab.locator("#ack-form").bounding_box()["y"] < DESKTOP["viewport"]["height"]
    tab.context.close()


def test_an_entity_preset_puts_every_check_in_maintenance(sixteen: World, browser: Any, base_url: str) -> None:
    host = HOSTS[2]
    tab = logged_in(browser, base_url, **PHONE)
    tab.goto(base_url + f"/entities/{host}")
    assert sideways(tab) == 0
    dialogs: list[str] = []
    tab.once("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.accept()))
    tab.locator("#entity-maintenance").get_by_role("button", name="1 h").tap()
    expect(tab.locator("main")).to_contain_text("Every check of the entity is in maintenance")
    assert dialogs == [f"Put every check of {host} in maintenance?"]  # one confirmation
    for check in CHECKS:
        assert maint.in_force(sixteen.s, host, check, maint.SCHEDULED) is not None, check
    assert maint.in_force(sixteen.s, HOSTS[1], CHECKS[0], maint.SCHEDULED) is None
    [window] = maint.list_windows(sixteen.s, host, CHECKS[0], maint.SCHEDULED)
    assert window.duration >= 3600 and window.actor is not None and window.actor.name == "rex"
    sixteen.event(host, "New check", "critical", initial_failure_delay=0)  # appears during the window
    sixteen.drain()
    for series in series_store.list_series(sixteen.s):  # what the executive's housekeeping does every minute
        series_store.materialise(sixteen.s, series, int(window.start) + 60)
    assert maint.in_force(sixteen.s, host, "New check", maint.SCHEDULED) is not None
    tab.goto(base_url + f"/entities/{host}")
    assert problems_of(tab) == []
    tab.context.close()


def test_the_on_call_page_names_who_is_on_call_until_when(sixteen: World, browser: Any, base_url: str) -> None:
    tab = logged_in(browser, base_url, **PHONE)
    tab.locator("header nav").get_by_role("link", name="On call").tap()
    tab.wait_for_url("**/oncall")
    card = tab.locator("#schedules li").first
    text = card.inner_text()
    assert "On call now:" in text and "until" in text and "Next:" in text
    assert ("Ann Oncall" in text) and ("Bob Backup" in text)
    assert tab.locator("#schedules time").count() >= 2
    assert "level 1 pages" in tab.locator("#policies").inner_text()
    assert sideways(tab) == 0
    assert problems_of(tab) == []
    tab.goto(base_url + "/contacts/ann")
    assert tab.locator("#on-call-now").inner_text().startswith(("On call now", "Not on call now"))
    tab.context.close()


def problems_of(tab: Any) -> list[str]:
    """axe-core's serious and critical violations on the page, the live updates paused (they swap parts)."""
    return axe_problems(tab)
