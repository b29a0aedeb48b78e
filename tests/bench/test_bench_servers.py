"""The bench's Redis target: its own server's AOF is rewritten before a timed run, a user's server never."""

from __future__ import annotations

import pytest
import redis

from flapjack_py.bench.servers import Target, choose_placement
from flapjack_py.runtime.embedded_redis import EmbeddedRedis

pytestmark = pytest.mark.real


def forks(client: redis.Redis) -> int:
    return int(client.info("stats")["total_forks"])


def test_the_private_servers_aof_is_rewritten_and_the_rewrite_waited_for() -> None:
    target = Target(None, False, choose_placement("free"))
    try:
        target.client.rpush("bench-filler", *(["x" * 200] * 5_000))
        before = forks(target.client)
        target.compact()
        persistence = target.client.info("persistence")
        assert forks(target.client) == before + 1
        assert persistence["aof_rewrite_in_progress"] == 0 and persistence["aof_rewrite_scheduled"] == 0
        assert persistence["aof_last_bgrewrite_status"] == "ok"
    finally:
        target.close()


def test_a_users_server_is_not_rewritten(redis_server: EmbeddedRedis, real_r: redis.Redis) -> None:
    target = Target(redis_server.url, False, choose_placement("free"))
    try:
        before = forks(real_r)
        target.compact()
        assert forks(real_r) == before
    finally:
        target.close()
