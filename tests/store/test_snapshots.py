"""The executive's snapshot read (store/checks.load_snapshots, Lua LOAD_SNAPSHOTS) on a real server."""

from __future__ import annotations

import pytest
import redis

from flapjack_py import keys
from flapjack_py.model.checks import NOTIFICATION_KINDS, StateChange
from flapjack_py.store import checks as check_store
from flapjack_py.store import tags as tag_store
from flapjack_py.store.plumbing.client import StrRedis

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


def test_windows_and_in_force_keys_of_a_mixed_batch(real_r: redis.Redis, real_s: StrRedis) -> None:
    """Each check of one read gets its own windows and in-force times (the script reads the in-force keys of
    all checks with one MGET and the windows only when some check has any)."""
    for check in ("windowed", "plain", "covered", "light"):
        stored_check(real_r, check, "ok")
    real_r.zadd(keys.maintenances("web", "windowed", "scheduled"), {"1000": 600})
    real_r.zadd(keys.maintenances("web", "covered", "scheduled"), {"2000": 300})
    real_r.set(keys.maintenance("web", "covered", "scheduled"), 2000)
    real_r.set(keys.maintenance("web", "light", "scheduled"), 3000)
    ids = [("web", c) for c in ("windowed", "plain", "covered", "light")]
    found = check_store.load_snapshots(real_s, ids, ok_only={("web", "light")})
    windowed, plain, covered, light = (found[i] for i in ids)
    assert windowed.scheduled_windows == {1000: 600} and windowed.scheduled_start is None
    assert plain.scheduled_windows == {} and plain.scheduled_start is None and plain.unscheduled_start == 80
    assert covered.scheduled_windows == {} and covered.scheduled_start == 2000  # in force: windows not needed
    assert light.scheduled_start == 3000 and light.unscheduled_start == 80 and light.check_tags == frozenset()
    # none of the checks has a window: none is read, in-force times still are
    nothing = check_store.load_snapshots(real_s, ids[1:2] + ids[3:], ok_only={("web", "light")})
    assert nothing[ids[1]].scheduled_windows == {} and nothing[ids[3]].scheduled_start == 3000
    # a new check (no state yet) reads its windows even when one is in force
    real_r.zadd(keys.maintenances("web", "new", "scheduled"), {"4000": 60})
    real_r.set(keys.maintenance("web", "new", "scheduled"), 4000)
    new = check_store.load_snapshots(real_s, [("web", "new")])[("web", "new")]
    assert new.state is None and new.scheduled_windows == {4000: 60} and new.scheduled_start == 4000
