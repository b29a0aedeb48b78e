"""Settings of the receivers `flapjack server` runs and restarts (`receivers.<name>`).

Each `flapjack receiver ...` command takes its defaults from here, so the command
run by hand and the one the server runs read the same settings.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, Field

from flapjack_py.config.types import Bool, Port, Section, Str, Text, Texts, Timeout

MAX_BUFFER = 10_000_000
"""Most events a receiver may be told to hold while Redis is unreachable."""


def _octal_mode(value: str) -> str:
    try:
        mode = int(value, 8)
    except ValueError:
        raise ValueError("expected an octal permission mode such as \"0666\"") from None
    if not 0 <= mode <= 0o777:
        raise ValueError("expected a permission mode between 0000 and 0777")
    return value


class PipeReceiver(Section):
    """A receiver reading a named pipe: created with `fifo_mode` when missing, held open read-write."""

    enabled: Bool = False
    fifo: Text = "/var/cache/flapjack/events.fifo"
    fifo_mode: Annotated[Str, AfterValidator(_octal_mode)] = "0666"
    """Permissions of the pipe when the receiver creates it (octal, as a string)."""
    buffer: Annotated[int, Field(ge=1, le=MAX_BUFFER, strict=True)] = 100_000
    """Events held while Redis is unreachable; when full the receiver stops reading the pipe."""

    def mode(self) -> int:
        """`fifo_mode` as a number."""
        return int(self.fifo_mode, 8)


class NagiosReceiver(PipeReceiver):
    """`receivers.nagios`: Nagios's perfdata pipe."""

    fifo: Text = "/var/cache/nagios3/event_stream.fifo"


class NscaReceiver(PipeReceiver):
    """`receivers.nsca`: the pipe nsca writes (its command_file)."""

    fifo: Text = "/var/lib/nagios3/rw/nagios.cmd"


class HttpBrokerReceiver(Section):
    """`receivers.httpbroker`: the HTTP cache of check states."""

    enabled: Bool = False
    bind: Str = ""
    """Address to listen on; empty = all."""
    port: Port = 3090
    interval: Timeout = 10.0
    """Seconds between sends of the cache."""


class AlertmanagerReceiver(Section):
    """`receivers.alertmanager`: which labels of an Alertmanager alert name the entity, check and state
    (POST /api/receivers/alertmanager; flapjack_py/intake/alertmanager.py documents the mapping)."""

    entity_labels: Annotated[Texts, Field(min_length=1, max_length=20)] = ("entity", "instance")
    """Labels tried in order for the entity (an `instance`-style `host:port` loses its port)."""
    check_label: Text = "alertname"
    job_label: Annotated[Str, Field(max_length=4096)] = "job"
    """Label prefixed to the check name as `JOB/`; empty: no prefix."""
    severity_label: Text = "severity"
    default_entity: Text = "prometheus"
    """Entity of an alert with none of entity_labels."""


class ReceiversConfig(Section):
    """`receivers`: which receivers `flapjack server` runs, and their settings."""

    nagios: NagiosReceiver = NagiosReceiver()
    nsca: NscaReceiver = NscaReceiver()
    httpbroker: HttpBrokerReceiver = HttpBrokerReceiver()
    json_pipe: PipeReceiver = Field(default=PipeReceiver(), alias="json")
    """`receivers.json`: JSON events, one per line, from a named pipe."""
    alertmanager: AlertmanagerReceiver = AlertmanagerReceiver()

    def commands(self) -> list[tuple[str, list[str]]]:
        """(name, `flapjack` arguments) of every enabled receiver; the commands read the rest from here."""
        wanted: list[tuple[str, PipeReceiver | HttpBrokerReceiver, list[str]]] = [
                  ("nagios", self.nagios, ["receiver", "nagios", "start"]),
                  ("nsca", self.nsca, ["receiver", "nsca", "start"]),
                  ("httpbroker", self.httpbroker, ["receiver", "httpbroker"]),
                  ("json", self.json_pipe, ["receiver", "json", "--fifo", self.json_pipe.fifo])]
        return [(name, args) for name, settings, args in wanted if settings.enabled]
