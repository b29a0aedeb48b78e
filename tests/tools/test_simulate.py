"""flapjack simulate fail|fail_and_recover|ok."""

from __future__ import annotations

import pytest

from flapjack_py import keys
from flapjack_py.tools import simulate
from flapjack_py.tools.simulate import SUMMARY, send_offsets

from .conftest import queued

START = 1_700_000_000
STAMP = "2023-11-14 22:13:20 +0000"


@pytest.fixture
def fake_sleep(clock, monkeypatch):
    """time.sleep in simulate moves the frozen clock instead of waiting."""
    slept = []

    def sleep(seconds):
        slept.append(seconds)
        clock.advance(seconds)

    monkeypatch.setattr(simulate, "_sleep", sleep)
    return slept


def test_offsets_follow_flapjack_timers():
    assert send_offsets(10, 0.75) == [0, 10, 20, 30, 40]
    assert send_offsets(10, 0.5) == [0, 10, 20]  # the 30 s tick and the stop coincide: stop wins
    assert send_offsets(0.5, 0.01) == [0]  # 0.6 s -> stops after 0 s


def test_fail_sends_failures_then_stops(flapjack, real_r, fake_sleep):
    result = flapjack("simulate", "fail", "-t", "0.05", "-i", "1", "-e", "app-1", "-k", "PING", "-s", "warning",
                      "-T", "a,b")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == [
        f"{STAMP}: sending failure event (warning) for app-1:PING",
        "2023-11-14 22:13:21 +0000: sending failure event (warning) for app-1:PING",
        "2023-11-14 22:13:22 +0000: sending failure event (warning) for app-1:PING",
        "2023-11-14 22:13:23 +0000: stopping",
    ]
    events = queued(real_r)
    assert [e["time"] for e in events] == [START, START + 1, START + 2]
    assert events[0] == {"entity": "app-1", "check": "PING", "type": "service", "state": "warning",
                         "summary": SUMMARY, "time": START, "tags": ["a", "b"]}


def test_fail_and_recover_ends_with_ok(flapjack, real_r, fake_sleep):
    result = flapjack("simulate", "fail_and_recover", "-t", "0.02", "-i", "0.5")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == f"{STAMP}: sending failure event (critical) for foo-app-01:HTTP"
    assert lines[-2:] == ["2023-11-14 22:13:21 +0000: stopping",
                          "2023-11-14 22:13:21 +0000: sending recovery event for foo-app-01:HTTP"]
    states = [(e["entity"], e["check"], e["state"]) for e in queued(real_r)]
    assert states == [("foo-app-01", "HTTP", "critical")] * 2 + [("foo-app-01", "HTTP", "ok")]


def test_ok_has_no_state_option(flapjack, real_r, fake_sleep):
    assert flapjack("simulate", "ok", "-t", "0", "-i", "1").exit_code == 0
    assert [e["state"] for e in queued(real_r)] == ["ok"]
    bad = flapjack("simulate", "ok", "-s", "critical")
    assert bad.exit_code == 2 and "No such option '-s'" in bad.output


@pytest.mark.parametrize("args", [["-i", "0"], ["-t", "-1"], ["-i", "x"], ["-s", "bogus"]])
def test_bad_arguments_exit_non_zero(flapjack, real_r, args):
    result = flapjack("simulate", "fail", *args)
    assert result.exit_code == 2
    assert "Error: Invalid value" in result.output
    assert real_r.llen(keys.events()) == 0
