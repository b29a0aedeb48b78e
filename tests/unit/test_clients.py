"""The two client kinds (issue 16): the data layer reads through a str client, rq and raw events through a
bytes one; both are built once where a process is composed, and a client of the wrong kind is refused there."""

from __future__ import annotations

import fakeredis
import pytest

from flapjack_py.config.settings import load_config
from flapjack_py.executive import Executive
from flapjack_py.runtime.connection import clients_for, make_clients
from flapjack_py.store import checks as check_store
from flapjack_py.store.plumbing.client import Clients, as_bytes_redis, as_str_redis


def _pair() -> tuple[fakeredis.FakeRedis, fakeredis.FakeRedis]:
    server = fakeredis.FakeServer()
    return fakeredis.FakeRedis(server=server, decode_responses=True), fakeredis.FakeRedis(server=server)


def test_a_bytes_client_is_refused_where_the_str_one_is_wanted() -> None:
    text, raw = _pair()
    with pytest.raises(TypeError, match="str client"):
        Clients(text=raw, raw=raw)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="str client"):
        as_str_redis(raw)
    with pytest.raises(TypeError, match="bytes client"):
        Clients(text=text, raw=text)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="bytes client"):
        as_bytes_redis(text)


def test_an_embedders_bytes_client_gets_its_str_twin_once() -> None:
    _, raw = _pair()
    clients = clients_for(raw)
    assert clients.raw is raw
    assert clients_for(clients) is clients
    raw.zadd("failed_checks", {"web:PING": 1})  # the same server through either client
    assert check_store.failed_check_ids(clients.text) == ["web:PING"]


def test_the_configured_pair_is_one_of_each_kind() -> None:
    clients = make_clients(load_config({"redis": {"url": "redis://127.0.0.1:1/3"}}).redis)  # never connects
    assert clients.text.get_encoder().decode_responses
    assert clients.text.get_encoder().encoding_errors == "replace"  # bad UTF-8 shows as U+FFFD, never raises
    assert not clients.raw.get_encoder().decode_responses
    assert clients.text.connection_pool.connection_kwargs["db"] == clients.raw.connection_pool.connection_kwargs["db"] == 3


def test_an_embedders_str_client_gets_its_bytes_twin() -> None:
    text, _ = _pair()
    clients = clients_for(text)
    assert clients.text is text
    clients.raw.set("k", "v")
    assert clients.raw.get("k") == b"v"


def test_the_executive_reads_through_the_str_client_whichever_it_was_handed() -> None:
    text, raw = _pair()
    for handed in (raw, text, Clients(text=text, raw=raw)):  # type: ignore[arg-type]
        executive = Executive(handed, {})
        assert executive.client.get_encoder().decode_responses
        assert not executive.raw.get_encoder().decode_responses
        assert executive.notifier.client is executive.client
