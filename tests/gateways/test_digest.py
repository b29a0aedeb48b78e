"""The weekly digest (issue 32): `flapjack report --email` reaches a real SMTP server (aiosmtpd) through the email
gateway, HTML + text, with the numbers GET /api/analytics/summary gives for the same period."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import redis
import time_machine
from click.testing import CliRunner

from flapjack_py.cli import main
from flapjack_py.runtime.embedded_redis import EmbeddedRedis
from flapjack_py.store.plumbing.client import StrRedis
from tests.tools.test_report import START, archive_flapping
from web import create_app

from .conftest import SmtpServer

pytestmark = pytest.mark.real


def run(config: Path, *args: str) -> Any:
    return CliRunner().invoke(main, ["--config", str(config), *args], catch_exceptions=False)


def test_the_digest_reaches_smtp_with_the_numbers_of_the_api(smtp_server: SmtpServer, redis_server: EmbeddedRedis,
                                                             real_r: redis.Redis, real_s: StrRedis, tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    archive_flapping(real_s)
    config = tmp_path / "flapjack.yml"
    config.write_text(json.dumps({
        "logging": {"level": "ERROR"}, "analytics": {"digest_contacts": ["ada", "nobody"]},
        "gateways": {"email": {"enabled": True, "smtp_config": {"host": "127.0.0.1", "port": smtp_server.port,
                                                               "from": "flapjack@example.org"}}}}))
    monkeypatch.setenv("FLAPJACK_REDIS_URL", redis_server.url)
    with time_machine.travel(START + 12 * 3600, tick=False):
        result = run(config, "report", "--since", "24h", "--email")
        api = create_app(redis=real_r).test_client().get("/api/analytics/summary?since=24h").get_json(force=True)
    assert result.exit_code == 0, result.output
    assert result.output.strip() == "digest sent to 1 address(es)"
    [message] = smtp_server.messages
    assert (message["To"], message["From"]) == ("ada@example.com", "flapjack@example.org")
    assert message["Subject"].endswith(f": {api['pages']['total']} pages, {api['off_hours_pages']} off hours")
    text = message.get_body(("plain",)).get_content()
    html = message.get_body(("html",)).get_content()
    assert f"pages: {api['pages']['total']} (email 12); problems {api['problems']}, recoveries {api['recoveries']}" in text
    assert (f"MTTR: median {api['mttr_seconds']['median']} s, p90 {api['mttr_seconds']['p90']} s over "
            f"{api['mttr_seconds']['count']}") in text
    assert f"<td><strong>Pages</strong></td><td>{api['pages']['total']} (email 12)</td>" in html
    assert f"<td><strong>Self-resolved</strong></td><td>{api['self_resolved']}</td>" in html
    assert "<td>web:HTTP</td><td>12</td><td>6</td><td>5</td><td>0</td>" in html


def test_the_digest_needs_the_email_gateway(redis_server: EmbeddedRedis, tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    config = tmp_path / "flapjack.yml"
    config.write_text(json.dumps({"logging": {"level": "ERROR"}, "analytics": {"digest_contacts": ["ada"]}}))
    monkeypatch.setenv("FLAPJACK_REDIS_URL", redis_server.url)
    result = run(config, "report", "--email")
    assert result.exit_code == 1 and "gateways.email.enabled is false" in result.output
