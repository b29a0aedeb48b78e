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
                  "bench.scenario name=storm", "bench.latency", "bench.memory")


def fields(line: str) -> dict[str, str]:
    return dict(pair.split("=", 1) for pair in line.split()[1:])


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_quick_run_of_every_scenario_is_right(tmp_path: Path) -> None:
    """The whole command in its own process, with its own private Redis, fewer events than --quick."""
    out = tmp_path / "bench.json"
    done = subprocess.run([sys.executable, "-c", "from flapjack_py.cli import main; main()", "bench", "--quick",
                           "--events", "200", "--rate", "200", "--json", str(out)],
                          capture_output=True, text=True, timeout=540, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("bench.env ") and "persistence=aof-everysec" in lines[0]
    # before, after each scenario and at the end; the three steady ones run in rotation, so count as one
    assert lines[1].startswith("bench.reference ") and fields(lines[1])["samples"] == "5"
    for line, prefix in zip(lines[2:8], SCENARIO_LINES, strict=True):
        assert line.startswith(prefix)
        got = fields(line)
        assert got.get("lost", "0") == "0"
        assert got.get("alerts") == got.get("alerts_expected")
    assert fields(lines[3])["alerts"] == "120" and fields(lines[5])["alerts"] == "1200"  # 20 flapping, 200 failing
    assert lines[8].startswith("bench.result status=ok runtime_s=")
    data = json.loads(out.read_text())
    for name, record in data["scenarios"].items():
        raw = record["raw"]
        runs = raw.get("repetitions") or ([raw["failing"], raw["ok"]] if name == "memory" else [raw])
        assert all(run["failures"] == [] and run["state_mismatches"] == 0 for run in runs), name
    assert [f"bench: {name} done" in done.stderr for name in data["scenarios"]] == [True] * 6


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
