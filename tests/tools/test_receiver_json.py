"""receiver json (stream of concatenated objects) and receiver oneoff."""

from __future__ import annotations

import json

import pytest

from flapjack_py.intake.json_feed import split_stream, validate

from .conftest import queued

START = 1_700_000_000
OK = {"entity": "web-1", "check": "HTTP", "type": "service", "state": "ok", "time": 1_600_000_000}


def test_split_stream_handles_values_across_and_within_chunks():
    chunks = ['{"a": 1}{"b"', ': 2}\n', '  [1, 2] {"c":', ' 3}', ' {"broken": ']
    assert list(split_stream(chunks)) == ['{"a": 1}', '{"b": 2}', "[1, 2]", '{"c": 3}', '{"broken":']


def test_validate_adds_time_when_missing(clock):
    event, errors = validate('{"entity": "a", "check": "b", "type": "service", "state": "ok"}', START)
    assert (event["time"], errors) == (START, [])
    assert validate(json.dumps(OK), START) == (OK, [])
    assert validate('{"entity": "a"}', START) == (None, ["missing required keys: type, state, check"])


def test_json_from_stdin(flapjack, real_r, clock):
    bad = '{"entity": "web-1", "check": "HTTP", "type": "service", "state": "fine"}'
    stream = json.dumps(OK) + "\n" + bad + '{"entity": "db-1",\n "check": "PING", "type": "service", "state": "critical"}'
    result = flapjack("receiver", "json", input=stream)
    assert result.exit_code == 0, result.output
    critical = {"entity": "db-1", "check": "PING", "type": "service", "state": "critical", "time": START}
    assert result.stdout.splitlines() == [
        f"Enqueued event data, {json.dumps(OK)}",
        "Invalid event data received, state must be one of ok, warning, critical, unknown, acknowledgement, "
        f"test_notifications, got 'fine' {bad}",
        f"Enqueued event data, {json.dumps(critical)}",
        "Done.",
    ]
    assert queued(real_r) == [OK, critical]


def test_json_from_file(flapjack, real_r, tmp_path):
    path = tmp_path / "events.json"
    path.write_text(json.dumps(OK) * 3)
    result = flapjack("receiver", "json", "-f", str(path))
    assert result.exit_code == 0
    assert queued(real_r) == [OK] * 3
    missing = flapjack("receiver", "json", "-f", str(tmp_path / "none.json"))
    assert missing.exit_code == 2 and "No such file" in missing.stderr


def test_oneoff_queues_one_service_event(flapjack, real_r, clock):
    result = flapjack("receiver", "oneoff", "web-1", "HTTP", "critical", "down", "--debug")
    assert result.exit_code == 0, result.output
    event = {"entity": "web-1", "check": "HTTP", "type": "service", "state": "critical", "summary": "down",
             "time": START}
    assert queued(real_r) == [event]
    assert result.stdout == f"Enqueued event data, {json.dumps(event)}\n"


@pytest.mark.parametrize("args", [("web-1", "HTTP", "bogus", "x"), ("web-1", "HTTP", "ok")])
def test_oneoff_rejects_bad_input(flapjack, real_r, args):
    result = flapjack("receiver", "oneoff", *args)
    assert result.exit_code == 2
    assert queued(real_r) == []
