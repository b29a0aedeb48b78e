"""A real Redis primary, one replica and three sentinels on loopback ports, for failover tests."""

from __future__ import annotations

import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

import redis

from tests.polling import wait_for

SERVICE = "mymaster"
DOWN_AFTER_MS = 1000
FAILOVER_TIMEOUT_MS = 5000


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def sentinel_mode_missing() -> str | None:
    """Why the failover test cannot run here, or None."""
    binary = shutil.which("redis-server")
    if binary is None:
        return "redis-server is not installed"
    out = subprocess.run([binary, "--help"], capture_output=True, text=True, check=False)
    if "--sentinel" not in out.stdout + out.stderr:
        return f"{binary} has no sentinel mode"
    return None


class SentinelCluster:
    """Start/stop the five processes; `kill_primary()` SIGKILLs the primary."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.primary_port, self.replica_port = free_port(), free_port()
        self.sentinel_ports = [free_port() for _ in range(3)]
        self.procs: dict[str, subprocess.Popen[bytes]] = {}

    @property
    def sentinels(self) -> list[str]:
        return [f"127.0.0.1:{port}" for port in self.sentinel_ports]

    def start(self) -> SentinelCluster:
        self._server("primary", self.primary_port)
        self._server("replica", self.replica_port, "--replicaof", "127.0.0.1", str(self.primary_port))
        for n, port in enumerate(self.sentinel_ports):
            self._sentinel(n, port)
        replica = self.client(self.replica_port)
        wait_for(lambda: replica.info("replication").get("master_link_status") == "up", 20, "replica in sync")
        for port in self.sentinel_ports:
            sentinel = self.client(port)
            wait_for(lambda s=sentinel: len(s.sentinel_sentinels(SERVICE)) == 2 and s.sentinel_slaves(SERVICE),
                     20, "sentinels know each other and the replica")
        return self

    def client(self, port: int) -> redis.Redis:
        return redis.Redis(host="127.0.0.1", port=port, decode_responses=True, socket_timeout=2)

    def master_port(self) -> int | None:
        """The primary's port as the first sentinel answers (None when it cannot answer)."""
        try:
            found = self.client(self.sentinel_ports[0]).sentinel_get_master_addr_by_name(SERVICE)
        except redis.RedisError:
            return None
        return int(found[1]) if found else None

    def kill_primary(self) -> None:
        proc = self.procs.pop("primary")
        proc.send_signal(signal.SIGKILL)
        proc.wait()

    def stop(self) -> None:
        for proc in self.procs.values():
            if proc.poll() is None:
                proc.terminate()
        for proc in self.procs.values():
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()

    def _server(self, name: str, port: int, *extra: str) -> None:
        work = self.root / name
        work.mkdir()
        self.procs[name] = subprocess.Popen(
            ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
             "--dir", str(work), "--logfile", str(work / "log"), *extra], stdout=subprocess.DEVNULL)
        wait_for(lambda: self._answers(port), 10, f"{name} up")

    def _sentinel(self, n: int, port: int) -> None:
        work = self.root / f"sentinel{n}"
        work.mkdir()
        conf = work / "sentinel.conf"
        conf.write_text(
            f"port {port}\nbind 127.0.0.1\ndir {work}\nlogfile {work / 'log'}\n"
            f"sentinel monitor {SERVICE} 127.0.0.1 {self.primary_port} 2\n"
            f"sentinel down-after-milliseconds {SERVICE} {DOWN_AFTER_MS}\n"
            f"sentinel failover-timeout {SERVICE} {FAILOVER_TIMEOUT_MS}\n"
            f"sentinel parallel-syncs {SERVICE} 1\n")
        self.procs[f"sentinel{n}"] = subprocess.Popen(["redis-server", str(conf), "--sentinel"],
                                                      stdout=subprocess.DEVNULL)
        wait_for(lambda: self._answers(port), 10, f"sentinel {n} up")

    def _answers(self, port: int) -> bool:
        try:
            return bool(self.client(port).ping())
        except redis.RedisError:
            time.sleep(0.05)
            return False
