"""flapjack_py.views.pictures: state bands, clipped windows and rates (pure)."""

from __future__ import annotations

from flapjack_py.views import pictures
from flapjack_py.views.pictures import Band, Window

H = 3600


def test_bands_follow_the_changes_and_clip_to_the_span() -> None:
    changes = [(-5 * H, "ok"), (H, "critical"), (2 * H, "ok"), (3 * H, "warning")]
    assert pictures.state_bands(changes, 0, 4 * H) == [
        Band(0, H, "ok"), Band(H, 2 * H, "critical"), Band(2 * H, 3 * H, "ok"), Band(3 * H, 4 * H, "warning")]


def test_changes_before_the_span_leave_only_the_state_at_its_start() -> None:
    changes = [(-9 * H, "critical"), (-5 * H, "ok")]
    assert pictures.state_bands(changes, 0, H) == [Band(0, H, "ok")]


def test_no_band_before_the_first_change_and_same_states_merge() -> None:
    changes = [(2 * H, "ok"), (3 * H, "ok"), (4 * H, None)]
    assert pictures.state_bands(changes, 0, 5 * H) == [Band(2 * H, 4 * H, "ok"), Band(4 * H, 5 * H, "")]


def test_windows_outside_the_span_are_dropped_and_the_rest_clipped() -> None:
    windows = [(-2 * H, H, "scheduled", "old"), (-H, 2 * H, "unscheduled", "ack"), (3 * H, 5 * H, "scheduled", "")]
    assert pictures.clip_windows(windows, 0, 4 * H) == [Window(0, H, "unscheduled", "ack"),
                                                       Window(3 * H, 4 * H, "scheduled", "")]


def test_timeline_keeps_alerts_inside_the_span_only() -> None:
    t = pictures.timeline([(0, "critical")], [], [-1, 10, 5, 4 * H + 1], 0, 4 * H)
    assert t.alerts == [5, 10]
    assert t.to_json() == {"start": 0, "end": 4 * H, "bands": [[0, 4 * H, "critical"]], "windows": [], "alerts": [5, 10]}


def test_rates_per_second_between_samples() -> None:
    samples = [(0, 100, 0), (30, 400, 5), (60, 400, 2), (90, 10, 0)]  # the counter reset at the end
    rates = pictures.rates(samples, [3, 0, 30])
    assert rates.times == [30, 60, 90]
    assert rates.events == [10.0, 0.0, 0.0]
    assert rates.alerts == [0.1, 0.0, 1.0]
    assert rates.queue == [5, 2, 0]
    assert pictures.rates(samples[:1], []).times == []
