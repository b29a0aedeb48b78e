"""The delivery scenarios' verdict: duplicates and undelivered counted from the alerts recorded and what the
servers accepted (correctness.tally_deliveries), the `bench.delivery` lines, and a wrong run failing with exit 1."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from flapjack_py.bench.context import Options
from flapjack_py.bench.correctness import Failure, Tally, tally_deliveries
from flapjack_py.bench.delivery import Delivered, DeliveryResult, delivery_size
from flapjack_py.bench.reference import Reference, Sample
from flapjack_py.bench.runner import report
from flapjack_py.bench.sinks import alert_key


def test_every_alert_accepted_once_is_right() -> None:
    tally = tally_deliveries(["a", "b", "c"], ["c", "a", "b"])
    assert tally == Tally(expected=3, delivered=3, duplicates=0, undelivered=0, unexpected=0)
    assert tally.failures(3, 3) == []


def test_an_alert_accepted_twice_is_one_duplicate_and_three_times_two() -> None:
    tally = tally_deliveries(["a", "b", "c"], ["a", "b", "a", "c", "c", "c"])
    assert (tally.delivered, tally.duplicates, tally.undelivered) == (3, 3, 0)
    assert tally.failures(3, 3) == [Failure.DUPLICATES]


def test_an_alert_never_accepted_is_undelivered_whatever_else_was() -> None:
    tally = tally_deliveries(["a", "b", "c"], ["a", "a", "zzz"])  # b and c lost, a twice, one unknown
    assert (tally.delivered, tally.duplicates, tally.undelivered, tally.unexpected) == (1, 1, 2, 1)
    assert tally.failures(3, 3) == [Failure.UNDELIVERED, Failure.DUPLICATES]


def test_fewer_alerts_recorded_than_expected_is_an_alert_count_failure() -> None:
    assert tally_deliveries(["a"], ["a"]).failures(1, 6) == [Failure.ALERT_COUNT]


def test_nothing_recorded_and_nothing_accepted() -> None:
    assert tally_deliveries([], []) == Tally(0, 0, 0, 0, 0)


def test_an_email_is_known_by_its_alert_id_a_pagerduty_event_by_service_key_and_check() -> None:
    assert alert_key("email", "abc123", "ada@example.com", "web:ping") == "abc123"
    assert alert_key("pagerduty", "abc123", "routingkey", "web:ping") == "routingkey/web:ping"


@pytest.mark.parametrize(("quick", "events", "checks"), [(False, None, 1000), (True, None, 334), (True, 100, 100),
                                                         (False, 5000, 1000)])
def test_quick_runs_a_third_of_the_size_and_events_caps_it(quick: bool, events: int | None, checks: int) -> None:
    ctx: Any = type("Ctx", (), {"options": Options(quick=quick, events=events)})()
    assert delivery_size(ctx, 1000) == checks


# --- lines and the exit code -------------------------------------------------------------------------


def delivered(media: tuple[str, ...], keys: list[str], received: list[str], **over: Any) -> Delivered:
    """A run pushed at 100.0 whose servers accepted `received` (one a second from 101.0)."""
    fields: dict[str, Any] = {
        "media": media, "pushed_at": 100.0, "queued_at": 100.5, "alerts": len(keys), "alerts_expected": len(keys),
        "received": {media[0]: [(key, 101.0 + n) for n, key in enumerate(received)]}, "sessions": {media[0]: 1},
        "tally": tally_deliveries(keys, received), "tuning": {m: (2, 4) for m in media}}
    fields.update(over)
    return Delivered(**fields)


def reference() -> Reference:
    return Reference([Sample(10_000.0, 100_000.0, 30_000.0, 20_000.0)])


def run_report(results: dict[str, Any], tmp_path: Path) -> tuple[int, list[str], dict[str, Any]]:
    lines: list[str] = []
    path = tmp_path / "bench.json"
    data = {"env": {"flapjack": "x"}, "reference": reference(), "results": results}
    code = report(Options(json_path=str(path)), data, 3.0, lines.append)
    return code, lines, json.loads(path.read_text())


def test_right_delivery_runs_report_their_lines_in_spec_order(tmp_path: Path) -> None:
    email = DeliveryResult("delivery_email", delivered(("email",), ["a", "b"], ["a", "b"], raw_rate=4.0))
    http = DeliveryResult("delivery_http", delivered(("pagerduty",), ["a", "b"], ["b", "a"], raw_rate=1.0))
    storm = DeliveryResult("storm_delivered", delivered(("email", "pagerduty"), ["a", "b"], ["a", "b"]))
    latency = DeliveryResult("delivery_latency", delivered(("email",), ["a"], ["a"]), 100.0, 3.0, [5.0, 7.0, 20.0])
    code, lines, data = run_report({"delivery_email": email, "delivery_http": http, "storm_delivered": storm,
                                    "delivery_latency": latency}, tmp_path)
    assert code == 0 and lines[-1] == "bench.result status=ok runtime_s=3"
    assert lines[2] == ("bench.delivery name=delivery_email alerts=2 seconds=2 delivered_per_s=1 raw_smtp_per_s=4 "
                        "ratio_smtp=0.25 smtp_sessions=1 workers=2 concurrency=4 duplicates=0 undelivered=0")
    assert lines[3] == ("bench.delivery name=delivery_http alerts=2 seconds=2 delivered_per_s=1 raw_http_per_s=1 "
                        "ratio_http=1 connections=1 workers=2 concurrency=4 duplicates=0 undelivered=0")
    assert lines[4] == ("bench.delivery name=storm_delivered alerts=2 seconds=2 queue_seconds=0.5 ratio_to_queue=4 "
                        "duplicates=0 undelivered=0")
    assert lines[5] == ("bench.delivery name=delivery_latency offered_per_s=100 seconds=3 alerts=1 p50_ms=7 p99_ms=20 "
                        "max_ms=20")
    assert data["scenarios"]["delivery_latency"]["raw"]["latencies_ms"] == [5.0, 7.0, 20.0]
    assert data["scenarios"]["delivery_email"]["raw"]["failures"] == []


def test_an_undelivered_alert_fails_the_run_with_exit_1(tmp_path: Path) -> None:
    email = DeliveryResult("delivery_email", delivered(("email",), ["a", "b", "c"], ["a", "a"]))
    code, lines, data = run_report({"delivery_email": email}, tmp_path)
    assert code == 1
    assert "duplicates=1 undelivered=2" in lines[2]
    assert lines[-1].startswith("bench.result status=fail reason=undelivered scenario=delivery_email runtime_s=")
    assert data["scenarios"]["delivery_email"]["raw"]["failures"] == ["undelivered", "duplicates"]


def test_a_duplicate_alone_fails_the_run_with_reason_duplicates(tmp_path: Path) -> None:
    storm = DeliveryResult("storm_delivered", delivered(("email", "pagerduty"), ["a", "b"], ["a", "b", "b"]))
    code, lines, _ = run_report({"storm_delivered": storm}, tmp_path)
    assert code == 1 and lines[-1].startswith("bench.result status=fail reason=duplicates scenario=storm_delivered")


def test_without_aiosmtpd_a_full_run_leaves_the_delivery_scenarios_out_and_asking_for_them_is_refused(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    from flapjack_py.bench import runner
    from flapjack_py.bench.context import DELIVERY, SCENARIOS
    from flapjack_py.errors import BenchError

    find = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "aiosmtpd" else find(name, *a))
    said: list[str] = []
    kept = runner._without_missing_delivery(Options(), said.append)
    assert kept.scenarios == tuple(n for n in SCENARIOS if n not in DELIVERY) and "pip install aiosmtpd" in said[0]
    assert runner._without_missing_delivery(Options(scenarios=("storm",)), said.append).scenarios == ("storm",)
    with pytest.raises(BenchError, match="aiosmtpd"):
        runner._without_missing_delivery(Options(scenarios=("storm", "delivery_email")), said.append)
