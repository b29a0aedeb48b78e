"""The executive's snapshot read (store/checks.load_snapshots, Lua LOAD_SNAPSHOTS) on a real server."""

from __future__ import annotations

import pytest
import redis

from flapjack_py import keys
from flapjack_py.checks import NOTIFICATION_KINDS
from flapjack_py.store import checks as check_store
from flapjack_py.store import tags as tag_store
from flapjack_py.store.client import StrRedis

pytestmark = pytest.mark.real


def stored_check(client: redis.Redis, check: str, state: str) -> None:
    client.hset(keys.check("web", check), mapping={"state": state, "last_update": 100})
    client.set(keys.last_notification("web", check, "recovery"), 90)
    client.set(keys.maintenance("web", check, "unscheduled"), 80)
    tag_store.add_check_tags(client, "web", check, ["prod"])


def test_an_ok_only_check_in_state_ok_comes_without_notification_times_and_tags(real_r: redis.Redis, real_s: StrRedis) -> None:
    stored_check(real_r, "steady", "ok")
    stored_check(real_r, "failing", "critical")
    ids = [("web", "steady"), ("web", "failing")]
    light, whole = check_store.load_snapshots(real_s, ids, ok_only=set(ids)).values()
    assert light.last_notifications == dict.fromkeys(NOTIFICATION_KINDS) and light.check_tags == frozenset()
    assert (light.state, light.last_update, light.unscheduled_start) == ("ok", 100, 80)  # what an ok reads
    assert whole.last_notifications["recovery"] == 90 and whole.check_tags == frozenset({"prod"})  # not ok: all
    steady = check_store.load_snapshots(real_s, ids[:1])[ids[0]]
    assert steady.last_notifications["recovery"] == 90 and steady.check_tags == frozenset({"prod"})
