"""receiver httpbroker: state defaults, staleness, and a real HTTP server."""

from __future__ import annotations

import json
import threading
import time
import urllib.request

import pytest

from flapjack_py.intake.buffer import Intake
from flapjack_py.intake.httpbroker import (
    MAX_BODY,
    StateCache,
    event_for,
    make_server,
    normalise_state,
    run_sender,
    send_cached,
)
from flapjack_py.store.receivers import load_receiver_counters

from .conftest import queued

START = 1_700_000_000


def test_defaults():
    state = normalise_state({"entity": "web-1", "check": "HTTP", "state": "ok", "summary": "fine", "time": 0}, START)
    assert state == {"entity": "web-1", "check": "HTTP", "type": "service", "state": "ok", "summary": "fine",
                     "time": START, "ttl": 300}
    with pytest.raises(ValueError, match="ttl must be a number"):
        normalise_state({"ttl": "soon"}, START)
    with pytest.raises(ValueError, match="JSON object"):
        normalise_state([1], START)


def test_event_for_fresh_stale_and_incomplete_states():
    state = normalise_state({"entity": "e", "check": "c", "state": "ok", "summary": "s", "time": START, "ttl": 60},
                            START)
    assert event_for(state, START + 60) == {"entity": "e", "check": "c", "type": "service", "state": "ok",
                                            "summary": "s", "time": START + 60}
    stale = event_for(state, START + 61)
    assert (stale["state"], stale["summary"]) == ("UNKNOWN",
                                                  "httpbroker: Cached state is stale (61s old, should be < 60s)")
    assert event_for({**state, "ttl": -1}, START + 9999)["state"] == "ok"  # negative ttl: never stale
    assert event_for({**state, "summary": ""}, START) is None


@pytest.fixture
def broker():
    cache = StateCache()
    server = make_server(cache, "127.0.0.1", 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield cache, f"http://127.0.0.1:{server.server_address[1]}/state"
    server.shutdown()
    server.server_close()
    thread.join(5)


def _request(url, body=None):
    data = None if body is None else json.dumps(body).encode()
    try:
        with urllib.request.urlopen(urllib.request.Request(url, data=data), timeout=5) as resp:
            return resp.status, resp.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


def test_post_then_get_then_send(broker, real_r, clock, real_s):
    cache, url = broker
    posted = {"entity": "web-1", "check": "HTTP", "state": "critical", "summary": "down", "time": START - 10}
    status, body = _request(url, posted)
    expected = {**posted, "type": "service", "ttl": 300}
    assert status == 200
    assert body.startswith("Caching state: ") and json.loads(body.removeprefix("Caching state: ")) == expected
    _request(url, {**posted, "state": "ok"})  # latest wins
    status, body = _request(url)
    assert (status, json.loads(body)) == (200, {"web-1:HTTP": {**expected, "state": "ok"}})
    assert send_cached(real_s, cache, START) == 1
    assert queued(real_r) == [{"entity": "web-1", "check": "HTTP", "type": "service", "state": "ok",
                               "summary": "down", "time": START}]


def test_bad_post(broker):
    _, url = broker
    assert _request(url, "not an object")[0] == 400
    assert _request(url.replace("/state", "/other"))[0] == 404
    assert _request(url, {"summary": "x" * MAX_BODY})[0] == 413


def test_posts_and_sends_are_counted(real_r, real_s):
    cache, feed = StateCache(), Intake(real_s, "httpbroker").start()
    server = make_server(cache, "127.0.0.1", 0, feed)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{server.server_address[1]}/state"
    try:
        assert _request(url, {"entity": "web-1", "check": "HTTP", "state": "ok", "summary": "fine"})[0] == 200
        assert _request(url, [1])[0] == 400
        stop = threading.Event()
        sender = threading.Thread(target=run_sender, args=(feed, cache, 0.05, stop), daemon=True)
        sender.start()
        time.sleep(0.2)
        stop.set()
        sender.join(5)
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)
    feed.close()
    counters = load_receiver_counters(real_s)["httpbroker"]
    assert (counters["read"], counters["rejected"], counters["rejected:bad_state"]) == (2, 1, 1)
    assert counters["pushed"] == real_r.llen("events") >= 1


def test_command_help(flapjack):
    result = flapjack("receiver", "httpbroker", "--help")
    assert result.exit_code == 0 and "--interval" in result.stdout
    assert flapjack("receiver", "httpbroker", "--interval", "0").exit_code == 2
