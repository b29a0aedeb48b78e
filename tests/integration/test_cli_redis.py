"""The command line with a Redis that refuses (issue 17, issue 13 item 9): one clear line, exit 2, password masked;
and -c/--config accepted before and after the subcommand."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

PASSWORD = "hunter2-redis"


def refused_url() -> str:
    """A redis:// URL with a password, on a loopback port nothing listens on."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"redis://:{PASSWORD}@127.0.0.1:{port}/0"


def flapjack(*args: str, config: dict[str, object] | None = None, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("FLAPJACK_")}
    if config is not None:
        path = tmp_path / "flapjack.yml"
        path.write_text(yaml.safe_dump(config))
        env["FLAPJACK_CONFIG"] = str(path)
    return subprocess.run([sys.executable, "-c", "from flapjack_py.cli import main; main()", *args],
                          env=env, capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("args", [
    ["executive", "--burst"], ["executive"], ["gateway", "email", "--burst"], ["web"], ["server"],
    ["simulate", "ok", "--entity", "e", "--check", "c", "--time", "1"], ["maintenance", "show"],
    ["purge", "check_history", "--days", "1"], ["receiver", "oneoff", "e", "c", "ok", "fine"],
], ids=lambda args: "-".join(args[:2]))
def test_a_refusing_redis_is_one_line_and_exit_2(args: list[str], tmp_path: Path) -> None:
    url = refused_url()
    done = flapjack(*args, config={"redis": {"url": url}, "gateways": {"email": {"enabled": True}}}, tmp_path=tmp_path)

    masked = url.replace(PASSWORD, "***")
    assert (done.returncode, done.stderr) == (2, f"flapjack: error: cannot reach Redis at {masked}: connection refused\n")


@pytest.mark.parametrize("where", ["before", "after"])
def test_config_option_before_and_after_the_subcommand(where: str, tmp_path: Path) -> None:
    url = refused_url()
    path = tmp_path / "mine.yml"
    path.write_text(yaml.safe_dump({"redis": {"url": url}}))
    args = ["-c", str(path), "executive", "--burst"] if where == "before" else ["executive", "--burst", "-c", str(path)]

    done = flapjack(*args, tmp_path=tmp_path)

    assert done.returncode == 2 and url.replace(PASSWORD, "***") in done.stderr, done.stderr
    assert PASSWORD not in done.stderr


def test_a_commands_own_short_c_option_keeps_its_meaning_and_long_config_still_works(tmp_path: Path) -> None:
    url = refused_url()
    path = tmp_path / "mine.yml"
    path.write_text(yaml.safe_dump({"redis": {"url": url}}))

    done = flapjack("maintenance", "show", "-c", "ping", "--config", str(path), tmp_path=tmp_path)

    assert done.returncode == 2 and "cannot reach Redis at" in done.stderr, done.stderr


@pytest.mark.parametrize("where", ["before", "after"])
def test_import_with_a_refusing_redis_is_one_line_and_exit_2(where: str, tmp_path: Path) -> None:
    url = refused_url()
    config = tmp_path / "mine.yml"
    config.write_text(yaml.safe_dump({"redis": {"url": url}}))
    data = tmp_path / "contacts.json"
    data.write_text('[{"id": "1", "first_name": "Ann"}]')
    args = ["import", "contacts", "-f", str(data)]
    args = ["-c", str(config), *args] if where == "before" else [*args, "--config", str(config)]

    done = flapjack(*args, tmp_path=tmp_path)

    masked = url.replace(PASSWORD, "***")
    assert (done.returncode, done.stderr, done.stdout) == (
        2, f"flapjack: error: cannot reach Redis at {masked}: connection refused\n", "")
