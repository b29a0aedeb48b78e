"""`flapjack receiver json --fifo`: one JSON event per line from a named pipe, invalid ones counted."""

from __future__ import annotations

import json

import pytest

from flapjack_py.store.receivers import load_receiver_counters

from .conftest import queued_events, wait_for, wait_for_fifo

pytestmark = pytest.mark.real


def test_json_events_from_a_pipe(start_receiver, redis_server, real_r, tmp_path, real_s):
    pipe = tmp_path / "events.fifo"
    receiver = start_receiver(["json", "--fifo", str(pipe)], redis_server.url)
    wait_for_fifo(pipe)
    good = {"entity": "web-1", "check": "HTTP", "type": "service", "state": "ok", "summary": "fine"}
    for text in (json.dumps(good), '{"entity": "web-1"}', json.dumps({**good, "state": "critical"})):
        with open(pipe, "w") as writer:  # a writer per event, closing in between
            writer.write(text + "\n")
    wait_for(lambda: load_receiver_counters(real_s).get("json", {}).get("read") == 3, 10, "3 lines counted")
    assert [e["state"] for e in queued_events(real_r)] == ["ok", "critical"]
    assert load_receiver_counters(real_s)["json"]["rejected:invalid"] == 1
    assert receiver.stop() == 0
    assert "json: rejected line (invalid)" in receiver.output()
