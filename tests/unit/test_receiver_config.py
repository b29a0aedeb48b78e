"""`receivers:` settings: defaults, validation, and the children `flapjack server` runs for them."""

from __future__ import annotations

import pytest

from flapjack_py.config.settings import load_config
from flapjack_py.errors import ConfigError
from flapjack_py.runtime.supervisor import plan


def test_no_receiver_runs_unless_enabled() -> None:
    config = load_config(None)
    assert config.receivers.commands() == []
    assert not [name for name, _ in plan(config) if name.startswith("receiver")]
    assert config.receivers.nagios.mode() == 0o666


def test_enabled_receivers_are_children_of_the_server() -> None:
    config = load_config({"receivers": {"nagios": {"enabled": True, "fifo": "/tmp/perf.fifo", "fifo_mode": "0660"},
                                        "httpbroker": {"enabled": True, "port": 3999},
                                        "json": {"enabled": True, "fifo": "/tmp/events.fifo"}}})
    receivers = [(name, args) for name, args in plan(config) if name.startswith("receiver")]
    assert receivers == [("receiver nagios", ["receiver", "nagios", "start"]),
                         ("receiver httpbroker", ["receiver", "httpbroker"]),
                         ("receiver json", ["receiver", "json", "--fifo", "/tmp/events.fifo"])]
    assert config.receivers.nagios.mode() == 0o660


@pytest.mark.parametrize(("settings", "message"), [
    ({"nagios": {"fifo_mode": "999"}}, "receivers.nagios.fifo_mode: expected an octal permission mode"),
    ({"nsca": {"fifo_mode": 666}}, "receivers.nsca.fifo_mode: Input should be a valid string"),
    ({"json": {"buffer": 0}}, "receivers.json.buffer: Input should be greater than or equal to 1"),
    ({"httpbroker": {"port": 70000}}, "receivers.httpbroker.port"),
    ({"nagios": {"enabled": "yes"}}, "receivers.nagios.enabled"),
    ({"sensu": {}}, "receivers.sensu: unknown setting"),
    ({"json_pipe": {}}, "receivers.json_pipe: unknown setting"),
])
def test_bad_settings_are_named(settings, message) -> None:
    with pytest.raises(ConfigError, match=message.replace(".", r"\.")):
        load_config({"receivers": settings})
