"""`flapjack flapper`: a TCP echo service that is up for half of each period and down for the other half.

A target for end-to-end (oobetet) tests of a monitoring set-up: a check against it
flaps predictably. It replies `>>>you sent: <data>` to whatever a client sends.
"""

from __future__ import annotations

import logging
import selectors
import socket
import sys
import threading
import time

import click

log = logging.getLogger(__name__)

REPLY_PREFIX = b">>>you sent: "


def is_up(started: float, now: float, frequency: float) -> bool:
    """True during the first half of each `frequency`-second period counted from `started`."""
    return (now - started) % frequency < frequency / 2


def primary_ipv4() -> str:
    """The address of the interface that routes outwards (no packet is sent); 127.0.0.1 if none."""
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        probe.connect(("192.0.2.1", 9))  # TEST-NET-1: only picks a route
        return str(probe.getsockname()[0])
    except OSError:
        return "127.0.0.1"
    finally:
        probe.close()


class Flapper:
    """The echo service; `run()` flaps until `stop` is set."""

    def __init__(self, host: str, port: int, frequency: float) -> None:
        self.host, self.port, self.frequency = host, port, frequency
        self.stop = threading.Event()

    def run(self) -> None:
        """Alternate listening and closed halves until stopped."""
        started = time.time()
        while not self.stop.is_set():
            period_end = started + ((time.time() - started) // self.frequency + 1) * self.frequency
            self._serve_until(period_end - self.frequency / 2)
            log.info("flapper down until %.0f", period_end)
            self.stop.wait(max(0.0, period_end - time.time()))

    def _serve_until(self, deadline: float) -> None:
        listener = socket.create_server((self.host, self.port), reuse_port=False)
        log.info("flapper up on %s:%d", self.host, self.port)
        with listener, selectors.DefaultSelector() as selector:
            listener.setblocking(False)
            selector.register(listener, selectors.EVENT_READ)
            while not self.stop.is_set() and (left := deadline - time.time()) > 0:
                if selector.select(timeout=min(left, 0.2)):
                    self._accept(listener)

    def _accept(self, listener: socket.socket) -> None:
        try:
            conn, _ = listener.accept()
        except BlockingIOError:
            return
        threading.Thread(target=_echo, args=(conn,), daemon=True).start()


def _echo(conn: socket.socket) -> None:
    conn.setblocking(True)
    with conn:
        while data := conn.recv(4096):
            conn.sendall(REPLY_PREFIX + data)


@click.group()
def flapper() -> None:
    """A TCP echo service that is up for half of each period (a flapping check target)."""


@flapper.command()
@click.option("-b", "--bind-ip", help="Address to listen on [default: the primary local IPv4 address].")
@click.option("-P", "--bind-port", type=click.IntRange(1, 65535), default=12345, show_default=True,
              help="Port to listen on.")
@click.option("-f", "--frequency", type=click.FloatRange(min=0, min_open=True), default=120.0, show_default=True,
              help="Seconds in one up+down period.")
@click.option("-p", "--pidfile", help="Accepted for compatibility (no pidfile is written).")
@click.option("-l", "--logfile", help="Accepted for compatibility (logs go where `logging` says).")
def start(bind_ip: str | None, bind_port: int, frequency: float, **_: object) -> None:
    """Run the flapper in the foreground (Ctrl-C stops it)."""
    host = bind_ip or primary_ipv4()
    click.echo(f"flapper starting on {host}:{bind_port}, up for {frequency / 2:g}s of every {frequency:g}s")
    try:
        Flapper(host, bind_port, frequency).run()
    except KeyboardInterrupt:
        click.echo("flapper stopped")
    except OSError as exc:
        raise click.ClickException(f"cannot listen on {host}:{bind_port}: {exc.strerror}") from None


@flapper.command()
@click.option("-p", "--pidfile", help="Accepted for compatibility.")
def stop(**_: object) -> None:
    """Report that no background flapper runs (stop a foreground one with Ctrl-C)."""
    click.echo("flapper is not running.")
    sys.exit(1)


@flapper.command()
@click.option("-p", "--pidfile", help="Accepted for compatibility.")
def status(**_: object) -> None:
    """Report that no background flapper runs (exit 3)."""
    click.echo("flapper is not running")
    sys.exit(3)


flapper.add_command(start, "restart")
