"""Worker processes: SIGKILL in the middle of a delivery, and `flapjack server` restarting a killed gateway."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from rq import Queue, Worker
from rq.registry import StartedJobRegistry
from rq.serializers import JSONSerializer

from .conftest import gateway_config, status_of, wait_for

FLAPJACK = [sys.executable, "-c", "from flapjack_py.cli import main; main()"]


def write_config(tmp_path: Path, redis_url: str, smtp_port: int, **email: object) -> Path:
    path = tmp_path / "flapjack.yml"
    section = {"enabled": True, "retries": 2, "retry_intervals": [0],
               "smtp_config": {"host": "127.0.0.1", "port": smtp_port}, **email}
    path.write_text(yaml.safe_dump({"redis": {"url": redis_url}, "gateways": {"email": section},
                                    "logging": {"level": "INFO"}}))
    return path


def start(args: list[str], config_path: Path) -> subprocess.Popen[bytes]:
    env = dict(os.environ, FLAPJACK_CONFIG=str(config_path))
    env.pop("FLAPJACK_REDIS_URL", None)
    return subprocess.Popen([*FLAPJACK, *args], env=env, stdin=subprocess.DEVNULL)


def started_job_ids(client) -> list[str]:
    registry = StartedJobRegistry("email", connection=client, serializer=JSONSerializer)
    return [job_id for job_id, _ in registry.get_job_and_execution_ids(cleanup=False)]


@pytest.mark.parametrize("retries, final", [(2, "delivered"), (0, "failed")])
def test_sigkill_mid_delivery_leaves_no_alert_queued(retries, final, tmp_path, redis_server, smtp_server, enqueue,
                                                     burst, real_r, real_s):
    config = gateway_config(redis_server.url, "email", retries=retries,
                            smtp_config={"host": "127.0.0.1", "port": smtp_server.port})
    smtp_server.mailbox.delay = 5.0  # the SMTP server sits on DATA: the worker is mid-send
    alert = enqueue(config)
    worker = start(["gateway", "email"], write_config(tmp_path, redis_server.url, smtp_server.port))
    try:
        wait_for(lambda: alert["id"] in started_job_ids(real_r), timeout=20)
    finally:
        worker.send_signal(signal.SIGKILL)
        worker.wait()
    assert status_of(real_s, alert["id"])["status"] == "queued"
    smtp_server.mailbox.delay = 0
    burst("email", config)
    record = status_of(real_s, alert["id"])
    assert record["status"] == final
    if final == "failed":
        assert record["error"] == "worker died while delivering"
    assert started_job_ids(real_r) == []


def gateway_worker_pid(client) -> int | None:
    workers = Worker.all(queue=Queue("email", connection=client))
    pids = [int(w.name.split("@", 1)[1].split(":")[1]) for w in workers if w.name.startswith("flapjack-email@")]
    live = [pid for pid in pids if os.path.exists(f"/proc/{pid}")]
    return live[0] if live else None


def test_server_restarts_a_killed_gateway_which_then_delivers(tmp_path, redis_server, smtp_server, enqueue,
                                                            real_r, real_s):
    config_path = write_config(tmp_path, redis_server.url, smtp_server.port)
    config = gateway_config(redis_server.url, "email", smtp_config={"host": "127.0.0.1", "port": smtp_server.port})
    server = start(["server"], config_path)
    try:
        first = wait_for(lambda: gateway_worker_pid(real_r), timeout=30)
        os.kill(first, signal.SIGKILL)
        alert = enqueue(config)
        wait_for(lambda: status_of(real_s, alert["id"]).get("status") == "delivered", timeout=30)
        second = gateway_worker_pid(real_r)
        assert second and second != first
        assert len(smtp_server.messages) == 1
    finally:
        server.send_signal(signal.SIGTERM)
        code = server.wait(timeout=30)
    assert code == 0
