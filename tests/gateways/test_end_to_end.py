"""End to end: an event in -> drain() -> `flapjack gateway email --burst` -> the message in the mailbox."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import yaml

from flapjack_py import keys
from flapjack_py.executive import Executive
from flapjack_py.store import alerts as alert_store
from flapjack_py.store import contacts as contact_store
from flapjack_py.store import media as media_store
from flapjack_py.store.events import push_event

from .conftest import status_of


def test_event_to_mailbox(tmp_path, redis_server, smtp_server, real_r, real_s):
    cfg = {"redis": {"url": redis_server.url},
           "executive": {"new_check_scheduled_maintenance_duration": 0, "initial_failure_delay": 0},
           "gateways": {"email": {"enabled": True, "retry_intervals": [0],
                                  "smtp_config": {"host": "127.0.0.1", "port": smtp_server.port,
                                                  "from": "flapjack@example.net"}}}}
    contact_store.create_contact(real_s, {"id": "c1", "first_name": "Ada", "last_name": "L", "email": "a@x"})
    media_store.set_medium(real_s, "c1", "email", "ada@example.com", 60)
    real_r.hset(keys.entity_ids_by_name(), "foo", "e1")
    real_r.hset(keys.entity_names_by_id(), "e1", "foo")
    real_r.sadd(keys.contacts_for("e1"), "c1")
    push_event(real_s, {"type": "service", "state": "critical", "entity": "foo", "check": "ping",
                        "summary": "100% packet loss", "time": int(time.time())})
    Executive(real_r, cfg).drain()
    [alert_id] = alert_store.alert_ids(real_s, keys.alerts())
    assert status_of(real_s, alert_id)["status"] == "queued"

    config_path = tmp_path / "flapjack.yml"
    config_path.write_text(yaml.safe_dump(cfg))
    env = dict(os.environ, FLAPJACK_CONFIG=str(config_path))
    env.pop("FLAPJACK_REDIS_URL", None)
    done = subprocess.run([sys.executable, "-c", "from flapjack_py.cli import main; main()", "gateway", "email",
                           "--burst"], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    [msg] = smtp_server.messages
    assert msg["Subject"] == "Problem: 'ping' on foo is Critical"
    assert msg["To"] == "ada@example.com"
    assert msg["Message-ID"].startswith(f"<{alert_id}@")
    assert status_of(real_s, alert_id)["status"] == "delivered"


def test_gateway_command_names_the_missing_key(tmp_path, redis_server):
    config_path = tmp_path / "flapjack.yml"
    config_path.write_text(yaml.safe_dump({"redis": {"url": redis_server.url},
                                           "gateways": {"sms_twilio": {"enabled": True, "account_sid": "AC1"}}}))
    env = dict(os.environ, FLAPJACK_CONFIG=str(config_path))
    cli = [sys.executable, "-c", "from flapjack_py.cli import main; main()", "gateway"]
    missing = subprocess.run([*cli, "sms_twilio", "--burst"], env=env, capture_output=True, text=True, timeout=60)
    assert missing.returncode != 0 and "gateways.sms_twilio.auth_token" in missing.stderr
    config_path.write_text(yaml.safe_dump({"redis": {"url": redis_server.url}}))
    absent = subprocess.run([*cli, "slack", "--burst"], env=env, capture_output=True, text=True, timeout=60)
    assert absent.returncode != 0 and "gateways.slack" in absent.stderr
