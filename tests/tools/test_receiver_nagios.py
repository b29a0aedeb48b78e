"""Nagios and NSCA receivers: record parsing (pure) and a real FIFO read."""

from __future__ import annotations

import os
import threading

import pytest

from flapjack_py.tools import nagios, receiver
from flapjack_py.tools.nagios import RejectedLine, parse_nagios_line, parse_nsca_line, read_fifo_once

from .conftest import queued

SERVICE = "[SERVICEPERFDATA]\t1700000000\tWeb-1\tHTTP\tCRITICAL\t0.1\t0.2\tconnection refused\ttime=0.1s"


def test_service_record():
    assert parse_nagios_line(SERVICE + "\n") == {
        "entity": "Web-1", "check": "HTTP", "type": "service", "state": "CRITICAL",
        "summary": "connection refused", "perfdata": "time=0.1s", "time": 1_700_000_000}


@pytest.mark.parametrize(("state", "expected"), [("UP", "ok"), ("down", "critical"), ("UNREACHABLE", "UNREACHABLE")])
def test_host_record_states(state, expected):
    line = f"[HOSTPERFDATA]\t1700000000\tweb-1\tHOST\t{state}\t0.1\t0.2\tPING OK\t"
    event = parse_nagios_line(line)
    assert (event["check"], event["state"], event["perfdata"]) == ("HOST", expected, "")


def test_long_output_becomes_details_with_newlines():
    event = parse_nagios_line(SERVICE + "\tline one\\nline two\n")
    assert event["details"] == "line one\nline two"


@pytest.mark.parametrize(("line", "message"), [
    ("[SERVICEPERFDATA]\t1700000000\tweb-1",
     "ERROR - rejecting this line as it doesn't split into at least 9 tab separated strings: "
     "[[SERVICEPERFDATA]\t1700000000\tweb-1]"),
    (SERVICE.replace("1700000000", "17:00"),
     f"ERROR - rejecting this line as second string doesn't look like a timestamp: [{SERVICE.replace('1700000000', '17:00')}]"),
    (SERVICE.replace("[SERVICEPERFDATA]", "[OTHER]"),
     "ERROR - rejecting this line as first string is neither '[HOSTPERFDATA]' nor '[SERVICEPERFDATA]': "
     f"[{SERVICE.replace('[SERVICEPERFDATA]', '[OTHER]')}]"),
])
def test_rejected_records(line, message):
    with pytest.raises(RejectedLine) as err:
        parse_nagios_line(line)
    assert str(err.value) == message


def test_nsca_record_maps_return_codes():
    event = parse_nsca_line("[1700000000] PROCESS_SERVICE_CHECK_RESULT;web-1;Disk /;1;DISK WARNING\n")
    assert event == {"entity": "web-1", "check": "Disk /", "type": "service", "state": "warning",
                     "summary": "DISK WARNING", "time": 1_700_000_000}
    with pytest.raises(RejectedLine, match="illegal format"):
        parse_nsca_line("[1700000000] PROCESS_HOST_CHECK_RESULT;web-1;0;UP")
    with pytest.raises(RejectedLine, match="return code"):
        parse_nsca_line("[1700000000] PROCESS_SERVICE_CHECK_RESULT;web-1;HTTP;7;odd")


def _write_later(path, text):
    def write():
        with open(path, "w") as fifo:
            fifo.write(text)
    thread = threading.Thread(target=write, daemon=True)
    thread.start()
    return thread


def test_reads_a_real_fifo_until_eof(real_r, tmp_path):
    path = str(tmp_path / "event_stream.fifo")
    os.mkfifo(path)
    writer = _write_later(path, SERVICE + "\nnot a record\n" + SERVICE.replace("HTTP", "SSH") + "\n")
    said = []
    assert read_fifo_once(real_r, path, parse_nagios_line, said.append) == 2
    writer.join(5)
    assert [(e["check"], e["state"]) for e in queued(real_r)] == [("HTTP", "CRITICAL"), ("SSH", "CRITICAL")]
    assert said[1].startswith("ERROR - rejecting this line as it doesn't split")


def test_start_command_reads_then_restarts(flapjack, real_r, tmp_path, monkeypatch):
    path = str(tmp_path / "event_stream.fifo")
    os.mkfifo(path)
    writer = _write_later(path, SERVICE + "\n")

    def stop(seconds):
        assert seconds == nagios.RESTART_DELAY
        raise KeyboardInterrupt

    monkeypatch.setattr(receiver, "_sleep", stop)
    result = flapjack("receiver", "nagios", "start", "-f", path)
    writer.join(5)
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[-2:] == [nagios.WHOOPS, "nagios-receiver stopped"]
    assert len(queued(real_r)) == 1


def test_start_refuses_a_missing_or_plain_file(flapjack, tmp_path):
    missing = flapjack("receiver", "nagios", "start", "-f", str(tmp_path / "nope"))
    assert missing.exit_code == 2
    assert f"No fifo (named pipe) file found at {tmp_path / 'nope'}" in missing.stderr
    plain = tmp_path / "plain"
    plain.write_text("")
    result = flapjack("receiver", "nagios", "start", "-f", str(plain))
    assert result.exit_code == 2
    assert "is not a named pipe, try using mkfifo to make one" in result.stderr


def test_status_and_stop_say_nothing_runs_in_background(flapjack):
    status = flapjack("receiver", "nagios", "status")
    assert (status.exit_code, status.stdout) == (3, "nagios-receiver is not running\n")
    stop = flapjack("receiver", "nsca", "stop")
    assert (stop.exit_code, stop.stdout) == (1, "nsca-receiver is not running.\n")
