"""`flapjack simulate`: send a stream of service events for one check, as an operator's test (engine.md 8)."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

import click

from flapjack_py.config.settings import Config
from flapjack_py.runtime.session import comma_list, redis_client
from flapjack_py.store.events import push_event
from flapjack_py.store.plumbing.client import StrRedis
from flapjack_py.tools.timespec import stamp

log = logging.getLogger(__name__)

SUMMARY = "Simulated check output (test by operator)"


def send_offsets(interval: float, minutes: float) -> list[float]:
    """Seconds after the start at which events go out: 0, then every `interval` before the stop.

    The stop comes `int(minutes * 60)` seconds after the start, as Flapjack's timer does.
    """
    if interval <= 0:
        raise ValueError("interval must be positive")
    stop_after = int(minutes * 60)
    offsets = [0.0]
    k = 1
    while k * interval < stop_after:
        offsets.append(k * interval)
        k += 1
    return offsets


def stop_offset(minutes: float) -> float:
    """Seconds after the start at which the stream stops."""
    return float(int(minutes * 60))


def make_event(entity: str, check: str, state: str, tags: list[str], now: float) -> dict[str, Any]:
    """A simulated service event with `time` = now."""
    event: dict[str, Any] = {"entity": entity, "check": check, "type": "service", "state": state,
                             "summary": SUMMARY, "time": int(now)}
    if tags:
        event["tags"] = tags
    return event


def run_stream(client: StrRedis, entity: str, check: str, state: str, tags: list[str], interval: float,
               minutes: float, recover: bool, say: Callable[[str], None],
               sleep: Callable[[float], Any] | None = None) -> int:
    """Send the events, printing a line for each through `say`; return how many were sent."""
    key = f"{entity}:{check}"
    sleep = sleep or _sleep
    start = time.time()
    sent = 0
    for offset in send_offsets(interval, minutes):
        _wait_until(start + offset, sleep)
        now = time.time()
        say(f"{stamp(now)}: sending failure event ({state}) for {key}")
        push_event(client, make_event(entity, check, state, tags, now))
        sent += 1
    _wait_until(start + stop_offset(minutes), sleep)
    say(f"{stamp(time.time())}: stopping")
    if recover:
        now = time.time()
        say(f"{stamp(now)}: sending recovery event for {key}")
        push_event(client, make_event(entity, check, "ok", tags, now))
        sent += 1
    return sent


def _sleep(seconds: float) -> None:
    """Wait between events (tests replace this to move a frozen clock instead)."""
    time.sleep(seconds)


def _wait_until(when: float, sleep: Callable[[float], Any]) -> None:
    delay = when - time.time()
    if delay > 0:
        sleep(delay)


def _positive(ctx: click.Context, param: click.Parameter, value: float) -> float:
    if value <= 0:
        raise click.BadParameter("must be greater than 0")
    return value


def _non_negative(ctx: click.Context, param: click.Parameter, value: float) -> float:
    if value < 0:
        raise click.BadParameter("must not be negative")
    return value


def _common(f: Callable[..., Any]) -> Callable[..., Any]:
    """Options shared by the three simulate commands."""
    options = [
        click.option("-t", "--time", "minutes", type=float, default=0.75, show_default=True, callback=_non_negative,
                     help="MINUTES to generate events for."),
        click.option("-i", "--interval", type=float, default=10.0, show_default=True, callback=_positive,
                     help="SECONDS between events, decimals allowed (e.g. 0.1)."),
        click.option("-e", "--entity", default="foo-app-01", show_default=True, help="ENTITY of the events."),
        click.option("-k", "--check", default="HTTP", show_default=True, help="CHECK of the events."),
        click.option("-T", "--tags", default="", help="Comma-separated list of TAGS to include in the events."),
    ]
    for option in reversed(options):
        f = option(f)
    return f


_STATE = click.option("-s", "--state", default="critical", show_default=True,
                      type=click.Choice(["warning", "critical", "unknown"], case_sensitive=False),
                      help="STATE of the failure events.")


@click.group()
def simulate() -> None:
    """Generate streams of events in various states."""


@simulate.command("fail")
@_common
@_STATE
@click.pass_obj
def fail(config: Config, minutes: float, interval: float, entity: str, check: str, tags: str, state: str) -> None:
    """Generate a stream of failure events."""
    with redis_client(config) as client:
        run_stream(client, entity, check, state.lower(), comma_list(tags), interval, minutes, False, click.echo)


@simulate.command("fail_and_recover")
@_common
@_STATE
@click.pass_obj
def fail_and_recover(config: Config, minutes: float, interval: float, entity: str, check: str, tags: str,
                     state: str) -> None:
    """Generate a stream of failure events, and one final recovery."""
    with redis_client(config) as client:
        run_stream(client, entity, check, state.lower(), comma_list(tags), interval, minutes, True, click.echo)


@simulate.command("ok")
@_common
@click.pass_obj
def ok(config: Config, minutes: float, interval: float, entity: str, check: str, tags: str) -> None:
    """Generate a stream of ok events."""
    with redis_client(config) as client:
        run_stream(client, entity, check, "ok", comma_list(tags), interval, minutes, False, click.echo)
