"""Fixtures shared by the bench's tests: the local SMTP and HTTP servers the delivery scenarios use."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from flapjack_py.bench.sinks import Sinks


@pytest.fixture
def sinks() -> Iterator[Sinks]:
    servers = Sinks()
    servers.start()
    yield servers
    servers.stop()
