"""`flapjack web` (web.serve.serve): waitress serves the app over real HTTP and stops cleanly on SIGTERM."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
import yaml

from flapjack_py.config.settings import load_config
from flapjack_py.executive import Executive
from flapjack_py.store.events import push_event
from flapjack_py.store.plumbing.client import StrRedis
from web.serve import make_server

pytestmark = pytest.mark.real
RUN_CLI = "from flapjack_py.cli import main; main()"
JSONAPI = "application/vnd.api+json; charset=UTF-8"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def fetch(url: str, headers: dict[str, str] | None = None) -> tuple[int, Any, bytes]:
    """(status, headers (case-insensitive), body) of a GET, errors included."""
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status, response.headers, response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.headers, exc.read()


def wait_until_up(url: str, process: subprocess.Popen[bytes], seconds: float = 20) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"flapjack web exited early: {process.communicate()}")
        try:
            fetch(url)
            return
        except (urllib.error.URLError, ConnectionError):
            time.sleep(0.1)
    raise AssertionError("flapjack web did not answer in time")


@pytest.fixture
def web_process(redis_server: Any, real_r: redis.Redis, tmp_path: Path) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """`flapjack --config FILE web --bind 127.0.0.1 --port P` against the test Redis, with a token set."""
    config = {"redis": {"url": redis_server.url}, "web": {"api_token": ["tok-1", "tok-2"], "threads": 2}}
    config_file = tmp_path / "flapjack.yml"
    config_file.write_text(yaml.safe_dump(config))
    port = free_port()
    process = subprocess.Popen([sys.executable, "-c", RUN_CLI, "--config", str(config_file), "web",
                                "--bind", "127.0.0.1", "--port", str(port)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_up(base + "/api/openapi.json", process)
        yield base, process
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()


def test_flapjack_web_serves_the_api_with_waitress(web_process: tuple[str, subprocess.Popen[bytes]],
                                                   real_r: redis.Redis) -> None:
    base, process = web_process
    real_r.lpush("events", "{}")
    status, headers, body = fetch(base + "/api/metrics/events", {"Authorization": "Bearer tok-2"})
    assert status == 200
    assert headers["Content-Type"] == JSONAPI
    assert headers["Server"] == "flapjack-py"  # waitress, not the Werkzeug development server
    assert json.loads(body)["events"]["queue"] == {"length": 1}
    status, headers, body = fetch(base + "/api/contacts")
    assert status == 401 and headers["WWW-Authenticate"] == "Bearer"
    assert json.loads(body) == {"errors": ["authentication required"]}
    status, _, body = fetch(base + "/api/openapi.json")
    assert status == 200 and json.loads(body)["openapi"].startswith("3.")


def test_encoded_check_ids_route_over_real_http(web_process: tuple[str, subprocess.Popen[bytes]],
                                                real_r: redis.Redis, real_s: StrRedis) -> None:
    base, _ = web_process
    push_event(real_s, {"type": "service", "entity": "db.example.com", "check": "Disk / 100%", "state": "ok"})
    Executive(real_r, {"executive": {"new_check_scheduled_maintenance_duration": 0}}).drain()
    status, _, body = fetch(base + "/api/checks/db.example.com:Disk%20%2F%20100%25", {"Authorization": "Bearer tok-1"})
    assert status == 200
    assert [(c["name"], c["enabled"]) for c in json.loads(body)["checks"]] == [("Disk / 100%", True)]


def test_sigterm_stops_it_cleanly(web_process: tuple[str, subprocess.Popen[bytes]]) -> None:
    base, process = web_process
    process.send_signal(signal.SIGTERM)
    _, stderr = process.communicate(timeout=15)
    assert process.returncode == 0, stderr.decode()
    with pytest.raises((urllib.error.URLError, ConnectionError)):
        fetch(base + "/api/openapi.json")


def test_make_server_honours_bind_port_and_threads(real_r: redis.Redis) -> None:
    config = load_config({"web": {"bind": "127.0.0.1", "port": free_port(), "threads": 3}})
    server = make_server(config, real_r)
    try:
        assert server.effective_host == "127.0.0.1"
        assert int(server.effective_port) == config.web.port
        assert server.adj.threads == 3
    finally:
        server.close()
    override = make_server(config, real_r, bind="127.0.0.1", port=0)
    try:
        assert int(override.effective_port) not in (0, config.web.port)
    finally:
        override.close()
