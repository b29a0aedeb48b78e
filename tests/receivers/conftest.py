"""Fixtures for receivers run as real processes: a Redis the test may kill, receiver processes stopped by pid."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import redis

from flapjack_py import keys
from flapjack_py.runtime.embedded_redis import find_server_binary

RUN_CLI = "from flapjack_py.cli import main; main()"


class KillableRedis:
    """A redis-server in `root` whose every acknowledged write is on disk (appendfsync always),
    so that a SIGKILL loses nothing it answered; started and killed by pid."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.socket = str(root / "redis.sock")
        self.url = f"unix://{self.socket}?db=0"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        """Start the server (loading its append-only file) and wait until it answers."""
        self.process = subprocess.Popen(
            [find_server_binary(), "--port", "0", "--unixsocket", self.socket, "--dir", str(self.root), "--save", "",
             "--appendonly", "yes", "--appendfsync", "always", "--daemonize", "no", "--logfile",
             str(self.root / "server.log")], stdin=subprocess.DEVNULL)
        wait_for(self.answers, 10, "redis-server to answer")

    def answers(self) -> bool:
        """True when the server answers PING."""
        client = redis.Redis.from_url(self.url, socket_connect_timeout=1)
        try:
            return bool(client.ping())
        except (redis.ConnectionError, OSError):
            return False
        finally:
            client.close()

    def kill(self) -> None:
        """SIGKILL the server (our child, by pid) and reap it."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        self.process = None

    def client(self, **options: object) -> redis.Redis:
        """A new client of the server (bytes replies unless decode_responses=True)."""
        return redis.Redis.from_url(self.url, **options)


@pytest.fixture(scope="module")
def own_redis(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KillableRedis]:
    """A Redis of this module's own (tests kill and restart it)."""
    server = KillableRedis(tmp_path_factory.mktemp("redis"))
    server.start()
    yield server
    server.kill()


class Receiver:
    """`flapjack receiver KIND start ...` as a child process; stopped with SIGTERM by pid."""

    def __init__(self, args: list[str], redis_url: str, root: Path) -> None:
        config = root / "flapjack.yml"
        config.write_text("logging:\n  level: INFO\n")
        env = {**os.environ, "FLAPJACK_REDIS_URL": redis_url, "FLAPJACK_CONFIG": str(config)}
        self.log = root / "receiver.log"
        self.process = subprocess.Popen([sys.executable, "-c", RUN_CLI, "receiver", *args], env=env,
                                        stdin=subprocess.DEVNULL, stdout=open(self.log, "ab"), stderr=subprocess.STDOUT)

    def stop(self) -> int:
        """SIGTERM the receiver and wait for it; return its exit code."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        return self.process.returncode

    def output(self) -> str:
        """What it printed and logged so far."""
        return self.log.read_text(errors="replace")


@pytest.fixture
def start_receiver(tmp_path: Path) -> Iterator[Callable[..., Receiver]]:
    """`start_receiver(args, redis_url)` starts a receiver process; every one is stopped after the test."""
    started: list[Receiver] = []

    def start(args: list[str], redis_url: str, root: Path | None = None) -> Receiver:
        folder = root or tmp_path / f"receiver-{len(started)}"
        folder.mkdir(exist_ok=True)
        started.append(Receiver(args, redis_url, folder))
        return started[-1]

    yield start
    for receiver in started:
        receiver.stop()


def wait_for(condition: Callable[[], object], seconds: float, what: str) -> None:
    """Poll `condition` until it is true; fail naming `what` after `seconds`."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.05)
    raise AssertionError(f"timed out after {seconds}s waiting for {what}")


def wait_for_fifo(path: Path, seconds: float = 10) -> None:
    """Wait until a receiver has created its named pipe."""
    wait_for(path.is_fifo, seconds, f"the named pipe {path}")


def queued_events(client: redis.Redis) -> list[dict]:
    """Events on the queue, oldest first."""
    return [json.loads(raw) for raw in reversed(client.lrange(keys.events(), 0, -1))]
