"""The one-tap forms of issue 34 without a browser: the check page's acknowledgement presets (15 min ... until
08:00, read in the browser's zone), the action bar's buttons, and an entity's maintenance presets."""

from __future__ import annotations

import json

from flapjack_py import keys
from flapjack_py.model.escalation import policy_from_json
from flapjack_py.oncall.schedule_data import schedule_from_json
from flapjack_py.store import entities as entity_store
from flapjack_py.store import escalation as escalation_store
from flapjack_py.store import maintenance as maint
from flapjack_py.store import schedules as schedule_store

from .conftest import World

E, C, D = "web-01.example.com", "HTTP", "Disk"
URL = f"/checks/{E}/{C}"


def failing(world: World) -> World:
    world.contact("ann", "Ann", "Oncall", E)
    for check in (C, D):
        world.event(E, check, "ok")
    world.drain()
    for check in (C, D):
        world.event(E, check, "critical", initial_failure_delay=0)
    world.drain()
    return world


def queued(world: World) -> list[dict]:
    return [json.loads(raw) for raw in reversed(world.r.lrange(keys.events(), 0, -1))]


def test_acknowledge_presets_win_over_the_typed_duration_and_until_reads_the_zone(world: World, client, clock) -> None:
    failing(world)
    client.post(f"{URL}/acknowledge", data={"preset": "15m", "duration": "4 hours"})
    assert queued(world)[-1]["duration"] == 900
    eight = (clock.now // 86400) * 86400 + 8 * 3600  # 08:00 UTC of the frozen day
    client.post(f"{URL}/acknowledge", data={"preset": "until 08:00", "timezone": "UTC"})
    assert queued(world)[-1]["duration"] == (eight - clock.now) % 86400  # the next 08:00 (22:13 now: tomorrow's)
    client.post(f"{URL}/acknowledge", data={"preset": "until 08:00", "timezone": "Asia/Tokyo"})
    assert queued(world)[-1]["duration"] == (eight - 9 * 3600 - clock.now) % 86400  # 08:00 in Tokyo
    response = client.post(f"{URL}/acknowledge", data={"preset": "until never"})
    assert response.status_code == 303 and "error=bad-duration" in response.headers["Location"]


def test_the_action_bar_buttons_act_and_maintenance_defaults_to_an_hour(world: World, client) -> None:
    failing(world)
    page = client.post("/bulk", data={"do": "schedule", "action": "acknowledge", "ids": [f"{E}:{C}"]})
    assert page.status_code == 200 and "Scheduled maintenance created on 1 check(s) for 1 hour" in page.get_data(as_text=True)
    assert maint.in_force(world.s, E, C, maint.SCHEDULED) is not None and queued(world) == []
    client.post("/bulk", data={"do": "acknowledge", "ids": [f"{E}:{D}"]})
    assert [e["check"] for e in queued(world)] == [D]


def test_an_entity_preset_covers_every_check_and_a_bad_time_does_nothing(world: World, client, clock) -> None:
    failing(world)
    bad = client.post(f"/entities/{E}/maintenance", data={"preset": "until", "until": "the day after never"})
    assert bad.status_code == 303 and "error=bad-maintenance" in bad.headers["Location"]
    assert maint.in_force(world.s, E, C, maint.SCHEDULED) is None
    response = client.post(f"/entities/{E}/maintenance", data={"preset": "until", "until": "in 3 hours"})
    assert "notice=entity-maintenance" in response.headers["Location"]
    for check in (C, D):
        [window] = maint.list_windows(world.s, E, check, maint.SCHEDULED)
        assert window.start <= clock.now < window.start + window.duration
        assert window.start + window.duration == clock.now + 3 * 3600
    assert client.post("/entities/ghost.example.com/maintenance", data={"preset": "1h"}).status_code == 404


def test_the_check_page_names_the_next_escalation_step_and_who_was_told(world: World, client, clock) -> None:
    world.contact("ann", "Ann", "Oncall", E)
    world.contact("rex", "Rex", "Ray", "other.example.com")
    rota = {"timezone": "UTC", "layers": [{"start": "2023-11-01T00:00Z", "rotation": "P1W", "contacts": ["rex"]}]}
    schedule_store.save_schedule(world.s, schedule_from_json(rota, clock.now, "primary"))
    policy = {"name": "Web", "levels": [{"delay": 0, "targets": [{"contact": "ann"}]},
                                        {"delay": 900, "targets": [{"schedule": "primary"}]}]}
    escalation_store.save_policy(world.s, policy_from_json(policy, "web"))
    escalation_store.link(world.s, entity_store.entity_id(world.s, E), ["web"])
    world.event(E, C, "ok")
    world.drain()
    world.event(E, C, "critical", "down", initial_failure_delay=0)
    world.drain()
    page = client.get(URL).get_data(as_text=True)
    facts = page[page.index('id="facts"'):page.index("</section>", page.index('id="facts"'))]
    assert "Who was told:" in facts and "Ann Oncall" in facts
    assert "Rex Ray at" in facts and "unless acknowledged" in facts
    assert "Nobody is told about this check" not in page  # one source: the card


def test_the_alert_history_names_who_acknowledged(world: World, client, clock) -> None:
    failing(world)
    first = world.s.zrange(keys.alerts(), 0, 0)[0]
    record = {**world.s.hgetall(keys.alert(first)), "id": "ack-1", "type": "acknowledgement", "actor": "rex",
              "channel": "ui", "timestamp": str(clock.now - 120)}  # what the notifier writes for rex's acknowledgement
    world.s.hset(keys.alert("ack-1"), mapping=record)
    world.s.zadd(keys.alerts(), {"ack-1": clock.now - 120})
    page = client.get("/alerts").get_data(as_text=True)
    assert 'Acknowledged by <strong class="actor">rex</strong> · <time' in page and "2 minutes ago" in page
