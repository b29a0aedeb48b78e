"""flapjack flapper: up for the first half of each period; a real run on localhost."""

from __future__ import annotations

import socket
import threading
import time

import pytest

from flapjack_py.tools.flapper import Flapper, is_up


def test_is_up_first_half_of_each_period():
    assert [is_up(100, 100 + t, 120) for t in (0, 59.9, 60, 119.9, 120, 180)] == [True, True, False, False, True,
                                                                                 False]


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_echoes_while_up_and_refuses_while_down():
    port = _free_port()
    flapper = Flapper("127.0.0.1", port, frequency=1.0)
    thread = threading.Thread(target=flapper.run, daemon=True)
    thread.start()
    try:
        deadline = time.time() + 0.4
        while True:  # wait for the listener to appear
            try:
                conn = socket.create_connection(("127.0.0.1", port), timeout=1)
                break
            except ConnectionRefusedError:
                assert time.time() < deadline
                time.sleep(0.01)
        with conn:
            conn.sendall(b"hello")
            assert conn.recv(100) == b">>>you sent: hello"
        time.sleep(0.6)  # now in the closed half
        with pytest.raises(ConnectionRefusedError):
            socket.create_connection(("127.0.0.1", port), timeout=1)
    finally:
        flapper.stop.set()
        thread.join(2)
    assert not thread.is_alive()


def test_commands(flapjack):
    assert flapjack("flapper", "status").exit_code == 3
    bad = flapjack("flapper", "start", "-P", "70000")
    assert bad.exit_code == 2 and "-P" in bad.stderr
