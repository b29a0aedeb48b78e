"""Executive scenarios on a real Redis: tags, re-enabling and entity names (engine.md 2).

How a scenario reads, the defaults and the helpers: scenario_steps.py.
"""

from __future__ import annotations

import redis
from scenario_steps import CHECK, E_C, ENTITY, SCENARIO, T0, Keys, MakeExecutive, Step, sm_key

from flapjack_py.model.notification import Notification

pytestmark = SCENARIO

# --- tags and re-enabling --------------------------------------------------------------


def test_notification_tags_merge_event_check_and_derived_tags(step: Step, real_r: redis.Redis,
                                                              notifications: list[Notification]) -> None:
    real_r.sadd("check_tag:team-a", E_C)
    real_r.sadd("known_tag:check_tag", "team-a")
    real_r.sadd("check_tag:team-b", "other-01:HTTP")  # another check's tag does not apply (D9)
    real_r.sadd("known_tag:check_tag", "team-b")
    step(T0, state="critical", tags=["Prod"])
    step(T0 + 30, state="critical", tags=["Prod"])

    assert sorted(notifications[-1].tags) == ["Prod", "example.com", "http", "team-a", "web-01"]


def test_check_tag_skips_new_check_scheduled_maintenance(make_executive: MakeExecutive,
                                                         push: Step, real_r: redis.Redis) -> None:
    real_r.sadd("check_tag:nosm", E_C)
    real_r.sadd("known_tag:check_tag", "nosm")
    ex = make_executive(new_check_scheduled_maintenance_ignore_tags=["nosm"])
    push(state="critical")
    ex.drain()

    assert real_r.exists(sm_key()) == 0


def test_service_event_re_enables_a_disabled_check(step: Step, real_r: redis.Redis) -> None:
    step(T0, state="ok")
    real_r.zrem(f"current_checks:{ENTITY}", CHECK)
    real_r.zrem("current_entities", ENTITY)

    step(T0 + 10, state="ok")

    assert real_r.zscore(f"current_checks:{ENTITY}", CHECK) == T0 + 10
    assert real_r.zscore("current_entities", ENTITY) == T0 + 10


def test_entity_name_is_lower_cased(step: Step, stored: Keys, real_r: redis.Redis) -> None:
    step(T0, state="ok", entity="WEB-01.Example.com")

    assert stored.check()["state"] == "ok"
    assert real_r.hexists("all_entity_ids_by_name", ENTITY) == 1
    assert real_r.hexists("all_entity_ids_by_name", "WEB-01.Example.com") == 0
