"""Where the bench runs: CPU placement, the private Redis (or a user's, checked empty) and cleanup.

The private server is `EmbeddedRedis` with the persistence of `flapjack server`'s
embedded one (AOF, fsync every second, no RDB), on a free 127.0.0.1 port in a
temp dir, stopped by PID at the end.
"""

from __future__ import annotations

import logging
import os
import shutil
import socket
import tempfile
from dataclasses import dataclass
from pathlib import Path

import redis

from flapjack_py.errors import BenchError, EmbeddedRedisError
from flapjack_py.runtime.connection import clients_from_url
from flapjack_py.runtime.embedded_redis import EmbeddedRedis
from flapjack_py.store import bench as bench_store

log = logging.getLogger(__name__)

@dataclass(frozen=True)
class Placement:
    """CPUs of Redis, the executive (and the reference probe) and the feeders; None = not pinned."""

    name: str
    redis: set[int] | None
    executive: set[int] | None
    feeder: set[int] | None

    def fields(self, redis_pinned: bool) -> dict[str, object]:
        """placement, redis_cpu, executive_cpu, feeder_cpu for the env line ('-' = not pinned)."""
        return {"placement": self.name, "redis_cpu": _cpus(self.redis if redis_pinned else None),
                "executive_cpu": _cpus(self.executive), "feeder_cpu": _cpus(self.feeder)}


def choose_placement(name: str | None, cpus: list[int] | None = None) -> Placement:
    """`same` (default with >= 2 CPUs): Redis and executive on the last CPU, feeders on the others;
    `split`: Redis on the last, executive and feeders on the others; `free`: no pinning."""
    cpus = sorted(os.sched_getaffinity(0)) if cpus is None else cpus
    if name is None:
        name = "same" if len(cpus) >= 2 else "free"
    last, others = {cpus[-1]}, set(cpus[:-1])
    if name == "free":
        return Placement(name, None, None, None)
    if name == "same":
        return Placement(name, last, last, others or last)
    if not others:
        raise BenchError("placement split needs at least 2 CPUs")
    return Placement(name, last, others, others)


def _cpus(cpus: set[int] | None) -> str:
    return ",".join(str(c) for c in sorted(cpus)) if cpus else "-"


class Target:
    """The Redis the bench runs against: its own server, or a user's URL (never flushed)."""

    def __init__(self, url: str | None, allow_existing: bool, placement: Placement) -> None:
        self.server: EmbeddedRedis | None = None
        self.tmp: str | None = None
        self.keep: set[str] = set()
        if url is None:
            url = self._start_private(placement)
        self.url = url
        self.clients = clients_from_url(url)
        self.client, self.raw = self.clients.text, self.clients.raw  # store/; rq's job counts
        self._check_database(allow_existing)

    @property
    def pinned(self) -> bool:
        """True when the server is ours (and so pinned)."""
        return self.server is not None

    def describe(self) -> str:
        """One line saying which server this is and how it persists."""
        info = bench_store.server_info(self.client)
        where = f"private {self.server.binary} pid {self.server.process.pid}" if self.server and self.server.process \
            else "existing server"
        if self.server is not None and self.server.preloaded:
            where += f" (with {self.server.preloaded})"
        return (f"bench: {where} at {self.url} ({info['version']}; appendonly={info['appendonly']} "
                f"appendfsync={info['appendfsync']} save='{info['save']}')"
                + ("; its AOF rewritten before each timed run" if self.server is not None else ""))

    def version(self) -> str:
        """redis_version (or valkey-VERSION) of the server."""
        return bench_store.server_info(self.client)["version"]

    def persistence(self) -> str:
        """aof-everysec, aof-always, rdb, aof-everysec+rdb, none ... of the server."""
        info = bench_store.server_info(self.client)
        parts = [f"aof-{info['appendfsync']}"] if info["appendonly"] == "yes" else []
        parts += ["rdb"] if info["save"] not in ("", "unknown") else []
        return "+".join(parts) or ("unknown" if info["appendonly"] == "unknown" else "none")

    def compact(self) -> None:
        """Before a timed run on the private server: rewrite its AOF (BGREWRITEAOF, waited for), so that an
        automatic rewrite, due to what the bench wrote before (the reference's jobs, earlier scenarios),
        does not fork inside the timed window, its child sharing the server's CPU. A user's server is
        left alone (its forks show in --json as redis_forks)."""
        if self.server is not None and bench_store.server_info(self.client)["appendonly"] == "yes" \
                and not bench_store.rewrite_aof(self.client):
            log.warning("bench: the AOF rewrite before the timed run did not finish; timing anyway")

    def reset(self) -> None:
        """Delete every key the bench created (a user's keys stay)."""
        bench_store.delete_keys_except(self.client, self.keep)

    def close(self) -> None:
        """Stop the private server by PID and remove its directory."""
        self.clients.close()
        if self.server is not None:
            self.server.stop()
            self.server = None
        if self.tmp is not None:
            shutil.rmtree(self.tmp, ignore_errors=True)
            self.tmp = None

    def _start_private(self, placement: Placement) -> str:
        self.tmp = tempfile.mkdtemp(prefix="fj-bench-")
        try:
            self.server = EmbeddedRedis(Path(self.tmp) / "redis", persistent=True, port=free_port())
            self.server.start()
        except EmbeddedRedisError as exc:
            self.close()
            raise BenchError(f"cannot start a private Redis: {exc}") from exc
        assert self.server.process is not None
        if placement.redis:
            os.sched_setaffinity(self.server.process.pid, placement.redis)
        return self.server.url

    def _check_database(self, allow_existing: bool) -> None:
        try:
            size = bench_store.dbsize(self.client)
        except redis.RedisError as exc:
            self.close()
            raise BenchError(f"cannot reach Redis at {self.url}: {exc}") from exc
        if size and not allow_existing:
            self.close()
            raise BenchError(f"the database at {self.url} holds {size} keys; the bench never touches a user's "
                             "data: use an empty database, or --allow-existing (it deletes only its own keys)")
        if size:
            self.keep = bench_store.all_keys(self.client)


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nobody listens on now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])
