"""Dependencies in the UI (issue 33.1): the page lists them with their parent's state; an admin adds one (a cycle or
a bad name is refused next to the form, keeping what was typed) and deletes one; an inhibited check is shown as
handled ("inhibited by switch-3:PING") and left out of the unhandled problems. Roles: tests/web/test_policy.py."""

from __future__ import annotations

import re

from flapjack_py.model.dependencies import Dependency
from flapjack_py.store import dependencies as store

from .conftest import World

SWITCH, WEB = "switch-3", "web-01"


def text_of(html_text: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html_text))


def section(page: str, name: str) -> str:
    match = re.search(rf'<section id="{name}".*?</section>', page, re.S)
    assert match, name
    return text_of(match.group(0))


def outage(world: World) -> None:
    """switch-3:PING and web-01:HTTP critical, web-01:HTTP depending on the switch; web-01:SSH ok."""
    for entity, check in ((SWITCH, "PING"), (WEB, "HTTP"), (WEB, "SSH")):
        world.event(entity, check, "ok")
    world.drain()
    store.add(world.s, [Dependency("web-on-switch", f"{SWITCH}:PING", "entity", WEB)])
    for entity, check in ((SWITCH, "PING"), (WEB, "HTTP")):
        world.event(entity, check, "critical", initial_failure_delay=0)
    world.drain()


def test_add_list_and_delete_a_dependency(world: World, client) -> None:
    response = client.post("/dependencies", data={"parent": f"{SWITCH}:PING", "kind": "entity", "value": "Web-01"})
    assert response.status_code == 303 and response.headers["Location"].endswith("/dependencies?notice=dependency-added")
    [dep] = store.load_all(world.s)
    assert (dep.parent, dep.kind, dep.value) == (f"{SWITCH}:PING", "entity", "web-01")
    page = text_of(client.get("/dependencies?notice=dependency-added").get_data(as_text=True))
    assert "Dependency added." in page and f"{SWITCH}:PING not failing entity web-01 {dep.id}" in page
    response = client.post(f"/dependencies/{dep.id}/delete")
    assert response.status_code == 303 and store.load_all(world.s) == []
    assert "No dependencies." in client.get("/dependencies").get_data(as_text=True)


def test_a_cycle_or_a_bad_name_is_refused_next_to_the_form(world: World, client) -> None:
    assert client.post("/dependencies", data={"parent": "a:PING", "kind": "entity", "value": "b"}).status_code == 303
    refused = client.post("/dependencies", data={"parent": "b:PING", "kind": "entity", "value": "a"})
    page = refused.get_data(as_text=True)
    assert refused.status_code == 422 and "dependency cycle: " in page and 'value="b:PING"' in page
    bad = client.post("/dependencies", data={"parent": "no-colon", "kind": "check", "value": "a:b"})
    assert bad.status_code == 422 and "parent must be &#39;ENTITY:CHECK&#39;" in bad.get_data(as_text=True)
    assert client.post("/dependencies", data={"parent": "a:b", "kind": "host", "value": "x"}).status_code == 422
    assert len(store.load_all(world.s)) == 1


def test_an_inhibited_check_is_handled_on_the_overview(world: World, client) -> None:
    outage(world)
    page = client.get("/").get_data(as_text=True)
    assert f"{SWITCH}" in section(page, "unhandled") and "HTTP" not in section(page, "unhandled")
    assert f"inhibited by {SWITCH}:PING" in section(page, "handled")
    check_page = text_of(client.get(f"/checks/{WEB}/HTTP").get_data(as_text=True))
    assert f"inhibited by {SWITCH}:PING" in check_page
    listing = text_of(client.get("/dependencies").get_data(as_text=True))
    assert f"{SWITCH}:PING failing entity {WEB}" in listing
