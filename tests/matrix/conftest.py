"""Fixtures of the matrix tests: a real Synapse on loopback (skipped, saying why, without its venv), its users,
a room, and the running matrix gateway on the real Redis.

Chain: `synapse` (module scope: users flapjack, alice, mallory; started and stopped by pid) -> `room` (alice's,
with flapjack and mallory in it) -> `gateway` (MatrixGateway started and stopped).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from flapjack_py.store.plumbing.client import Clients
from gateways.matrix import MatrixGateway

from .synapse import SERVER_NAME, Person, Synapse, available

BOT_PASSWORD = "bot-pw-1"


@pytest.fixture(scope="module")
def synapse(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Synapse]:
    missing = available()
    if missing:
        pytest.skip(missing)
    server = Synapse(tmp_path_factory.mktemp("synapse")).start()
    server.register("flapjack", BOT_PASSWORD)
    yield server
    server.stop()


@pytest.fixture(scope="module")
def people(synapse: Synapse) -> dict[str, Person]:
    return {name: Person(synapse, name, synapse.register(name, f"pw-{name}-1")) for name in ("alice", "mallory")}


@pytest.fixture
def room(people: dict[str, Person]) -> str:
    """A new room of alice's with mallory in it and flapjack invited (the gateway joins it at start)."""
    made = people["alice"].create_room([f"@flapjack:{SERVER_NAME}", people["mallory"].user_id])
    people["mallory"].join(made)
    return made


@pytest.fixture
def matrix_settings(synapse: Synapse, room: str, people: dict[str, Person]) -> dict[str, Any]:
    return {"enabled": True, "homeserver": synapse.url, "user_id": f"@flapjack:{SERVER_NAME}",
            "password": BOT_PASSWORD, "rooms": [room], "allowed_users": [people["alice"].user_id],
            "retries": 3, "retry_intervals": [1]}


@pytest.fixture
def gateway(real_clients: Clients, matrix_settings: dict[str, Any]) -> Iterator[MatrixGateway]:
    running = MatrixGateway(matrix_settings, real_clients)
    running.start()
    yield running
    running.stop()
