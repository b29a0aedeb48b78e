"""Nagios and NSCA receivers: record parsing (pure) and the command's startup errors."""

from __future__ import annotations

import pytest

from flapjack_py.intake.nagios import RejectedLine, parse_nagios_line, parse_nsca_line

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
    assert err.value.reason in ("fields", "timestamp", "object_type")


def test_nsca_record_maps_return_codes():
    event = parse_nsca_line("[1700000000] PROCESS_SERVICE_CHECK_RESULT;web-1;Disk /;1;DISK WARNING\n")
    assert event == {"entity": "web-1", "check": "Disk /", "type": "service", "state": "warning",
                     "summary": "DISK WARNING", "time": 1_700_000_000}
    with pytest.raises(RejectedLine, match="illegal format"):
        parse_nsca_line("[1700000000] PROCESS_HOST_CHECK_RESULT;web-1;0;UP")
    with pytest.raises(RejectedLine, match="return code"):
        parse_nsca_line("[1700000000] PROCESS_SERVICE_CHECK_RESULT;web-1;HTTP;7;odd")


def test_tab_in_long_output_is_kept_in_the_details():
    event = parse_nagios_line(SERVICE + "\tcol1\tcol2\\nrow2\n")
    assert (event["summary"], event["perfdata"], event["details"]) == ("connection refused", "time=0.1s",
                                                                      "col1\tcol2\nrow2")


@pytest.mark.parametrize("tail", ["\ttime=0.1s", "\t", "\tmore\ttime=0.1s\tlong output"])
def test_tab_in_plugin_output_is_rejected_not_shifted(tail):
    line = SERVICE.replace("connection refused\ttime=0.1s", "connection\trefused" + tail)
    with pytest.raises(RejectedLine) as err:
        parse_nagios_line(line)
    assert err.value.reason == "tab_in_output"
    assert "a tab in the plugin output shifts the fields" in str(err.value)


@pytest.mark.parametrize("perfdata", ["", "time=0.1s;1;2;0;10 size=5B", "'Disk /'=50%;80;90 'a b'=1"])
def test_perfdata_forms_accepted(perfdata):
    assert parse_nagios_line(SERVICE.replace("time=0.1s", perfdata))["perfdata"] == perfdata


def test_nsca_reasons():
    with pytest.raises(RejectedLine) as err:
        parse_nsca_line("garbage")
    assert err.value.reason == "format"


def test_start_refuses_a_plain_file_in_one_line(flapjack, tmp_path):
    plain = tmp_path / "plain"
    plain.write_text("")
    result = flapjack("receiver", "nagios", "start", "-f", str(plain))
    assert result.exit_code == 2
    assert result.stderr == f"Error: {plain} exists and is not a named pipe (remove it, or point the receiver " \
                            "elsewhere)\n"


def test_start_refuses_a_bad_mode(flapjack, tmp_path):
    result = flapjack("receiver", "nsca", "start", "-f", str(tmp_path / "p"), "--fifo-mode", "999")
    assert result.exit_code == 2
    assert "not an octal mode" in result.stderr


def test_status_and_stop_say_nothing_runs_in_background(flapjack):
    status = flapjack("receiver", "nagios", "status")
    assert (status.exit_code, status.stdout) == (3, "nagios-receiver is not running\n")
    stop = flapjack("receiver", "nsca", "stop")
    assert (stop.exit_code, stop.stdout) == (1, "nsca-receiver is not running.\n")


def test_options_default_to_the_receivers_settings(flapjack, tmp_path):
    plain = tmp_path / "configured"
    plain.write_text("")
    (tmp_path / "flapjack.yml").write_text(f"logging:\n  level: ERROR\nreceivers:\n  nsca:\n    fifo: {plain}\n")
    result = flapjack("receiver", "nsca", "start")
    assert (result.exit_code, result.stderr) == (2, f"Error: {plain} exists and is not a named pipe (remove it, or "
                                                    "point the receiver elsewhere)\n")
