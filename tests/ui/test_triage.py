"""The overview's triage (unhandled / handled / every check; filters, sorts, pages) and bulk actions."""

from __future__ import annotations

import json
import re

import pytest

from flapjack_py import keys
from flapjack_py.store import checks as check_store
from flapjack_py.store import entities as entity_store
from flapjack_py.store import history, tags
from flapjack_py.store import maintenance as maint

from .conftest import World

WEB, DB, MAIL = "web-01.example.com", "db-01.example.com", "mail-01.example.com"


@pytest.fixture
def problems(world: World, clock) -> World:
    """web-01 HTTP critical (refused), db-01 Replication warning, mail-01 SMTP critical then acknowledged,
    db-01 Disk ok; db-01's checks carry the check tag `database`."""
    for entity, check in ((WEB, "HTTP"), (DB, "Replication"), (DB, "Disk"), (MAIL, "SMTP")):
        world.event(entity, check, "ok")
    world.drain()
    clock.advance(60)
    world.event(MAIL, "SMTP", "critical", "SMTP timeout", initial_failure_delay=0)
    world.event(DB, "Replication", "warning", "lag 45s", initial_failure_delay=0)
    world.drain()
    clock.advance(60)
    world.event(WEB, "HTTP", "critical", "Connection refused", initial_failure_delay=0)
    world.event(MAIL, "SMTP", "critical", "SMTP timeout", initial_failure_delay=0)
    world.drain()
    world.r.lpush(keys.events(), json.dumps({"type": "action", "state": "acknowledgement", "entity": MAIL,
                                             "check": "SMTP", "duration": 3600, "summary": "on it"}))
    world.drain()
    for check in ("Replication", "Disk"):
        tags.add_check_tags(world.s, DB, check, ["database"])
    return world


def section(page: str, name: str) -> str:
    """The text of one <section id=name> of a page's HTML."""
    match = re.search(rf'<section id="{name}".*?</section>', page, re.S)
    assert match, name
    return text_of(match.group(0))


def text_of(html_text: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html_text))


def html(client, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200, url
    return response.get_data(as_text=True)


def queued(world: World) -> list[dict]:
    return [json.loads(raw) for raw in reversed(world.r.lrange(keys.events(), 0, -1))]


def test_unhandled_problems_come_first_worst_then_longest_and_handled_ones_apart(problems: World, client) -> None:
    page = html(client, "/")
    unhandled, handled = section(page, "unhandled"), section(page, "handled")
    assert "Unhandled problems 2" in unhandled and "Handled problems 1" in handled
    assert unhandled.index("HTTP") < unhandled.index("Replication")  # critical before warning
    assert "SMTP" not in unhandled and "SMTP" in handled and "Acknowledged" in handled
    assert "3 failing checks: 2 unhandled , 1 handled" in text_of(page)
    assert "Disk" in section(page, "all") and "Disk" not in unhandled + handled


def test_a_disabled_failing_check_is_handled(problems: World, client) -> None:
    history.disable_check(problems.s, WEB, "HTTP")
    page = html(client, "/")
    assert "HTTP" not in section(page, "unhandled") and "HTTP" in section(page, "handled")


@pytest.mark.parametrize(("query", "shown", "hidden"), [
    ("state=critical", {"HTTP", "SMTP"}, {"Replication", "Disk"}),
    ("state=ok", {"Disk"}, {"HTTP", "SMTP", "Replication"}),
    ("state=acknowledged", {"SMTP"}, {"HTTP", "Replication", "Disk"}),
    ("entity=db-01", {"Replication", "Disk"}, {"HTTP", "SMTP"}),
    ("check=smt", {"SMTP"}, {"HTTP", "Replication", "Disk"}),
    ("tag=database", {"Replication", "Disk"}, {"HTTP", "SMTP"}),
    ("tag=web-01", {"HTTP"}, {"Replication", "Disk", "SMTP"}),  # derived from the entity name
    ("text=REFUSED", {"HTTP"}, {"Replication", "Disk", "SMTP"}),
    ("tag=database&state=failing", {"Replication"}, {"HTTP", "Disk", "SMTP"}),
    ("entity=example&text=timeout&state=critical", {"SMTP"}, {"HTTP", "Replication", "Disk"}),
])
def test_filters_combine(problems: World, client, query: str, shown: set[str], hidden: set[str]) -> None:
    listed = section(html(client, "/?" + query), "all")
    assert all(name in listed for name in shown), listed
    assert not any(f" {name} " in listed for name in hidden), listed


def test_an_entity_tag_selects_every_check_of_the_entity(problems: World, client) -> None:
    entity_store.save_entity(problems.s, "id-mail", MAIL)
    entity_store.add_entity_tags(problems.s, "id-mail", ["mail"])
    assert "SMTP" in section(html(client, "/?tag=mail"), "all")
    assert 'href="/checks?tag=mail"' in html(client, f"/entities/{MAIL}")  # the entity page links its tag view


def test_the_filters_are_kept_in_sort_and_page_links(problems: World, client, monkeypatch) -> None:
    from web.ui import triage as overview

    monkeypatch.setattr(overview, "PAGE_SIZE", 1)
    page = html(client, "/?entity=example&text=o&sort=summary")
    assert 'name="entity" value="example"' in page and 'name="text" value="o"' in page
    links = re.findall(r'href="(/checks\?[^"#]*)', page.replace("&amp;", "&"))
    pagers = [link for link in links if "page=2" in link]
    assert pagers and all("entity=example" in link and "text=o" in link and "sort=summary" in link for link in pagers)
    sorts = [link for link in links if "sort=check" in link]
    assert sorts and all("entity=example" in link and "text=o" in link for link in sorts)
    assert "Page 1 of 3" in text_of(page)  # every check matching: HTTP (refused), Disk (ok), SMTP (timeout)


def test_sorting_every_check_by_a_column_and_back(problems: World, client) -> None:
    by_summary = section(html(client, "/?sort=summary"), "all")
    assert by_summary.index("Connection refused") < by_summary.index("lag 45s") < by_summary.index("SMTP timeout")
    reverse = section(html(client, "/?sort=summary&desc=1"), "all")
    assert reverse.index("SMTP timeout") < reverse.index("lag 45s")
    by_check = section(html(client, "/?sort=check"), "all")
    assert by_check.index("Disk") < by_check.index("HTTP") < by_check.index("Replication") < by_check.index("SMTP")


# --- bulk actions ------------------------------------------------------------------------------


def test_bulk_acknowledge_of_selected_checks_queues_one_ack_each(problems: World, client) -> None:
    response = client.post("/bulk", data={"action": "acknowledge", "ids": [f"{WEB}:HTTP", f"{DB}:Replication"],
                                          "comment": "network team on it", "duration": "30 minutes", "back": "/"})
    assert response.status_code == 200
    page = text_of(response.get_data(as_text=True))
    assert "Acknowledgement queued for 2 check(s) for 30 minutes" in page
    assert f"{WEB} / HTTP acknowledgement queued" in page
    events = queued(problems)
    assert [(e["entity"], e["check"], e["state"], e["duration"], e["summary"]) for e in events] == [
        (WEB, "HTTP", "acknowledgement", 1800, "network team on it"),
        (DB, "Replication", "acknowledgement", 1800, "network team on it")]
    problems.drain()
    assert "Unhandled problems 0" in section(html(client, "/"), "unhandled")


def test_bulk_on_all_matching_checks_uses_the_filter_not_the_page(problems: World, client) -> None:
    response = client.post("/bulk", data={"action": "test", "all_matching": "1", "filter_tag": "database"})
    assert response.status_code == 200
    assert sorted((e["check"], e["state"]) for e in queued(problems)) == [
        ("Disk", "test_notifications"), ("Replication", "test_notifications")]


def test_bulk_schedule_and_end_maintenance(problems: World, client, clock) -> None:
    ids = [f"{WEB}:HTTP", f"{DB}:Disk"]
    response = client.post("/bulk", data={"action": "schedule", "ids": ids, "duration": "2 hours", "start": "",
                                          "comment": "kernel update"})
    assert response.status_code == 200, response.get_data(as_text=True)
    for entity, check in ((WEB, "HTTP"), (DB, "Disk")):
        assert maint.in_force(problems.s, entity, check, maint.SCHEDULED) == clock.now
    assert "HTTP" in section(html(client, "/"), "handled")
    clock.advance(60)
    page = text_of(client.post("/bulk", data={"action": "end", "ids": ids + [f"{MAIL}:SMTP"]}).get_data(as_text=True))
    assert "ended on 3 of 3" in page and "acknowledgement ended" in page
    assert maint.in_force(problems.s, WEB, "HTTP", maint.SCHEDULED) is None
    assert maint.in_force(problems.s, MAIL, "SMTP", maint.UNSCHEDULED) is None


def test_bulk_disable_and_enable(problems: World, client) -> None:
    client.post("/bulk", data={"action": "disable", "ids": [f"{DB}:Disk", f"{DB}:Replication"]})
    assert not check_store.is_enabled(problems.s, DB, "Disk")
    assert problems.r.zscore(keys.current_entities(), DB) is None  # no current check left on db-01
    client.post("/bulk", data={"action": "enable", "ids": [f"{DB}:Disk"]})
    assert check_store.is_enabled(problems.s, DB, "Disk") and not check_store.is_enabled(problems.s, DB, "Replication")


def test_bulk_on_an_unknown_check_does_nothing_to_it_and_says_so(problems: World, client) -> None:
    response = client.post("/bulk", data={"action": "acknowledge", "ids": [f"{WEB}:HTTP", "ghost.example.com:Nope"]})
    page = text_of(response.get_data(as_text=True))
    assert "ghost.example.com / Nope no such check: nothing was done" in page
    assert [e["entity"] for e in queued(problems)] == [WEB]
    assert entity_store.entity_id(problems.s, "ghost.example.com") is None


@pytest.mark.parametrize(("data", "message"), [
    ({"action": "acknowledge", "ids": [f"{WEB}:HTTP"], "duration": "soon-ish"}, "could not read the duration"),
    ({"action": "explode", "ids": [f"{WEB}:HTTP"]}, "Unknown action"),
    ({"action": "acknowledge"}, "No check was selected"),
    ({"action": "schedule", "ids": [f"{WEB}:HTTP"], "duration": "1 hour", "start": "the day after never"},
     "nothing was done"),
])
def test_a_bad_bulk_request_changes_nothing(problems: World, client, data: dict, message: str) -> None:
    response = client.post("/bulk", data=data)
    assert response.status_code == 400
    assert message in response.get_data(as_text=True)
    assert queued(problems) == []
    assert maint.in_force(problems.s, WEB, "HTTP", maint.SCHEDULED) is None


def test_bulk_without_the_csrf_token_is_refused(problems: World, client) -> None:
    client.get("/")
    response = client.post("/bulk", data={"action": "acknowledge", "ids": [f"{WEB}:HTTP"], "csrf_token": "forged"})
    assert response.status_code in (400, 403)
    assert queued(problems) == []


def test_the_entity_page_offers_the_bulk_form_for_its_checks(problems: World, client) -> None:
    page = html(client, f"/entities/{DB}")
    assert 'id="bulk"' in page and 'action="/bulk"' in page
    assert f'value="{DB}:Disk" form="bulk"' in page and f'value="{DB}:Replication" form="bulk"' in page


def test_bulk_on_all_matching_checks_is_capped_and_says_so(problems: World, client, monkeypatch) -> None:
    from web.ui import triage as overview

    monkeypatch.setattr(overview, "MAX_MATCHING", 2)
    page = text_of(client.post("/bulk", data={"action": "test", "all_matching": "1"}).get_data(as_text=True))
    assert "Only the first 2 matching checks were acted on" in page
    assert len(queued(problems)) == 2
