"""The supervisor restarts crashed children but not ones stopped by a configuration problem."""

from __future__ import annotations

import subprocess
import sys
import time

from flapjack_py.runtime.supervisor import EXIT_CONFIG, Child, _tend


def exited_child(code: int) -> Child:
    child = Child(name=f"exits {code}", args=[])
    child.process = subprocess.Popen([sys.executable, "-c", f"import sys; sys.exit({code})"])
    child.process.wait()
    child.started_at = time.monotonic() - 100
    return child


def test_a_crashed_child_is_scheduled_for_restart() -> None:
    child = exited_child(1)
    _tend([child])
    assert child.process is None and child.restart_at < time.monotonic() + 60


def test_a_child_stopped_by_its_configuration_is_not_restarted() -> None:
    for code in (EXIT_CONFIG, 2):
        child = exited_child(code)
        _tend([child])
        assert child.process is None and child.restart_at == float("inf")
        _tend([child])  # later rounds leave it alone
        assert child.process is None and child.restarts == 0


def test_workers_setting_starts_that_many_gateway_processes() -> None:
    from flapjack_py.config.settings import load_config
    from flapjack_py.runtime.supervisor import plan

    config = load_config({"gateways": {"email": {"enabled": True, "workers": 2}, "slack": {"enabled": False}}})
    gateways = [args for name, args in plan(config) if name.startswith("gateway")]
    assert gateways == [["gateway", "email"], ["gateway", "email"]]


def test_workers_must_be_a_positive_integer() -> None:
    import pytest

    from flapjack_py.config.settings import load_config
    from flapjack_py.errors import ConfigError

    with pytest.raises(ConfigError, match="gateways.email.workers"):
        load_config({"gateways": {"email": {"workers": 0}}})
