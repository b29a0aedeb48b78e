"""The code's own rules, checked (style.md 3, 11; issue 16): import contracts (import-linter, in
pyproject.toml), key names only in keys.py, Redis commands only in the data layer, Lua scripts that
take their keys as KEYS."""

from __future__ import annotations

import ast
import inspect
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

from flapjack_py import keys
from flapjack_py.store.plumbing import scripts

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("flapjack_py", "web", "gateways")

REDIS_COMMANDS = frozenset("""
hget hgetall hset hsetnx hmget hmset hdel hincrby hexists hkeys hvals hlen
smembers sadd srem sismember smismember scard sunion sunionstore sinter
zadd zrem zrange zrevrange zrangebyscore zrevrangebyscore zscore zcard zcount zremrangebyscore zincrby zunionstore
lpush rpush lrange llen lpop rpop lmove blmove brpop blpop ltrim lrem lindex rpoplpush
scan_iter hscan_iter sscan_iter zscan_iter mget mset setex setnx expire ttl pttl persist incr incrby getdel
register_script evalsha pipeline watch multi dbsize flushdb config_get config_set ping rename
""".split())
"""redis-py method names that are nothing else in this code (get/set/delete/info are too common to tell)."""

REDIS_OUTSIDE_STORE = {
    "flapjack_py/runtime/connection.py": "builds the clients: PING, INFO and CONFIG GET at startup",
    "flapjack_py/runtime/embedded_redis.py": "starts and stops a local server",
    "flapjack_py/executive/loop.py": "opens the WATCH/MULTI pipeline it hands to store/ (style.md 3)",
    "flapjack_py/executive/handover.py": "WATCHes the keys the notifier read on the executive's pipeline (as executive.py)",
}
"""Modules outside flapjack_py/store/ that may send Redis commands, and why."""

CLIENT_BUILDERS = {
    "flapjack_py/runtime/connection.py": "builds each process's pair of clients (open_clients, make_clients, clients_for)",
    "flapjack_py/runtime/embedded_redis.py": "the embedded server hands out clients of itself",
}
"""Modules that may make a Redis client; everything else is handed one where its process is composed."""

BYTES_CLIENT_MODULES = {
    "flapjack_py/store/events.py": "takes events byte for byte (EventQueue's take)",
    "flapjack_py/store/archive.py": "copies archived events byte for byte",
    "flapjack_py/store/backtest.py": "replays archived events byte for byte",
    "flapjack_py/store/bench.py": "counts rq jobs; the raw reference rates",
    "flapjack_py/store/queues.py": "writes rq jobs: rq needs a non-decoding connection",
}
"""Data-layer modules with functions taking the bytes client, and why (all others take only the str client)."""

CLIENT_PARAMS = frozenset({"client", "connection", "source", "target", "c"})

NOT_KEYS = {"maintenance_series": "also the API resource (/maintenance_series) and its JSON member"}
"""Strings equal to a key name that are not used as one."""


def test_import_contracts_hold() -> None:
    """Layers and no cycles: the contracts in pyproject.toml [tool.importlinter]."""
    lint = Path(sys.executable).with_name("lint-imports")
    done = subprocess.run([str(lint), "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]


def test_redis_commands_only_in_the_data_layer() -> None:
    found = {}
    for path, tree in _modules():
        if path.startswith("flapjack_py/store/") or path in REDIS_OUTSIDE_STORE:
            continue
        modules = _imported_names(tree)  # `bench_store.dbsize()` calls the data layer
        calls = [f"{node.lineno}: .{node.func.attr}()" for node in ast.walk(tree)
                 if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                 and node.func.attr in REDIS_COMMANDS
                 and not (isinstance(node.func.value, ast.Name) and node.func.value.id in modules)]
        if calls:
            found[path] = calls
    assert not found, f"Redis commands outside flapjack_py/store/: {found}"


def test_the_data_layer_takes_one_kind_of_client_and_never_converts() -> None:
    """store/ functions type their client StrRedis (BytesRedis only where raw bytes are the point); nothing
    turns one kind into the other per call (issue 16: no str_client / decoded / text-or-bytes helpers)."""
    found = []
    for path, tree in _modules():
        names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} | \
            {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)} | \
            {a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) for a in n.names}
        found += [f"{path}: {name}" for name in ("str_client", "decoded", "opt_text") if name in names]
        if path.startswith("flapjack_py/store/") and path != "flapjack_py/store/plumbing/client.py":  # client.py: the kinds
            found += _untyped_clients(path, tree)
    assert not found, f"client conversions or untyped clients in the data layer: {found}"


def test_the_client_check_finds_a_planted_conversion() -> None:
    planted = ast.parse("def f(client: redis.Redis) -> None: ...\n"
                        "def g(client: BytesRedis) -> None: ...\n"
                        "def h(client) -> None: ...\n")
    assert len(_untyped_clients("flapjack_py/store/x.py", planted)) == 3
    assert _untyped_clients("flapjack_py/store/events.py", planted) == ["flapjack_py/store/events.py:1: f(client)",
                                                                        "flapjack_py/store/events.py:3: h(client)"]


def test_clients_are_built_only_where_processes_are_composed() -> None:
    found = []
    for path, tree in _modules():
        if path in CLIENT_BUILDERS:
            continue
        found += [f"{path}:{node.lineno}" for node in ast.walk(tree)
                  if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                  and (node.func.attr in ("from_url", "make_client")
                       or (node.func.attr == "Redis" and isinstance(node.func.value, ast.Name)))]
        found += [f"{path}:{node.lineno}" for node in ast.walk(tree)
                  if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "make_client"]
    assert not found, f"Redis clients made outside flapjack_py.runtime.connection (use open_clients/make_clients): {found}"


def test_key_names_only_in_keys_py() -> None:
    consts, prefixes, suffixes = _key_shapes()
    found = []
    for path, tree in _modules():
        if path == "flapjack_py/keys.py":
            continue
        for lineno, whole, first, last in _strings(tree):
            if whole in NOT_KEYS:
                continue
            if whole in consts or first.startswith(prefixes) or last.endswith(suffixes):
                found.append(f"{path}:{lineno}: {whole if whole is not None else repr(first + '...' + last)}")
    assert not found, f"key names outside keys.py (build them with flapjack_py.keys): {found}"


def test_the_key_check_finds_a_planted_literal() -> None:
    consts, prefixes, suffixes = _key_shapes()
    planted = ast.parse('client.hgetall(f"check:{entity}:{check}"); client.get("event_claims")\n'
                        'client.get(f"{entity}:{check}:unscheduled_maintenance")')
    hits = [s for s in _strings(planted)
            if s[1] in consts or s[2].startswith(prefixes) or s[3].endswith(suffixes)]
    assert len(hits) == 3


def test_lua_scripts_take_their_keys_as_keys() -> None:
    """Every key a script touches is declared in KEYS (Redis Cluster routes by them), none passed in ARGV."""
    for name, source in vars(scripts).items():
        if not (name.isupper() and isinstance(source, str) and "redis.call" in source):
            continue
        assert re.search(r"^-- KEYS", source, re.MULTILINE), f"{name}: no KEYS header"
        assert "KEYS: none" not in source and "KEYS[" in source, f"{name} takes no KEYS"


# --- helpers ---------------------------------------------------------------------


def _modules() -> Iterator[tuple[str, ast.Module]]:
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            yield path.relative_to(ROOT).as_posix(), ast.parse(path.read_text(encoding="utf-8"))


def _untyped_clients(path: str, tree: ast.Module) -> list[str]:
    """Functions whose client parameter is not annotated StrRedis (or BytesRedis where BYTES_CLIENT_MODULES allows)."""
    allowed = {"StrRedis", "BytesRedis"} if path in BYTES_CLIENT_MODULES else {"StrRedis"}
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.FunctionDef):
            continue
        found += [f"{path}:{node.lineno}: {node.name}({arg.arg})" for arg in node.args.args + node.args.kwonlyargs
                  if arg.arg in CLIENT_PARAMS
                  and not (isinstance(arg.annotation, ast.Name) and arg.annotation.id in allowed)]
    return found


def _imported_names(tree: ast.Module) -> set[str]:
    return {alias.asname or alias.name.split(".")[0] for node in ast.walk(tree)
            if isinstance(node, ast.Import | ast.ImportFrom) for alias in node.names}


def _key_shapes() -> tuple[set[str], tuple[str, ...], tuple[str, ...]]:
    """Whole key names, distinctive prefixes ("check:") and suffixes (":check_tags") of every keys.py family."""
    marker, consts, prefixes, suffixes = "\x00", set(), set(), set()
    for fn in vars(keys).values():
        if not inspect.isfunction(fn) or fn.__module__ != keys.__name__:
            continue
        needed = [p for p in inspect.signature(fn).parameters.values() if p.default is inspect.Parameter.empty]
        key = fn(*[marker] * len(needed))
        if not isinstance(key, str) or key == marker:
            continue
        if marker not in key:
            if (":" in key or "_" in key) and "*" not in key:
                consts.add(key)
            continue
        head, tail = key.split(marker)[0], key.split(marker)[-1]
        if len(head) >= 5:
            prefixes.add(head)
        if tail.startswith(":") and len(tail) >= 8:
            suffixes.add(tail)
    return consts, tuple(sorted(prefixes)), tuple(sorted(suffixes))


def _strings(tree: ast.AST) -> Iterator[tuple[int, str | None, str, str]]:
    """(line, whole string or None for an f-string, its leading text, its trailing text) of every string."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            if " " not in node.value and "\n" not in node.value:
                yield node.lineno, node.value, node.value, node.value
        elif isinstance(node, ast.JoinedStr) and node.values:
            first, last = node.values[0], node.values[-1]
            yield (node.lineno, None, first.value if isinstance(first, ast.Constant) else "",
                   last.value if isinstance(last, ast.Constant) else "")
