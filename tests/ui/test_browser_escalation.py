"""The escalation-policy editor in a real browser (Debian chromium through Playwright): an admin creates a
policy of two levels from the list page, edits a delay, adds a level and removes one, then deletes it."""

from __future__ import annotations

from flapjack_py.model.escalation import Policy, policy_from_json
from flapjack_py.oncall.schedule_data import schedule_from_json
from flapjack_py.store import escalation as escalation_store
from flapjack_py.store import schedules as schedule_store
from tests.browser import BROWSER_TEST

from .conftest import World

pytestmark = BROWSER_TEST


def stored(world: World) -> list[Policy]:
    return escalation_store.load_policies(world.s)


def level(tab, n: int):  # noqa: ANN001,ANN201  (playwright is imported only when the browser tests run)
    return tab.locator("#policy-form fieldset.level").nth(n)


def test_create_edit_and_delete_a_policy_in_the_browser(world: World, page, base_url: str, clock) -> None:
    for first in ("Ann", "Bob", "Cat"):
        world.contact(first.lower(), first, "Oncall", "db-01.example.com")
    schedule = {"timezone": "UTC", "layers": [{"start": "2023-11-01T00:00Z", "rotation": "P1W", "contacts": ["ann"]}]}
    schedule_store.save_schedule(world.s, schedule_from_json(schedule, clock.now, "primary"))
    page.goto(base_url + "/")
    page.get_by_role("navigation", name="Main").get_by_role("link", name="Escalation").click()
    page.get_by_role("link", name="New escalation policy").click()
    page.get_by_label("Id (optional)").fill("db")
    page.get_by_label("Name").fill("Databases")
    level(page, 0).get_by_label("Schedules").fill("primary")
    page.get_by_role("button", name="Create policy").click()
    page.wait_for_url("**/escalation_policies/db?notice=policy-created")
    assert stored(world) == [policy_from_json(
        {"name": "Databases", "levels": [{"delay": 0, "targets": [{"schedule": "primary"}]}]}, "db")]
    assert "primary (ann)" in page.locator("#levels").inner_text()

    level(page, 1).get_by_label("Delay").fill("20m")
    level(page, 1).get_by_label("Contacts").fill("bob, ghost")
    page.get_by_role("button", name="Save policy").click()
    assert "No contact with the id 'ghost'" in page.locator("#policy-form").inner_text()
    assert level(page, 1).get_by_label("Delay").input_value() == "20m"  # what was typed is kept
    assert len(stored(world)[0].levels) == 1
    level(page, 1).get_by_label("Contacts").fill("bob")
    page.get_by_role("button", name="Save policy").click()
    page.wait_for_url("**notice=policy-saved")
    assert [lv.delay for lv in stored(world)[0].levels] == [0, 1200]

    level(page, 2).get_by_label("Delay").fill("1h")
    level(page, 2).get_by_label("Contacts").fill("cat")
    level(page, 1).get_by_label("Remove this level").check()
    page.get_by_label("Repeat the levels (times)").fill("2")
    page.get_by_role("button", name="Save policy").click()
    page.wait_for_url("**notice=policy-saved")
    [policy] = stored(world)
    assert (policy.repeat, [(lv.delay, [t.id for t in lv.targets]) for lv in policy.levels]) == (
        2, [(0, ["primary"]), (3600, ["cat"])])

    page.locator("details.danger summary").click()
    page.get_by_role("button", name="Delete policy").click()
    page.wait_for_url("**/escalation_policies?notice=policy-deleted")
    assert "No escalation policies." in page.inner_text("main") and stored(world) == []
