"""flapjack_py.model.flapping: Nagios's weighted percent state change and the flapping hysteresis (pure)."""

from __future__ import annotations

from flapjack_py.model import flapping


def test_percent_state_change_weighs_recent_changes_more() -> None:
    assert flapping.percent_state_change("o" * 21) == 0.0
    assert flapping.percent_state_change("oc" * 10 + "o") == 100.0  # every transition changed
    assert flapping.percent_state_change("o" * 20 + "c") == 6.25  # newest change: weight 1.25 / 20
    assert flapping.percent_state_change("oc" + "c" * 19) == 3.75  # oldest change: weight 0.75 / 20
    assert flapping.percent_state_change("c") == 0.0  # a new check starts at 0 %
    assert flapping.percent_state_change("x" * 30 + "o" * 21) == 0.0  # only the last 21 count


def test_starts_above_high_and_stops_below_low() -> None:
    history, since = "o" * 21, None
    changes = []
    for i, state in enumerate(["critical", "ok"] * 3 + ["ok"] * 21):
        result = flapping.observe(history, since, state, 1000 + i, low=5.0, high=20.0)
        history, since = result.history, result.since
        if result.change:
            changes.append((result.change, i, result.percent))
    assert [(c, i) for c, i, _ in changes] == [("started", 3), ("stopped", 24)]
    assert changes[0][2] > 20.0 and changes[1][2] < 5.0


def test_severity_is_the_worst_state_seen() -> None:
    assert flapping.severity("ooowoco") == "critical"
    assert flapping.severity("oooo") == "warning"
    assert flapping.severity("ouo") == "unknown"
