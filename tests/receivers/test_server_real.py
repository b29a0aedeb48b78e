"""`flapjack server` runs the receivers enabled under `receivers:` and restarts one that dies."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from flapjack_py.store.receivers import load_receiver_counters

from .conftest import RUN_CLI, wait_for, wait_for_fifo

pytestmark = pytest.mark.real

EVENT = {"entity": "web-1", "check": "HTTP", "type": "service", "state": "ok", "summary": "fine"}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def receiver_child(server_pid: int) -> int | None:
    """Pid of the server's `receiver json` child, if one runs."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except (OSError, IndexError, ValueError):
            continue
        if ppid == server_pid and b"receiver" in argv and b"json" in argv:
            return int(entry.name)
    return None


def pushed(client) -> int:
    return load_receiver_counters(client).get("json", {}).get("pushed", 0)


def test_server_runs_and_restarts_an_enabled_receiver(tmp_path, redis_server, real_r, real_s):
    pipe = tmp_path / "events.fifo"
    config = tmp_path / "flapjack.yml"
    config.write_text(yaml.safe_dump({
        "redis": {"url": redis_server.url}, "web": {"port": free_port()}, "logging": {"level": "INFO"},
        "executive": {"new_check_scheduled_maintenance_duration": 0},
        "receivers": {"json": {"enabled": True, "fifo": str(pipe), "fifo_mode": "0600"}}}))
    env = {k: v for k, v in os.environ.items() if k != "FLAPJACK_REDIS_URL"} | {"FLAPJACK_CONFIG": str(config)}
    server = subprocess.Popen([sys.executable, "-c", RUN_CLI, "server"], env=env, stdin=subprocess.DEVNULL)
    try:
        wait_for_fifo(pipe, 30)
        first = receiver_child(server.pid)
        assert first is not None
        with open(pipe, "w") as writer:
            writer.write(json.dumps(EVENT) + "\n")
        wait_for(lambda: pushed(real_s) == 1, 20, "the first event pushed")
        os.kill(first, signal.SIGKILL)
        wait_for(lambda: receiver_child(server.pid) not in (None, first), 20, "the receiver restarted")
        with open(pipe, "w") as writer:  # the pipe survived its reader: the new receiver reads it
            writer.write(json.dumps({**EVENT, "state": "critical"}) + "\n")
        wait_for(lambda: pushed(real_s) == 2, 20, "the second event pushed")
    finally:
        server.send_signal(signal.SIGTERM)
        code = server.wait(timeout=30)
    assert code == 0
    assert receiver_child(server.pid) is None
