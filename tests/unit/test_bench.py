"""flapjack bench, the pure parts: workload, correctness verdicts, output lines, reference, placement, report."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from flapjack_py.bench import runner, scenarios
from flapjack_py.bench.context import Options
from flapjack_py.bench.correctness import Failure, Observation, failures
from flapjack_py.bench.output import format_line, format_value
from flapjack_py.bench.reference import Reference, Sample
from flapjack_py.bench.runner import report
from flapjack_py.bench.scenarios import Run, ThroughputResult
from flapjack_py.bench.servers import choose_placement
from flapjack_py.bench.workload import everyone_fails, notifications_of_flapping, population_for, round_robin
from flapjack_py.errors import BenchError
from flapjack_py.model.events import parse_event

IDS = ("bench-0000.example.com", "check-00")


def make_obs(**over: object) -> Observation:
    """A right run of 10 events with 6 alerts, with `over` applied."""
    fields: dict[str, object] = {"pushed": 10, "counted": 10, "alerts": 6, "alerts_expected": 6,
                                 "expected_states": {IDS: "ok"}, "states": {IDS: "ok"}}
    fields.update(over)
    return Observation(**fields)  # type: ignore[arg-type]


def make_run(obs: Observation, seconds: float = 1.0) -> Run:
    return Run(events=obs.pushed, seconds=seconds, executive_cpu_s=0.5, redis_commands=50, redis_cpu_s=0.2, obs=obs)


# --- workload -------------------------------------------------------------------


def test_failing_mix_alternates_one_check_in_ten_and_counts_the_spec_alerts() -> None:
    pop = population_for(1000, True)
    assert pop.size == 1000 and pop.check(1234 % 1000) == ("bench-0023.example.com", "check-04")
    assert [pop.state(n * 1000) for n in range(4)] == ["critical", "ok", "critical", "ok"]
    assert pop.state(1) == "ok"
    assert pop.flapping_events(20_000) * 6 == 12_000  # bench.md: 12,000 alerts for 20,000 events


def test_round_robin_remembers_the_last_state_sent_per_check() -> None:
    work = round_robin(population_for(20, True), 30, 0)
    assert len(work.raws) == 30 and work.notifying == 3  # check 0 at n=0,20; check 10 at n=10
    assert work.last[("bench-0000.example.com", "check-00")] == "ok"
    assert work.last[("bench-0001.example.com", "check-00")] == "critical"


def test_flapping_checks_and_their_event_counts() -> None:
    assert population_for(20, True).flapping_checks(30) == {("bench-0000.example.com", "check-00"): 2,
                                                             ("bench-0001.example.com", "check-00"): 1}


@pytest.mark.parametrize(("times", "made"), [
    ([10, 11, 12, 13], 4),  # one flap a second: every event notifies (bench.md's 6 alerts per flapping event)
    ([10, 10, 10, 10], 3),  # critical, ok, critical, ok in one second: the recovery ties the problem, then wins
    ([10, 11, 11, 12, 13], 3),  # ok and critical in second 11: the ok at 12 is not notified, so the critical at
    #                             13 is notified but held back by the interval key the critical at 11 set
    ([10, 11, 11, 12, 13, 14], 4),  # the ok at 14 is notified (last problem 13 > last recovery 11), clearing it
    ([10, 10, 10, 10, 11, 12], 4),  # after the tie the critical at 11 alerts nobody, the ok at 12 does
    ([10, 10, 11, 11], 4),  # critical then ok in one second: the recovery is notified
    ([], 0),
])
def test_flapping_alerts_follow_the_same_second_tie_rule_and_the_interval_key(times: list[int], made: int) -> None:
    assert notifications_of_flapping(times) == made


def test_events_are_valid_contract_events_of_about_350_bytes() -> None:
    work = everyone_fails(population_for(20, False), 0, 1_700_000_000)
    assert work.notifying == 20 and set(work.last.values()) == {"critical"}
    for raw in work.raws:
        event = parse_event(raw.encode())
        assert event.state == "critical" and event.initial_failure_delay == 0 and event.repeat_failure_delay == 0
        assert 300 <= len(raw) <= 420


# --- correctness ------------------------------------------------------------------


def test_a_right_run_has_no_failures() -> None:
    assert failures(make_obs()) == []


@pytest.mark.parametrize(("over", "reason"), [
    ({"counted": 9}, Failure.LOST_EVENTS),
    ({"in_flight_left": 1}, Failure.INFLIGHT_LEFT),
    ({"queued_left": 2}, Failure.INFLIGHT_LEFT),
    ({"alerts": 5}, Failure.ALERT_COUNT),
    ({"alerts": 7}, Failure.ALERT_COUNT),
    ({"states": {IDS: "critical"}}, Failure.STATE_MISMATCH),
    ({"states": {}}, Failure.STATE_MISMATCH),
])
def test_each_planted_problem_is_caught(over: dict[str, object], reason: Failure) -> None:
    assert failures(make_obs(**over)) == [reason]


def test_lost_events_are_reported_first() -> None:
    assert failures(make_obs(counted=8, alerts=0))[0] is Failure.LOST_EVENTS


# --- report ---------------------------------------------------------------------------


def reference() -> Reference:
    return Reference([Sample(10_000.0, 100_000.0, 30_000.0, 20_000.0), Sample(11_000.0, 110_000.0, 31_000.0, 20_000.0)])


def run_report(results: dict[str, ThroughputResult], tmp_path: Path) -> tuple[int, list[str], dict]:
    lines: list[str] = []
    path = tmp_path / "bench.json"
    data = {"env": {"flapjack": "x"}, "reference": reference(), "results": results}
    code = report(Options(json_path=str(path)), data, 12.5, lines.append)
    return code, lines, json.loads(path.read_text())


def test_lost_events_fail_the_run_with_exit_1(tmp_path: Path) -> None:
    result = ThroughputResult("ok_steady", 1000, [make_run(make_obs(counted=9))])
    code, lines, data = run_report({"ok_steady": result}, tmp_path)
    assert code == 1
    assert lines[-1].startswith("bench.result status=fail reason=lost_events scenario=ok_steady runtime_s=")
    assert " lost=1" in lines[2] and data["result"]["status"] == "fail"


def test_a_right_run_reports_every_line_in_spec_order(tmp_path: Path) -> None:
    steady = ThroughputResult("ok_steady", 1000, [make_run(make_obs(alerts=0, alerts_expected=0), s)
                                                  for s in (2.0, 1.0, 4.0)])
    many = ThroughputResult("checks_10k", 10_000, [make_run(make_obs(alerts=0, alerts_expected=0), 2.0)])
    storm = ThroughputResult("storm", 2000, [make_run(make_obs())])
    code, lines, data = run_report({"ok_steady": steady, "checks_10k": many, "storm": storm}, tmp_path)
    assert code == 0 and lines[-1] == "bench.result status=ok runtime_s=12.5"
    assert [line.split("=")[0] for line in lines[:2]] == ["bench.env flapjack", "bench.reference raw_rtt_per_s"]
    keys = [pair.split("=")[0] for pair in lines[2].split()[1:]]
    assert keys == ["name", "checks", "events", "seconds", "events_per_s", "ratio_rtt", "ratio_pipe", "alerts",
                    "alerts_expected", "redis_cmds_per_event", "executive_cpu_us_per_event",
                    "redis_cpu_us_per_event", "lost"]
    assert "seconds=2 events_per_s=5 " in lines[2]  # the median repetition
    assert "ratio_to_ok_steady=1 lost=0" in lines[3]
    assert lines[4].startswith("bench.scenario name=storm checks=2000 contacts=3 media=2 seconds=1 alerts=6 "
                               "alerts_expected=6 alerts_per_s=6 ratio_jobs=0.0002 ratio_alert_writes=0.0003 "
                               "redis_cmds_per_alert=")
    assert lines[4].split()[-4:-1] == ["redis_cmds_per_alert=8.3333", "executive_cpu_us_per_alert=83333.3",
                                       "redis_cpu_us_per_alert=33333.3"] and lines[4].endswith(" lost=0")
    assert len(data["scenarios"]["ok_steady"]["raw"]["repetitions"]) == 3


def steady_runs(*events_per_s: float) -> list[Run]:
    """Right runs of 10 events at these rates."""
    return [make_run(make_obs(alerts=0, alerts_expected=0), 10 / rate) for rate in events_per_s]


def test_rotated_checks_10k_compares_each_run_with_the_ok_steady_run_of_its_round() -> None:
    steady = ThroughputResult("ok_steady", 1000, steady_runs(10, 8, 12.5), rotated=True)
    many = ThroughputResult("checks_10k", 10_000, steady_runs(9, 8, 5), rotated=True)
    # rounds 0.9, 1.0 and 0.4 (the third run fell in a slow phase): their median, not median/median (8/10)
    assert many.fields(reference(), {"ok_steady": steady})["ratio_to_ok_steady"] == pytest.approx(0.9)
    back_to_back = ThroughputResult("checks_10k", 10_000, steady_runs(9, 8, 5))
    assert back_to_back.fields(reference(), {"ok_steady": steady})["ratio_to_ok_steady"] == pytest.approx(0.8)
    assert many.raw()["in_rotation"] is True and "in_rotation" not in back_to_back.raw()


def test_steady_scenarios_run_their_repetitions_in_rotation_and_lines_keep_the_order_asked(
        monkeypatch: pytest.MonkeyPatch) -> None:
    done: list[object] = []

    def run_once(_ctx: object, pop: object, contacts: bool, _events: int, _build: object) -> Run:
        done.append((pop.size, contacts))  # type: ignore[attr-defined]
        return steady_runs(10)[0]

    monkeypatch.setattr(scenarios, "run_once", run_once)
    monkeypatch.setattr(runner, "_sample", lambda _ctx, _ref: done.append("reference"))
    monkeypatch.setattr(runner, "env_fields", lambda _ctx: {})
    monkeypatch.setitem(runner.SCENARIO_RUNNERS, "storm",
                        lambda _ctx: done.append("storm") or ThroughputResult("storm", 2000, [make_run(make_obs())]))
    progress: list[str] = []
    asked = ("ok_steady", "storm", "failing_10pct", "checks_10k")
    data = runner._run_scenarios(SimpleNamespace(options=Options(scenarios=asked, repeat=2)),  # type: ignore[arg-type]
                                 progress.append)
    round_ = [(1000, False), (1000, True), (10_000, False)]  # ok_steady, failing_10pct (alerting), checks_10k
    assert done == ["reference", *round_, *round_, "reference", "storm", "reference"]
    assert list(data["results"]) == list(asked)
    assert all(data["results"][name].rotated for name in ("ok_steady", "failing_10pct", "checks_10k"))
    assert any(line.startswith("bench: checks_10k done in ") and "with ok_steady and failing_10pct (ok)" in line
               for line in progress)
    # asked alone, a steady scenario's repetitions run back to back
    done.clear()
    alone = runner._run_scenarios(SimpleNamespace(options=Options(scenarios=("checks_10k",), repeat=2)),  # type: ignore[arg-type]
                                  progress.append)
    assert done == ["reference", (10_000, False), (10_000, False), "reference"]
    assert not alone["results"]["checks_10k"].rotated


def test_values_have_no_spaces_and_at_most_4_decimals() -> None:
    assert format_value(0.123456) == "0.1235" and format_value(12345.678) == "12345.7"
    assert format_value(3.0) == "3" and format_value("a b") == "a_b" and format_value(True) == "yes"
    assert format_line("x", {"a": 1, "b": 0.5}) == "bench.x a=1 b=0.5"


def test_reference_takes_medians_and_flags_noise() -> None:
    ref = reference()
    assert ref.fields()["raw_rtt_per_s"] == 10_500.0 and ref.fields()["noisy"] == "no"
    ref.samples.append(Sample(20_000.0, 100_000.0, 30_000.0, 20_000.0))
    assert ref.fields() == {"raw_rtt_per_s": 11_000.0, "raw_rtt_min": 10_000.0, "raw_rtt_max": 20_000.0,
                            "raw_pipe_per_s": 100_000.0, "raw_jobs_per_s": 30_000.0, "raw_alert_writes_per_s": 20_000.0,
                            "samples": 3, "noisy": "yes"}
    ref.samples[2:] = [Sample(11_000.0, 110_000.0, 31_000.0, 30_000.0)]  # the alert writes' spread counts too
    assert ref.fields()["noisy"] == "yes"


# --- placement --------------------------------------------------------------------------


def test_placement_pins_redis_and_executive_to_the_last_cpu() -> None:
    same = choose_placement(None, [0, 1])
    assert (same.name, same.redis, same.executive, same.feeder) == ("same", {1}, {1}, {0})
    split = choose_placement("split", [0, 1, 2])
    assert (split.redis, split.executive, split.feeder) == ({2}, {0, 1}, {0, 1})
    assert choose_placement("free", [0, 1]).fields(True) == {"placement": "free", "redis_cpu": "-",
                                                            "executive_cpu": "-", "feeder_cpu": "-"}
    assert choose_placement(None, [0]).name == "free"
    with pytest.raises(BenchError):
        choose_placement("split", [0])
