"""Pure report computations (engine.md 7.3)."""

from __future__ import annotations

from flapjack_py.store.history import StateChange
from flapjack_py.store.maintenance import Window
from flapjack_py.views.reports import downtime, maintenance_periods, outages


def ch(ts, state, summary=None, details=None):
    return StateChange(ts, state, summary, details)


def test_outages_merge_runs_and_clamp_first():
    changes = [ch(50, "critical", "a"), ch(100, "critical", "b", "d"), ch(200, "ok"), ch(300, "warning"),
               ch(400, "critical", "c")]
    assert outages(changes, 80, 1000) == [
        {"state": "critical", "start_time": 80, "end_time": 200, "duration": 120, "summary": "a / b",
         "details": " / d"},
        {"state": "warning", "start_time": 300, "end_time": 400, "duration": 100, "summary": "", "details": ""},
        {"state": "critical", "start_time": 400, "end_time": 1000, "duration": 600, "summary": "c", "details": ""},
    ]


def test_outages_open_ended_and_empty():
    assert outages([], 0, 10) == []
    assert outages([ch(5, "unknown")], None, None) == [
        {"state": "unknown", "start_time": 5, "end_time": None, "duration": None, "summary": "", "details": ""}]


def test_maintenance_periods_range_and_running():
    windows = [Window(0, 50, "old"), Window(10, 200, "running"), Window(300, 10, "in"), Window(900, 1, "late")]
    assert maintenance_periods(windows, 100, 500) == [
        {"start_time": 10, "duration": 200, "summary": "running", "end_time": 210},
        {"start_time": 300, "duration": 10, "summary": "in", "end_time": 310}]
    assert [p["start_time"] for p in maintenance_periods(windows, None, None)] == [0, 10, 300, 900]


def test_downtime_split_trim_drop_and_percentages():
    outs = [{"state": "critical", "start_time": 0, "end_time": 100, "duration": 100, "summary": "s", "details": ""},
            {"state": "warning", "start_time": 200, "end_time": 300, "duration": 100, "summary": "w", "details": ""},
            {"state": "critical", "start_time": 400, "end_time": 450, "duration": 50, "summary": "x", "details": ""}]
    sms = [{"start_time": 40, "end_time": 60}, {"start_time": 250, "end_time": 350}, {"start_time": 390, "end_time": 460}]
    result = downtime(outs, sms, 0, 1000)
    assert result["downtime"] == [
        {"state": "critical", "start_time": 0, "end_time": 40, "duration": 40, "summary": "s [split start]"},
        {"state": "critical", "start_time": 60, "end_time": 100, "duration": 40, "summary": "s [split finish]"},
        {"state": "warning", "start_time": 200, "end_time": 250, "duration": 50, "summary": "w", "details": ""}]
    assert result["total_seconds"] == {"critical": 80, "warning": 50, "ok": 870}
    assert result["percentages"] == {"critical": 8.0, "warning": 5.0, "ok": 87.0}


def test_downtime_unbounded_and_empty():
    outs = [{"state": "critical", "start_time": 0, "end_time": None, "duration": None, "summary": "", "details": ""}]
    assert downtime(outs, [{"start_time": 5, "end_time": 10}], None, None) == {
        "total_seconds": {"critical": 0}, "percentages": {"critical": None}, "downtime": outs}
    assert downtime([], [], 0, 10) == {"total_seconds": {}, "percentages": {}, "downtime": []}
