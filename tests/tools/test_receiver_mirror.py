"""receiver mirror: replay another Redis's archived events (source = db 1 of the test server)."""

from __future__ import annotations

import json

import pytest
import redis

from flapjack_py import keys

from .conftest import queued


def event(entity, n):
    return json.dumps({"entity": entity, "check": "HTTP", "type": "service", "state": "ok", "time": n})


@pytest.fixture
def source(redis_server, real_r):
    url = redis_server.url.replace("db=0", "db=1")
    client = redis.Redis.from_url(url)
    client.flushdb()
    # newest events are pushed on the left, as the executive archives them
    client.lpush(keys.events_archive("2023111421"), event("web-1", 1), event("db-1", 2))
    client.lpush(keys.events_archive("2023111422"), event("web-2", 3))
    yield url
    client.flushdb()
    client.close()


def test_all_replays_every_archive_in_order(flapjack, real_r, source):
    result = flapjack("receiver", "mirror", "-s", source, "--all")
    assert result.exit_code == 0, result.output
    assert [e["time"] for e in queued(real_r)] == [1, 2, 3]
    assert result.stdout.splitlines()[-1] == "3 events mirrored"


def test_include_filters_by_check_id(flapjack, real_r, source):
    assert flapjack("receiver", "mirror", "-s", source, "-a", "-i", "^web-").exit_code == 0
    assert [e["entity"] for e in queued(real_r)] == ["web-1", "web-2"]


@pytest.mark.parametrize(("args", "message"), [
    ((), "one or both of --follow or --all is required"),
    (("--all", "--last", "5"), "--last and --time are unimplemented"),
])
def test_usage_errors(flapjack, source, args, message):
    result = flapjack("receiver", "mirror", "-s", source, *args)
    assert result.exit_code == 2 and message in result.stderr


def test_no_archives(flapjack, redis_server, real_r):
    result = flapjack("receiver", "mirror", "-s", redis_server.url.replace("db=0", "db=2"), "--all")
    assert result.exit_code == 1 and "found no archives!" in result.stderr
