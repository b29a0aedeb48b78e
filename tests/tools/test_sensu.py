"""Sensu Go pipe handler: a recorded Sensu event on stdin -> one event on the queue."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from flapjack_py import keys
from flapjack_py.errors import InvalidEvent
from flapjack_py.intake.sensu import event_from_sensu

DATA = Path(__file__).parent / "data"


def sensu_event(**check_over) -> dict:
    data = json.loads((DATA / "sensu_critical.json").read_text())
    data["check"].update(check_over)
    return data


def test_recorded_event_maps_to_a_critical_service_event():
    assert event_from_sensu(sensu_event(), now=1) == {
        "type": "service", "entity": "web-01", "check": "check-http", "state": "critical",
        "summary": "CheckHttp CRITICAL: Connection refused", "details": "connect(2) for 127.0.0.1 port 80",
        "time": 1795428000, "tags": ["team:web", "tier:frontend"],
    }


@pytest.mark.parametrize(("status", "state"), [(0, "ok"), (1, "warning"), (2, "critical"), (3, "unknown"),
                                               (127, "unknown"), ("2", "unknown")])
def test_status_codes(status, state):
    assert event_from_sensu(sensu_event(status=status), now=1)["state"] == state


def test_event_without_entity_name_is_refused():
    data = sensu_event()
    del data["entity"]["metadata"]
    with pytest.raises(InvalidEvent, match="entity.metadata.name"):
        event_from_sensu(data, now=1)


@pytest.mark.real
def test_pipe_handler_queues_the_event(tmp_path, redis_server, real_r):
    config = tmp_path / "flapjack.yml"
    config.write_text(yaml.safe_dump({"redis": {"url": redis_server.url}}))
    cli = [sys.executable, "-c", "from flapjack_py.cli import main; main()", "-c", str(config), "receiver", "sensu"]
    env = {k: v for k, v in os.environ.items() if k != "FLAPJACK_REDIS_URL"}
    done = subprocess.run(cli, input=json.dumps(sensu_event()), capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    [queued] = real_r.lrange(keys.events(), 0, -1)
    assert json.loads(queued)["check"] == "check-http"
    bad = subprocess.run(cli, input="{}", capture_output=True, text=True, env=env, timeout=60)
    assert bad.returncode == 1 and "entity.metadata.name" in bad.stderr
    assert real_r.llen(keys.events()) == 1
