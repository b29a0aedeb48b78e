"""Deployment files: the Dockerfile, compose.yaml and the systemd units say what they must.

The image build itself runs where a Docker engine answers (`docker info`), else it
is skipped with the reason; units are checked by `systemd-analyze verify` when
it is installed, and parsed in every case.
"""

from __future__ import annotations

import configparser
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
UNITS = sorted((ROOT / "deploy").glob("flapjack*.service"))


def unit(path: Path) -> configparser.ConfigParser:
    parser = configparser.ConfigParser(strict=False, interpolation=None)
    parser.optionxform = str  # type: ignore[assignment,method-assign]  # keys are case-sensitive
    parser.read_string(path.read_text())
    return parser


def test_dockerfile_is_slim_non_root_hashed_and_checks_health() -> None:
    text = (ROOT / "Dockerfile").read_text()
    assert "FROM python:3.11-slim" in text
    assert "--require-hashes" in text and "requirements/run.lock" in text
    user = [line.split()[1] for line in text.splitlines() if line.startswith("USER ")]
    assert user and user[-1] not in ("root", "0")
    assert "HEALTHCHECK" in text and "/api/health" in text
    assert 'ENTRYPOINT ["flapjack"]' in text


def test_compose_runs_valkey_with_aof_and_every_role_from_one_image() -> None:
    compose = yaml.safe_load((ROOT / "compose.yaml").read_text())
    services = compose["services"]
    assert "--appendonly" in services["valkey"]["command"] and "yes" in services["valkey"]["command"]
    roles = {name: svc["command"][0] for name, svc in services.items() if name != "valkey"}
    assert set(roles.values()) >= {"executive", "gateway", "web", "watchdog"}
    for name in roles:
        assert services[name]["image"] == "flapjack-py:latest" and services[name]["build"] == "."
        assert services[name]["restart"] == "unless-stopped", name
        assert services[name]["depends_on"]["valkey"]["condition"] == "service_healthy", name
    assert "/api/health" in " ".join(services["web"]["healthcheck"]["test"])
    mounted = ROOT / services["web"]["volumes"][0].split(":")[0]
    assert yaml.safe_load(mounted.read_text())["redis"]["url"] == "redis://valkey:6379/0"


def test_the_config_files_shipped_for_containers_load() -> None:
    from flapjack_py.config.settings import load_config

    for name in ("flapjack.container.yml", "flapjack.compose.yml"):
        assert load_config(yaml.safe_load((ROOT / "deploy" / name).read_text())).redis.url


@pytest.mark.parametrize("path", UNITS, ids=[p.name for p in UNITS])
def test_units_restart_and_run_a_flapjack_command(path: Path) -> None:
    service = unit(path)["Service"]
    assert service["ExecStart"].startswith("/opt/flapjack/bin/flapjack ")
    assert service["Restart"] == "always" and service["User"] == "flapjack"
    assert service["RestartPreventExitStatus"] == "2 78"  # configuration problems: no restart loop
    assert unit(path)["Install"]["WantedBy"] == "flapjack.target"


def test_units_cover_every_role() -> None:
    commands = {unit(p)["Service"]["ExecStart"].split()[1] for p in UNITS}
    assert commands == {"executive", "gateway", "web", "watchdog"}


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze is not installed")
def test_systemd_analyze_verify(tmp_path: Path) -> None:
    for path in [*UNITS, ROOT / "deploy" / "flapjack.target"]:  # the binary path exists only once installed
        (tmp_path / path.name).write_text(path.read_text().replace("/opt/flapjack/bin/flapjack", "/bin/true"))
    names = [str(tmp_path / p.name) for p in [*UNITS, ROOT / "deploy" / "flapjack.target"]]
    result = subprocess.run(["systemd-analyze", "verify", *names], capture_output=True, text=True, check=False)
    complaints = [line for line in (result.stdout + result.stderr).splitlines()
                  if "flapjack" in line and "/run/systemd" not in line]
    assert result.returncode == 0 and not complaints, result.stdout + result.stderr


def _docker_unavailable() -> str | None:
    if shutil.which("docker") is None:
        return "docker is not installed"
    info = subprocess.run(["docker", "info"], capture_output=True, text=True, check=False)
    return None if info.returncode == 0 else "no Docker engine answers (`docker info` failed)"


def _compose_unavailable() -> str | None:
    if shutil.which("docker") is None:
        return "docker is not installed"
    version = subprocess.run(["docker", "compose", "version"], capture_output=True, text=True, check=False)
    return None if version.returncode == 0 else "the docker compose plugin is not installed"


@pytest.mark.skipif(_compose_unavailable() is not None, reason=str(_compose_unavailable()))
def test_docker_compose_accepts_the_compose_file() -> None:
    """`docker compose config` validates the file against the Compose specification (no engine needed)."""
    result = subprocess.run(["docker", "compose", "-f", str(ROOT / "compose.yaml"), "config", "--quiet"],
                            capture_output=True, text=True, check=False, timeout=60)
    assert result.returncode == 0, result.stderr


@pytest.mark.slow
@pytest.mark.skipif(_docker_unavailable() is not None, reason=str(_docker_unavailable()))
def test_the_image_builds_and_runs_flapjack() -> None:
    subprocess.run(["docker", "build", "-t", "flapjack-py:test", str(ROOT)], check=True, timeout=1800)
    out = subprocess.run(["docker", "run", "--rm", "flapjack-py:test", "--help"], capture_output=True, text=True,
                         check=True, timeout=120)
    assert "executive" in out.stdout
    user = subprocess.run(["docker", "run", "--rm", "--entrypoint", "id", "flapjack-py:test", "-u"],
                          capture_output=True, text=True, check=True, timeout=120)
    assert user.stdout.strip() != "0"


@pytest.mark.real
def test_web_wsgi_app_is_an_entry_point_for_any_wsgi_server(tmp_path: Path, redis_server) -> None:  # type: ignore[no-untyped-def]
    import os
    import sys

    env = dict(os.environ, FLAPJACK_REDIS_URL=redis_server.url, FLAPJACK_CONFIG=str(tmp_path / "open.yml"))
    (tmp_path / "open.yml").write_text("web: {allow_anonymous: true}\n")
    code = "import web.wsgi as w; print(type(w.app).__name__, w.app.url_map.bind('x').match('/api/health')[0])"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["Flask", "api.get_health"]
    env["FLAPJACK_CONFIG"] = str(tmp_path / "closed.yml")
    (tmp_path / "closed.yml").write_text("logging: {level: INFO}\n")
    refused = subprocess.run([sys.executable, "-c", "import web.wsgi"], env=env, capture_output=True, text=True,
                             check=False)
    assert refused.returncode != 0 and "flapjack user add" in refused.stderr  # no user yet: not served open
    env.pop("FLAPJACK_REDIS_URL")
    refused = subprocess.run([sys.executable, "-c", "import web.wsgi"], env=env, capture_output=True, text=True,
                             check=False)
    assert refused.returncode != 0 and "needs a shared Redis" in refused.stderr


@pytest.mark.parametrize("args", [["flapper", "start", "-d"], ["receiver", "nagios", "start", "--daemonize"]])
def test_there_is_no_daemonize(args: list[str]) -> None:
    from click.testing import CliRunner

    from flapjack_py.cli import main

    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2 and "No such option" in result.output
