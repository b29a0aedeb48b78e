"""Triage and bulk actions in a real browser (headless Debian Chromium through Playwright)."""

from __future__ import annotations

import json

import pytest

from flapjack_py import keys
from flapjack_py.store import tags
from tests.browser import BROWSER_TEST, expect

from .conftest import World

pytestmark = BROWSER_TEST


@pytest.fixture
def rack(world: World) -> World:
    """25 critical checks on five hosts; the 20 on rack7-* hosts carry the check tag `rack7`, 5 others do not."""
    hosts = [f"rack7-{n}.example.com" for n in range(4)] + ["other.example.com"]
    names = [(host, f"Check {i}") for host in hosts for i in range(5)]
    for entity, check in names:
        world.event(entity, check, "ok")
    world.drain()
    for entity, check in names:
        world.event(entity, check, "critical", "fan failure", initial_failure_delay=0)
    world.drain()
    for entity, check in names[:20]:
        tags.add_check_tags(world.s, entity, check, ["rack7"])
    return world


def test_bulk_acknowledge_twenty_checks_selected_by_a_tag_filter(rack: World, page, base_url: str) -> None:
    page.goto(base_url + "/")
    expect(page.locator("#unhandled h2")).to_contain_text("25")
    page.locator("#filter-fold summary").click()  # the filters fold behind one control
    page.get_by_label("Tag", exact=True).fill("rack7")
    page.get_by_role("button", name="Filter").click()
    page.wait_for_url("**tag=rack7**")
    expect(page.locator("#all h2")).to_contain_text("20")
    form = page.locator("#bulk")
    page.locator("#select-fold summary").click()
    page.get_by_label("all 20 unhandled problems matching the filters").check()  # unhandled ones only
    expect(page.locator("#bulk-count")).to_have_text("20")
    form.locator("summary", has_text="More").click()
    form.get_by_label("Action").select_option("acknowledge")
    form.get_by_label("Message").fill("rack 7 fans replaced tonight")
    form.get_by_label("Duration").fill("3 hours")
    dialogs: list[str] = []
    page.once("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.accept()))
    form.get_by_role("button", name="Apply").click()
    expect(page.locator("main")).to_contain_text("Acknowledgement queued for 20 check(s) for 3 hours")
    assert dialogs == ["Acknowledge: 20 checks?"]  # one confirmation
    events = [json.loads(raw) for raw in rack.r.lrange(keys.events(), 0, -1)]
    assert len(events) == 20 and {e["entity"] for e in events} == {f"rack7-{n}.example.com" for n in range(4)}
    assert {(e["state"], e["duration"], e["summary"]) for e in events} == {
        ("acknowledgement", 10800, "rack 7 fans replaced tonight")}
    rack.drain()
    page.get_by_role("link", name="Back to the list").first.click()
    page.wait_for_url("**tag=rack7**")
    expect(page.locator("#handled h2")).to_contain_text("20")
    page.goto(base_url + "/")
    expect(page.locator("#unhandled h2")).to_contain_text("5")


def test_selecting_rows_counts_them_and_cancelling_the_confirmation_sends_nothing(rack: World, page,
                                                                                  base_url: str) -> None:
    page.goto(base_url + "/?entity=other")
    page.locator("#unhandled .select-page").check()
    expect(page.locator("#bulk-count")).to_have_text("5")  # the same check in two lists counts once
    assert page.locator("#all input[name=ids]:checked").count() == 5
    page.once("dialog", lambda dialog: dialog.dismiss())
    page.locator("#bulk summary", has_text="More").click()
    page.locator("#bulk").get_by_role("button", name="Apply").click()
    page.wait_for_timeout(500)
    assert rack.r.llen(keys.events()) == 0 and "/bulk" not in page.url


def test_filters_survive_a_reload_through_the_url(rack: World, page, base_url: str) -> None:
    rack.event("other.example.com", "Check 0", "ok", "fans fine")
    rack.drain()
    page.goto(base_url + "/")
    page.locator("#filter-fold summary").click()
    page.locator("#filters select[name=state]").select_option("critical")
    page.get_by_label("Entity", exact=True).fill("other")
    page.get_by_label("Summary", exact=True).fill("fan")
    page.get_by_role("button", name="Filter").click()
    page.wait_for_url("**state=critical**")
    page.locator("#all thead").get_by_role("link", name="Check").click()
    page.wait_for_url("**sort=check**")
    shared = page.url
    for _ in range(2):
        page.reload() if _ == 0 else page.goto(shared)
        assert page.locator("#filters select[name=state]").input_value() == "critical"
        assert page.get_by_label("Entity", exact=True).input_value() == "other"
        assert page.get_by_label("Summary", exact=True).input_value() == "fan"
        expect(page.locator("#all h2")).to_contain_text("4")  # Check 0 is OK now
        rows = page.locator("#all tbody tr")
        assert [rows.nth(i).locator("td").nth(3).inner_text() for i in range(4)] == [
            "Check 1", "Check 2", "Check 3", "Check 4"]


def test_live_updates_keep_a_selection_and_update_the_rest(rack: World, page, base_url: str) -> None:
    page.goto(base_url + "/refresh?every=5&next=/%3Fentity%3Dother")
    page.get_by_label("Select other.example.com / Check 1").first.check()
    page.locator("#bulk summary", has_text="More").click()
    page.locator("#bulk").get_by_label("Message").fill("half typed")
    rack.r.lpush(keys.events(), json.dumps({"type": "action", "state": "acknowledgement",
                                            "entity": "other.example.com", "check": "Check 4", "duration": 600}))
    rack.drain()
    expect(page.locator("#handled h2")).to_contain_text("1", timeout=15_000)  # updated in place
    page.wait_for_timeout(11_000)  # past two more live updates
    assert page.get_by_label("Select other.example.com / Check 1").first.is_checked()
    assert page.locator("#bulk").get_by_label("Message").input_value() == "half typed"
    expect(page.locator("#bulk-count")).to_have_text("1")
