"""No secret in any log line (issue 17): a full scenario at DEBUG through real processes, every log scanned.

The executive and the email, PagerDuty, Slack and Twilio gateways run as `flapjack -v ...` processes against
a password-protected redis-server, a local SMTP server asking for a login and a local HTTP server; then the log
file and everything they wrote to stderr are searched for every configured secret and the PagerDuty key.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
import yaml
from aiosmtpd.smtp import AuthResult
from pytest_httpserver import HTTPServer

from flapjack_py.runtime.embedded_redis import EmbeddedRedis
from flapjack_py.store import contacts as contact_store
from flapjack_py.store import entities as entity_store

from .conftest import SmtpServer, free_port

pytestmark = pytest.mark.real

REDIS_PASSWORD = "redis-pw-4e1f0c"
SECRETS = {
    "redis password": REDIS_PASSWORD,
    "smtp password": "smtp-pw-9a8b7c",
    "slack webhook token": "slackT0KENxyz42",
    "twilio auth token": "twilio-tok-7f7f7f",
    "twilio account sid": "AC0sid1234567",
    "nexmo secret": "nexmo-secret-3c3c",
    "api token": "api-token-5150ab",
    "jabber password": "jabber-pw-1d1d1d",
    "pagerduty routing key": "pdkey0123456789abcdef0123",
}


@pytest.fixture
def locked_redis(tmp_path: Path) -> Iterator[redis.Redis]:
    """A redis-server of its own on a TCP port, asking for REDIS_PASSWORD."""
    server = EmbeddedRedis(tmp_path / "redis", persistent=False, port=free_port()).start()
    server.client().config_set("requirepass", REDIS_PASSWORD)
    client = redis.Redis(port=server.port, password=REDIS_PASSWORD)
    yield client
    client.close()
    server.stop()


@pytest.fixture
def smtp_with_login() -> Iterator[SmtpServer]:
    """The local SMTP server, offering AUTH without TLS and accepting any login."""
    server = SmtpServer(auth_require_tls=False,
                        authenticator=lambda *args: AuthResult(success=True)).start()
    yield server
    server.stop()


def scenario_config(port: int, smtp: SmtpServer, http: HTTPServer, log_file: Path) -> dict[str, Any]:
    return {
        "redis": {"url": f"redis://:{REDIS_PASSWORD}@127.0.0.1:{port}/0"},
        "executive": {"new_check_scheduled_maintenance_duration": 0},
        "web": {"api_token": SECRETS["api token"]},
        "logging": {"level": "DEBUG", "file": str(log_file)},
        "gateways": {
            "email": {"enabled": True, "retries": 0, "smtp_config": {
                "host": "127.0.0.1", "port": smtp.port, "auth": {"username": "flapjack",
                                                                 "password": SECRETS["smtp password"]}}},
            "pagerduty": {"enabled": True, "retries": 0, "events_url": http.url_for("/"),
                          "api_url": http.url_for("/api")},
            "slack": {"enabled": True, "retries": 0,
                      "endpoint": http.url_for(f"/services/T0/B0/{SECRETS['slack webhook token']}")},
            "sms_twilio": {"enabled": True, "retries": 0, "account_sid": SECRETS["twilio account sid"],
                           "auth_token": SECRETS["twilio auth token"], "from": "+15550000",
                           "endpoint": http.url_for("/twilio")},
            "sms_nexmo": {"api_key": "nexmo-key", "secret": SECRETS["nexmo secret"], "from": "flapjack"},
            "jabber": {"jabberid": "flapjack@localhost", "password": SECRETS["jabber password"]},
        },
    }


def flapjack(config_path: Path, *args: str) -> str:
    """Run `flapjack -v ARGS` with the scenario config; return what it wrote to stdout and stderr."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("FLAPJACK_")}
    done = subprocess.run([sys.executable, "-c", "from flapjack_py.cli import main; main()", "-v",
                           "--config", str(config_path), *args], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout + done.stderr


def test_no_secret_in_any_log_line_of_a_full_scenario_at_debug(
        locked_redis: redis.Redis, smtp_with_login: SmtpServer, httpserver: HTTPServer, tmp_path: Path) -> None:
    for path in ("/v2/enqueue", f"/services/T0/B0/{SECRETS['slack webhook token']}", "/twilio"):
        httpserver.expect_request(path, method="POST").respond_with_json({"status": "success"}, status=202)
    log_file = tmp_path / "flapjack.log"
    config_path = tmp_path / "flapjack.yml"
    config_path.write_text(yaml.safe_dump(scenario_config(locked_redis.connection_pool.connection_kwargs["port"],
                                                          smtp_with_login, httpserver, log_file)))
    contact_store.create_contact(locked_redis, {"id": "c1", "first_name": "Ada", "media": {
        "email": "ada@example.com", "slack": "#ops", "sms_twilio": "+15550001",
        "pagerduty": {"service_key": SECRETS["pagerduty routing key"], "subdomain": "acme"}}})
    entity_store.import_entity(locked_redis, "e1", "foo", ["c1"])
    locked_redis.lpush("events", json.dumps({"type": "service", "state": "critical", "entity": "foo",
                                             "check": "ping", "initial_failure_delay": 0}))

    output = flapjack(config_path, "executive", "--burst")
    for medium in ("email", "pagerduty", "slack", "sms_twilio"):
        output += flapjack(config_path, "gateway", medium, "--burst")

    logged = log_file.read_text() + output
    assert len(smtp_with_login.messages) == 1 and len(httpserver.log) >= 3  # the scenario really delivered
    assert "notify: foo:ping | problem | c1 | pagerduty | ***0123" in logged
    assert "DEBUG" in logged
    leaked = [name for name, secret in SECRETS.items() if secret in logged]
    leaking_lines = [line for line in logged.splitlines() if any(s in line for s in SECRETS.values())]
    assert leaked == [], f"secrets in the logs: {leaked}: {leaking_lines[:5]}"
