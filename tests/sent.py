"""What a client sends Redis, for tests that count round trips: each write's command names."""

from __future__ import annotations

from typing import Any

import pytest
import redis


class Sent:
    """The command names of each write (round trip) the client's connections send."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.writes: list[list[str]] = []
        original = redis.connection.AbstractConnection.send_packed_command

        def send(conn: Any, command: Any, check_health: bool = True) -> None:
            data = b"".join(bytes(c) for c in command) if isinstance(command, list) else bytes(command)
            self.writes.append(command_names(data))
            original(conn, command, check_health)

        monkeypatch.setattr(redis.connection.AbstractConnection, "send_packed_command", send)


def command_names(data: bytes) -> list[str]:
    """The command names in packed RESP commands."""
    names, lines = [], iter(data.split(b"\r\n"))
    for line in lines:
        if line.startswith(b"*"):
            args = [next(lines) and next(lines) for _ in range(int(line[1:]))]  # skip each $len, keep the bulk
            names.append(args[0].decode())
    return names
