"""`flapjack bench` end to end against real servers: every scenario's correctness fields (never its speed),
and the runs that must be refused."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path

import pytest
import redis
from click.testing import CliRunner

from flapjack_py.cli import main
from flapjack_py.runtime.embedded_redis import EmbeddedRedis

pytestmark = pytest.mark.real

SCENARIO_LINES = ("bench.scenario name=ok_steady", "bench.scenario name=failing_10pct", "bench.scenario name=checks_10k",
                  "bench.scenario name=storm", "bench.latency", "bench.memory", "bench.delivery name=delivery_email",
                  "bench.delivery name=delivery_http", "bench.delivery name=storm_delivered",
                  "bench.delivery name=delivery_latency")
DELIVERY_KEYS = {
    "delivery_email": ["name", "alerts", "seconds", "delivered_per_s", "raw_smtp_per_s", "ratio_smtp", "smtp_sessions",
                       "workers", "concurrency", "duplicates", "undelivered"],
    "delivery_http": ["name", "alerts", "seconds", "delivered_per_s", "raw_http_per_s", "ratio_http", "connections",
                      "workers", "concurrency", "duplicates", "undelivered"],
    "storm_delivered": ["name", "alerts", "seconds", "queue_seconds", "ratio_to_queue", "duplicates", "undelivered"],
    "delivery_latency": ["name", "offered_per_s", "seconds", "alerts", "p50_ms", "p99_ms", "max_ms"],
}
"""bench.md's keys of each `bench.delivery` line, in order."""


def fields(line: str) -> dict[str, str]:
    return dict(pair.split("=", 1) for pair in line.split()[1:])


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_quick_run_of_every_scenario_is_right(tmp_path: Path) -> None:
    """The whole command in its own process, with its own private Redis, fewer events than --quick; the
    delivery scenarios through `flapjack server` to the bench's local SMTP and HTTP servers. Every correctness
    field is asserted, no speed."""
    out = tmp_path / "bench.json"
    done = subprocess.run([sys.executable, "-c", "from flapjack_py.cli import main; main()", "bench", "--quick",
                           "--events", "200", "--rate", "200", "--json", str(out)],
                          capture_output=True, text=True, timeout=540, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("bench.env ") and "persistence=aof-everysec" in lines[0]
    # before, after each scenario and at the end; the three steady ones run in rotation, so count as one
    assert lines[1].startswith("bench.reference ") and fields(lines[1])["samples"] == "9"
    assert float(fields(lines[1])["raw_alert_writes_per_s"]) > 0
    for line, prefix in zip(lines[2:12], SCENARIO_LINES, strict=True):
        assert line.startswith(prefix)
        got = fields(line)
        assert got.get("lost", "0") == "0"
        assert got.get("alerts") == got.get("alerts_expected", got.get("alerts"))
        assert got.get("duplicates", "0") == "0" and got.get("undelivered", "0") == "0"
    assert fields(lines[3])["alerts"] == "120" and fields(lines[5])["alerts"] == "1200"  # 20 flapping, 200 failing
    assert float(fields(lines[5])["ratio_alert_writes"]) > 0 and "ratio_jobs=" in lines[5]
    delivery = {fields(line)["name"]: line for line in lines[8:12]}
    for name, keys in DELIVERY_KEYS.items():
        assert [pair.split("=")[0] for pair in delivery[name].split()[1:]] == keys
    # 200 checks fail x 3 contacts (x 2 media); 300 events at 100/s in 3 s, each for a check of its own, x 6
    assert [fields(delivery[n])["alerts"] for n in DELIVERY_KEYS] == ["600", "600", "1200", "1800"]
    assert int(fields(delivery["delivery_email"])["smtp_sessions"]) >= 1
    assert int(fields(delivery["delivery_http"])["connections"]) >= 1
    assert lines[12].startswith("bench.result status=ok runtime_s=")
    data = json.loads(out.read_text())
    for name, record in data["scenarios"].items():
        raw = record["raw"]
        runs = raw.get("repetitions") or ([raw["failing"], raw["ok"]] if name == "memory" else [raw])
        assert all(run["failures"] == [] and run.get("state_mismatches", 0) == 0 for run in runs), name
    for name in DELIVERY_KEYS:
        raw = data["scenarios"][name]["raw"]
        assert raw["delivered"] == raw["alerts"] == raw["alerts_expected"] and raw["unexpected"] == 0, name
    assert [f"bench: {name} done" in done.stderr for name in data["scenarios"]] == [True] * 10


@pytest.mark.timeout(300)
def test_the_delivery_scenarios_deliver_every_alert_once(tmp_path: Path) -> None:
    """delivery_email and delivery_http alone, small: every alert recorded is accepted exactly once by the
    servers, the plain clients' references measured; their local servers and `flapjack server` stopped after."""
    out = tmp_path / "bench.json"
    result = CliRunner().invoke(main, ["bench", "--quick", "--scenarios", "delivery_email,delivery_http",
                                       "--events", "40", "--json", str(out)])
    assert result.exit_code == 0, result.output
    lines = [line for line in result.output.splitlines() if line.startswith("bench.")]
    email, http = fields(lines[2]), fields(lines[3])
    assert email["alerts"] == http["alerts"] == "120"
    assert email["duplicates"] == email["undelivered"] == http["duplicates"] == http["undelivered"] == "0"
    assert float(email["raw_smtp_per_s"]) > 0 and float(http["raw_http_per_s"]) > 0
    assert email["workers"] == http["workers"] == "1"
    data = json.loads(out.read_text())
    assert data["scenarios"]["delivery_email"]["raw"]["accepted"] == {"email": 120}
    assert data["scenarios"]["delivery_http"]["raw"]["accepted"] == {"pagerduty": 120}


def test_a_non_empty_database_is_refused_with_exit_2(redis_server: EmbeddedRedis, real_r: redis.Redis) -> None:
    real_r.set("precious", "user data")
    result = CliRunner().invoke(main, ["bench", "--redis-url", redis_server.url, "--quick"])
    assert result.exit_code == 2
    assert "holds 1 keys" in result.output and "--allow-existing" in result.output
    assert real_r.get("precious") == b"user data" and real_r.dbsize() == 1


def test_an_unreachable_redis_is_a_setup_error() -> None:
    result = CliRunner().invoke(main, ["bench", "--redis-url", "redis://127.0.0.1:1/0"])
    assert result.exit_code == 2 and "cannot reach Redis" in result.output


@pytest.mark.timeout(300)
def test_allow_existing_runs_and_leaves_only_the_users_keys(redis_server: EmbeddedRedis, real_r: redis.Redis) -> None:
    real_r.set("precious", "user data")
    result = CliRunner().invoke(main, ["bench", "--redis-url", redis_server.url, "--allow-existing",
                                       "--scenarios", "ok_steady,storm", "--events", "100", "--repeat", "2"])
    assert result.exit_code == 0, result.output
    lines = [line for line in result.output.splitlines() if line.startswith("bench.")]
    assert "redis_cpu=-" in lines[0]
    assert fields(lines[3])["alerts"] == fields(lines[3])["alerts_expected"] == "600"
    assert lines[-1].startswith("bench.result status=ok")
    assert real_r.keys("*") == [b"precious"]


def test_a_child_that_does_not_answer_in_time_stops_the_bench(tmp_path: Path) -> None:
    """A server that accepts connections and never replies stands for a hung executive."""
    from flapjack_py.bench.worker import Worker
    from flapjack_py.errors import BenchError

    silent = socket.create_server(("127.0.0.1", 0))
    worker = Worker("probe", tmp_path / "probe.log", None)
    try:
        with pytest.raises(BenchError, match="no reply to drain within 3s"):
            worker.call("drain", timeout=3, url=f"redis://127.0.0.1:{silent.getsockname()[1]}/0", config={})
    finally:
        worker.stop()
        silent.close()
    assert worker.process.poll() is not None
