"""The watchdog in real gateway processes: one "monitoring is down" email with two watchdogs, one "back"."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import redis
import yaml

from flapjack_py.config.settings import read_config_file
from flapjack_py.runtime.embedded_redis import EmbeddedRedis
from flapjack_py.runtime.health import check_health
from flapjack_py.store import contacts as contact_store
from flapjack_py.store import media as media_store
from flapjack_py.store.plumbing.client import StrRedis

from .conftest import SmtpServer, wait_for

pytestmark = [pytest.mark.real, pytest.mark.slow]

FLAPJACK = [sys.executable, "-c", "from flapjack_py.cli import main; main()"]


def start(args: list[str], config_path: Path) -> subprocess.Popen[bytes]:
    env = dict(os.environ, FLAPJACK_CONFIG=str(config_path))
    env.pop("FLAPJACK_REDIS_URL", None)
    return subprocess.Popen([*FLAPJACK, *args], env=env, stdin=subprocess.DEVNULL)


def stop(proc: subprocess.Popen[bytes], sig: int = signal.SIGTERM) -> None:
    if proc.poll() is None:
        proc.send_signal(sig)
    proc.wait(timeout=20)


def subjects(smtp: SmtpServer) -> list[str]:
    return [str(m["Subject"]) for m in smtp.messages]


def test_two_gateway_watchdogs_send_one_down_and_one_back(tmp_path: Path, redis_server: EmbeddedRedis,
                                                          real_r: redis.Redis, smtp_server: SmtpServer, real_s: StrRedis) -> None:
    config_path = tmp_path / "flapjack.yml"
    config_path.write_text(yaml.safe_dump({
        "redis": {"url": redis_server.url},
        "gateways": {"email": {"enabled": True, "smtp_config": {"host": "127.0.0.1", "port": smtp_server.port}}},
        "watchdog": {"heartbeat_timeout": 10, "after": 2, "interval": 1, "contacts": ["ops"]}}))
    contact_store.create_contact(real_s, {"id": "ops", "first_name": "Ops", "last_name": "Team"})
    media_store.set_medium(real_s, "ops", "email", "ops@example.com")
    config = read_config_file(config_path)
    executive = start(["executive"], config_path)
    gateways: list[subprocess.Popen[bytes]] = []
    try:
        wait_for(lambda: check_health(real_s, config, int(time.time())).executives, 30, "the executive beats")
        gateways += [start(["gateway", "email"], config_path) for _ in range(2)]
        wait_for(lambda: check_health(real_s, config, int(time.time())).gateways["email"]["workers"] == 2, 30,
                 "both email workers beat")
        time.sleep(3)  # a few rounds of both watchdogs: all is well, nobody is paged
        assert subjects(smtp_server) == []
        stop(executive, signal.SIGKILL)
        killed = time.monotonic()
        wait_for(lambda: smtp_server.messages, timeout=25, what="the down alert")
        took = time.monotonic() - killed
        time.sleep(4)  # several more watchdog rounds: nobody sends it again
        assert subjects(smtp_server) == ["Flapjack: monitoring is down"]
        down = smtp_server.messages[0]
        assert down["To"] == "ops@example.com"
        assert "No executive has processed events for" in down.get_body(("plain",)).get_content()
        assert took <= 10 + 2 + 3, took  # heartbeat timeout + after + a round or two

        executive = start(["executive"], config_path)
        wait_for(lambda: len(smtp_server.messages) == 2, timeout=20, what="the back alert")
        time.sleep(3)
        assert subjects(smtp_server) == ["Flapjack: monitoring is down", "Flapjack: monitoring is back"]
    finally:
        for proc in [executive, *gateways]:
            stop(proc)
