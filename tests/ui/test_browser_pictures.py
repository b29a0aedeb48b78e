"""The check page's state timeline and the sparklines, drawn by uPlot in a real browser (Debian Chromium)."""

from __future__ import annotations

import json

import pytest

from flapjack_py.store import samples
from tests.browser import BROWSER_TEST, expect

from .conftest import World

pytestmark = BROWSER_TEST

E, C = "web-01.example.com", "HTTP port 80"
COLOURS = {"ok": "#2e7d32", "warning": "#f9a825", "critical": "#c62828"}
READ_STATE_LANE = """el => {
  const [left, right, y] = el.getAttribute("data-state-lane").split(" ").map(Number);
  const row = el.querySelector("canvas").getContext("2d").getImageData(left, y, right - left, 1).data;
  const runs = [];
  for (let i = 0; i < row.length; i += 4) {
    const hex = "#" + [row[i], row[i + 1], row[i + 2]].map(v => v.toString(16).padStart(2, "0")).join("");
    if (runs[runs.length - 1] !== hex) { runs.push(hex); }
  }
  return runs;
}"""


@pytest.fixture
def history(world: World, clock) -> World:
    """ok for an hour, critical for an hour (alerted to Ann), ok for an hour, then warning, acknowledged."""
    world.contact("ann", "Ann", "Oncall", E)
    for state in ("ok", "critical", "ok", "warning"):
        world.event(E, C, state, initial_failure_delay=0)
        world.drain()
        clock.advance(3600)
    world.r.lpush("events", json.dumps({"type": "action", "state": "acknowledgement", "entity": E, "check": C,
                                        "duration": 600, "summary": "on it"}))
    world.drain()
    clock.advance(60)
    return world


@pytest.mark.parametrize("span", ["24h", "7d"])
def test_the_state_timeline_draws_one_band_per_state_period(history: World, page, base_url: str,
                                                             span: str) -> None:
    errors: list[str] = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.goto(f"{base_url}/checks/{E}/{C}?span={span}")
    chart = page.locator("#timeline .timeline-chart")
    expect(chart).to_have_attribute("data-bands", "4")
    assert chart.locator("canvas").count() == 1
    drawn = [c for c in chart.evaluate(READ_STATE_LANE) if c in COLOURS.values()]
    assert drawn == [COLOURS[s] for s in ("ok", "critical", "ok", "warning")]
    data = page.locator("#timeline .timeline-chart").get_attribute("data-timeline")
    assert '"unscheduled"' in data  # the acknowledgement is marked
    assert page.locator("#timeline .timeline-table tbody tr").count() >= 5  # 4 bands + the ack, as text too
    assert errors == []  # no CSP violation, no script error


def test_sparklines_on_the_overview_and_the_status_page(world: World, page, base_url: str) -> None:
    world.event(E, C, "ok")
    world.drain()
    import time

    now = int(time.time())
    world.r.hset("event_counters", "all", 100)
    samples.record_sample(world.s, "events", now - 60)
    world.r.hset("event_counters", "all", 400)
    samples.record_sample(world.s, "events", now - 30)
    samples.record_sample(world.s, "events", now)
    for path in ("/", "/status"):
        page.goto(base_url + path)
        if path == "/":
            page.locator("#filter-fold summary").click()  # the overview's charts fold behind "Filter" (issue 34)
        for key in ("events", "alerts", "queue"):
            expect(page.locator(f"#spark-{key} canvas")).to_have_count(1)
        assert page.locator("#spark-events figcaption").inner_text() == "0.0 events/s (hour max 10.0)"
