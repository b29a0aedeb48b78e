"""`flapjack receiver nsca` behind a real nsca (Debian's default settings) fed by send_nsca, and a
writer that opens the pipe per line: every result arrives."""

from __future__ import annotations

import fcntl
import os
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from flapjack_py.store.plumbing.client import StrRedis
from flapjack_py.store.receivers import load_receiver_counters

from .conftest import queued_events, wait_for, wait_for_fifo

NSCA, SEND_NSCA = "/usr/sbin/nsca", "/usr/sbin/send_nsca"
pytestmark = pytest.mark.real

# /etc/nsca.cfg and /etc/send_nsca.cfg of Debian's nsca 2.10, except where the daemon listens and writes.
NSCA_DEFAULTS = {"log_facility": "daemon", "debug": 0, "aggregate_writes": 0, "append_to_file": 0,
                 "max_packet_age": 30, "decryption_method": 1}
SEND_NSCA_DEFAULTS = "encryption_method=1\n"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def nsca(tmp_path: Path) -> Iterator[tuple[int, Path]]:
    """A foreground nsca (our child, stopped by pid) writing to tmp_path/nagios.cmd; yields (port, pipe)."""
    if not (Path(NSCA).exists() and Path(SEND_NSCA).exists()):
        pytest.skip("needs Debian's nsca and nsca-client")
    port, pipe = free_port(), tmp_path / "nagios.cmd"
    user = _user()
    settings = {**NSCA_DEFAULTS, "server_port": port, "server_address": "127.0.0.1", "pid_file": tmp_path / "nsca.pid",
                "command_file": pipe, "alternate_dump_file": tmp_path / "nsca.dump", "nsca_user": user,
                "nsca_group": user}
    (tmp_path / "nsca.cfg").write_text("".join(f"{k}={v}\n" for k, v in settings.items()))
    process = subprocess.Popen([NSCA, "-f", "-c", str(tmp_path / "nsca.cfg"), "--single"], stdin=subprocess.DEVNULL)
    try:
        wait_for(lambda: _listening(port), 10, "nsca to listen")
        yield port, pipe
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@pytest.fixture
def r(redis_server, real_r: redis.Redis) -> redis.Redis:
    return real_r


@pytest.fixture
def s(real_s: StrRedis) -> StrRedis:
    return real_s


def test_send_nsca_bursts_of_200_all_arrive(nsca, start_receiver, redis_server, r, tmp_path, s):
    """Two bursts a second apart: nsca opens the pipe per result, so a receiver that let the pipe close
    after the first burst (Flapjack 1.x slept 10 s) silently loses the second."""
    port, pipe = nsca
    receiver = start_receiver(["nsca", "start", "--fifo", str(pipe)], redis_server.url)
    wait_for_fifo(pipe)
    (tmp_path / "send_nsca.cfg").write_text(SEND_NSCA_DEFAULTS)
    for burst in range(2):
        lines = "\x17".join(f"web-{n % 10}\tcheck-{n}\t{n % 4}\tresult {burst}-{n}" for n in range(200))  # ETB: sets
        sent = subprocess.run([SEND_NSCA, "-H", "127.0.0.1", "-p", str(port), "-c", str(tmp_path / "send_nsca.cfg")],
                              input=lines.encode(), capture_output=True, timeout=30)
        assert sent.returncode == 0, sent.stdout + sent.stderr
        assert b"200 data packet(s) sent" in sent.stdout
        wait_for(lambda: r.llen("events") >= 200, 20, "the first 200 events")
        time.sleep(1)
    wait_for(lambda: r.llen("events") >= 400, 20, "400 events")
    events = queued_events(r)
    assert sorted(e["summary"] for e in events) == sorted(f"result {b}-{n}" for b in range(2) for n in range(200))
    assert {e["state"] for e in events if e["check"] == "check-7"} == {"unknown"}
    assert load_receiver_counters(s)["nsca"] | {"updated_at": 0} == {"read": 400, "pushed": 400, "rejected": 0,
                                                                      "updated_at": 0}
    assert receiver.stop() == 0


def test_a_writer_opening_the_pipe_per_line_loses_nothing(start_receiver, redis_server, r, tmp_path):
    pipe = tmp_path / "nagios.cmd"
    start_receiver(["nsca", "start", "--fifo", str(pipe)], redis_server.url)
    wait_for_fifo(pipe)
    for n in range(5000):  # as nsca does with aggregate_writes=0: open non-blocking, write one line, close
        fd = os.open(pipe, os.O_WRONLY | os.O_NONBLOCK)  # ENXIO if no reader had the pipe open
        fcntl.fcntl(fd, fcntl.F_SETFL, os.O_WRONLY)
        os.write(fd, f"[1700000000] PROCESS_SERVICE_CHECK_RESULT;web-1;check-{n};0;line {n}\n".encode())
        os.close(fd)
    wait_for(lambda: r.llen("events") >= 5000, 30, "5000 events")
    assert r.llen("events") == 5000
    assert [e["check"] for e in queued_events(r)] == [f"check-{n}" for n in range(5000)]


def _listening(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
        return True
    except OSError:
        return False


def _user() -> str:
    import pwd

    return pwd.getpwuid(os.getuid()).pw_name
