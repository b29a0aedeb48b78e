"""Each UI page answers 200 and shows the data the executive made."""

from __future__ import annotations

from .conftest import World


def test_front_page_lists_failing_checks_first(world: World, client, clock) -> None:
    world.event("db-01.example.com", "Disk / Util", "ok")
    world.event("web-01.example.com", "HTTP port 80", "critical", "Connection refused")
    world.drain()
    clock.advance(2 * 3600)
    response = client.get("/")
    html = response.get_data(as_text=True)
    assert response.status_code == 200
    assert "1 failing check" in html
    assert html.index("HTTP port 80") < html.index("Disk / Util")
    assert "Connection refused" in html
    assert "2 hours" in html
