"""The executive's snapshot read (store/checks.load_snapshots, Lua LOAD_SNAPSHOTS) on a real server."""

from __future__ import annotations

import pytest
import redis

from flapjack_py import keys
from flapjack_py.checks import NOTIFICATION_KINDS, StateChange
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


def test_recent_state_changes_are_the_two_newest_with_their_summaries(real_r: redis.Redis, real_s: StrRedis) -> None:
    for ts, state, summary in ((100, "ok", "fine"), (200, "critical", "down"), (300, "warning", None)):
        real_r.zadd(keys.sorted_state_timestamps("web", "a"), {str(ts): ts})
        real_r.set(keys.check_state_at("web", "a", ts), state)
        if summary is not None:
            real_r.set(keys.check_summary_at("web", "a", ts), summary)
    real_r.zadd(keys.sorted_state_timestamps("web", "b"), {"50": 50})
    real_r.set(keys.check_state_at("web", "b", 50), "ok")
    found = check_store.load_recent_state_changes(real_s, [("web", "a"), ("web", "never"), ("web", "b")])
    assert found == {("web", "a"): [StateChange(300, "warning", None), StateChange(200, "critical", "down")],
                     ("web", "never"): [], ("web", "b"): [StateChange(50, "ok", None)]}
