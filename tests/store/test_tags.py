"""Data-layer tests of flapjack_py.store.tags and the tags the executive's snapshot read returns (issue 16.3)."""

from __future__ import annotations

import pytest

from flapjack_py.store import checks as check_store
from flapjack_py.store import tags as ts
from flapjack_py.store.plumbing.client import StrRedis


@pytest.fixture(params=["fake", "real"])
def client(request: pytest.FixtureRequest) -> StrRedis:
    """The same contract on fakeredis and on a real server (Lua, WATCH), through the str client store/ takes."""
    return request.getfixturevalue("s" if request.param == "fake" else "real_s")


def test_tags_are_kept_in_the_seed_layout_and_per_check(client: StrRedis) -> None:
    ts.add_check_tags(client, "web-01", "HTTP", ["prod", "team-a", ""])
    ts.add_check_tags(client, "db-01", "MySQL: lag", ["prod"])
    assert ts.check_tags(client, "web-01", "HTTP") == ["prod", "team-a"]
    assert client.smembers("check_tag:prod") == {"web-01:HTTP", "db-01:MySQL: lag"}
    assert client.smembers("known_tag:check_tag") == {"prod", "team-a"}
    assert client.smembers("db-01:MySQL: lag:check_tags") == {"prod"}


def test_removing_the_last_carrier_drops_the_tag_from_the_index(client: StrRedis) -> None:
    ts.add_check_tags(client, "web-01", "HTTP", ["prod", "team-a"])
    ts.add_check_tags(client, "web-02", "HTTP", ["prod"])
    ts.remove_check_tags(client, "web-01", "HTTP", ["prod", "team-a"])
    assert ts.check_tags(client, "web-01", "HTTP") == []
    assert ts.known_check_tags(client) == ["prod"]
    assert client.smembers("check_tag:prod") == {"web-02:HTTP"}


def test_index_picks_up_check_tag_sets_written_by_hand(client: StrRedis) -> None:
    client.sadd("check_tag:team-b", "web-01:HTTP", "db-01:MySQL: lag")
    client.sadd("known_tag:check_tag", "team-b")
    client.sadd("check_tag:unknown-tag", "web-01:HTTP")  # not in the index: never a check tag (as before)
    assert ts.index_check_tags(client) == 2
    assert ts.check_tags(client, "web-01", "HTTP") == ["team-b"]
    assert ts.check_tags(client, "db-01", "MySQL: lag") == ["team-b"]
    assert ts.index_check_tags(client) == 2  # idempotent
    assert ts.check_tags(client, "web-01", "HTTP") == ["team-b"]


def test_snapshots_carry_each_checks_own_tags_in_order(client: StrRedis) -> None:
    ids = [(f"host-{i:03d}", "HTTP") for i in range(check_store.SNAPSHOT_CHUNK * 2 + 7)]  # three Lua calls
    for i, (entity, check) in enumerate(ids):
        ts.add_check_tags(client, entity, check, [f"tag-{i}", "all"])
    snapshots = check_store.load_snapshots(client, ids)
    assert list(snapshots) == ids
    for i, ids_ in enumerate(ids):
        assert snapshots[ids_].check_tags == frozenset({f"tag-{i}", "all"})
    assert check_store.load_snapshots(client, [("never-seen", "x")])[("never-seen", "x")].check_tags == frozenset()
