"""The delivery scenarios (bench.md "Delivery"): alerts from the push of their events to their acceptance by the
bench's local SMTP and HTTP servers (bench/sinks.py), through `flapjack server` (bench/system.py).

`delivery_email` and `delivery_http`: 1,000 checks fail at once (a third with --quick), 3 contacts with one
email (PagerDuty) medium each; then the same-run plain-client reference sends the messages (events) the
gateways delivered again, one after another (bench/plain_clients.py). `storm_delivered`: the storm's 2,000
checks with email and PagerDuty media, timed to the last delivery and to the last alert queued.
`delivery_latency`: failing events, each for a check of its own, pushed at 100/s; push -> accepted.
Each run is right when every alert recorded was accepted exactly once (correctness.tally_deliveries).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from flapjack_py.bench.context import Context
from flapjack_py.bench.correctness import Tally, tally_deliveries
from flapjack_py.bench.latency import percentile
from flapjack_py.bench.reference import Reference
from flapjack_py.bench.scenarios import STORM_CHECKS, prepare
from flapjack_py.bench.sinks import EMAIL, PAGERDUTY, alert_key
from flapjack_py.bench.system import FlapjackServer, server_config, tuning_of
from flapjack_py.bench.workload import CONTACTS, Population, add_contacts, everyone_fails, population_for
from flapjack_py.store import bench as bench_store

log = logging.getLogger(__name__)

DELIVERY_CHECKS = 1_000
LATENCY_RATE = 100.0  # failing events per second of delivery_latency
STALL_TIMEOUT = 30.0  # seconds without a new delivery or settled job before the rest count as undelivered
POLL = 0.01  # seconds between looks at the alerts recorded (queue_seconds' resolution)
LOOK_EVERY = 10  # polls between looks at the servers' count and the rq queues
RAW = {EMAIL: ("raw_smtp", "raw_smtp_per_s", "ratio_smtp"), PAGERDUTY: ("raw_http", "raw_http_per_s", "ratio_http")}
"""Per medium: the probe's command measuring its plain-client reference, its field and its ratio's field."""


@dataclass
class Delivered:
    """What one delivery run saw."""

    media: tuple[str, ...]
    pushed_at: float  # unix time the events were pushed (the first of them, for delivery_latency)
    queued_at: float | None  # unix time every alert was recorded, so queued (in the same MULTI)
    alerts: int  # alert records
    alerts_expected: int
    received: dict[str, list[tuple[str, float]]]  # medium -> (alert key, unix time accepted), in order
    sessions: dict[str, int]  # SMTP sessions, TCP connections to the HTTP server
    tally: Tally
    tuning: dict[str, tuple[int, int]]  # medium -> (workers, concurrency)
    samples: dict[str, list[dict[str, Any]]] = field(default_factory=dict)  # a few deliveries, whole, by medium
    raw_rate: float = 0.0  # the plain client's messages or posts per second

    @property
    def last_at(self) -> float:
        """Unix time of the last acceptance (the push time when none)."""
        return max((at for found in self.received.values() for _, at in found), default=self.pushed_at)

    @property
    def seconds(self) -> float:
        """From the push to the last acceptance."""
        return self.last_at - self.pushed_at

    def raw(self) -> dict[str, Any]:
        return {"alerts": self.alerts, "alerts_expected": self.alerts_expected, "seconds": self.seconds,
                "queue_seconds": None if self.queued_at is None else self.queued_at - self.pushed_at,
                "sessions": self.sessions, "tuning": self.tuning, "raw_rate": self.raw_rate,
                "accepted": {medium: len(found) for medium, found in self.received.items()},
                "delivered": self.tally.delivered, "duplicates": self.tally.duplicates,
                "undelivered": self.tally.undelivered, "unexpected": self.tally.unexpected,
                "failures": [str(f) for f in self.tally.failures(self.alerts, self.alerts_expected)]}


@dataclass
class DeliveryResult:
    """A delivery scenario's run and its `bench.delivery` line."""

    name: str
    run: Delivered
    offered_per_s: float = 0.0
    feed_seconds: float = 0.0
    latencies_ms: list[float] = field(default_factory=list)
    section: str = "delivery"

    @property
    def failures(self) -> list[str]:
        return [str(f) for f in self.run.tally.failures(self.run.alerts, self.run.alerts_expected)]

    def fields(self, ref: Reference, others: dict[str, Any]) -> dict[str, Any]:
        """The `bench.delivery` line (bench.md "Output")."""
        run = self.run
        line: dict[str, Any] = {"name": self.name}
        if self.name == "delivery_latency":
            offered = int(self.offered_per_s) if self.offered_per_s.is_integer() else self.offered_per_s
            return {**line, "offered_per_s": offered, "seconds": self.feed_seconds, "alerts": run.alerts,
                    "p50_ms": percentile(self.latencies_ms, 50), "p99_ms": percentile(self.latencies_ms, 99),
                    "max_ms": max(self.latencies_ms, default=0.0)}
        line.update(alerts=run.alerts, seconds=run.seconds)
        if self.name == "storm_delivered":
            queued = None if run.queued_at is None else run.queued_at - run.pushed_at
            line.update(queue_seconds=queued if queued is not None else "-",
                        ratio_to_queue=run.seconds / queued if queued else "-")
        else:
            medium = run.media[0]
            _, raw_field, ratio_field = RAW[medium]
            delivered_per_s = run.tally.delivered / max(run.seconds, 1e-9)
            line.update({"delivered_per_s": delivered_per_s, raw_field: run.raw_rate,
                         ratio_field: delivered_per_s / run.raw_rate if run.raw_rate else 0.0,
                         "smtp_sessions" if medium == EMAIL else "connections": run.sessions.get(medium, 0),
                         "workers": run.tuning[medium][0], "concurrency": run.tuning[medium][1]})
        line.update(duplicates=run.tally.duplicates, undelivered=run.tally.undelivered)
        return line

    def raw(self) -> dict[str, Any]:
        raw = {"name": self.name, **self.run.raw()}
        if self.latencies_ms:
            raw.update(offered_per_s=self.offered_per_s, feed_seconds=self.feed_seconds, latencies_ms=self.latencies_ms)
        return raw


def delivery_email(ctx: Context) -> DeliveryResult:
    """1,000 checks fail x 3 contacts with one email medium each; and raw_smtp_per_s."""
    return _outage(ctx, "delivery_email", (EMAIL,), DELIVERY_CHECKS, reference=True)


def delivery_http(ctx: Context) -> DeliveryResult:
    """1,000 checks fail x 3 contacts with one PagerDuty medium each; and raw_http_per_s."""
    return _outage(ctx, "delivery_http", (PAGERDUTY,), DELIVERY_CHECKS, reference=True)


def storm_delivered(ctx: Context) -> DeliveryResult:
    """The storm (2,000 checks x 3 contacts) with email and PagerDuty media, to the last delivery."""
    return _outage(ctx, "storm_delivered", (EMAIL, PAGERDUTY), STORM_CHECKS, reference=False)


def delivery_latency(ctx: Context) -> DeliveryResult:
    """Failing events at 100/s (each check fails once) for 10 s (3 s quick); push -> accepted."""
    seconds = ctx.options.latency_seconds
    pop = population_for(int(LATENCY_RATE * seconds), False)
    media = (EMAIL, PAGERDUTY)
    server = _start(ctx, "delivery_latency", pop, media)
    try:
        feed = ctx.feeder.call("feed", url=ctx.target.url, entities=pop.entities, flap_every=0, rate=LATENCY_RATE,
                               seconds=seconds, state="critical")
        run = _await(ctx, server, media, feed["pushed"] * CONTACTS * len(media), feed["stamps"][0])
    finally:
        server.stop()
    checks = {"{}:{}".format(*pop.check(n)): at for n, at in enumerate(feed["stamps"])}
    return DeliveryResult("delivery_latency", run, LATENCY_RATE, seconds, latencies_ms(ctx, run, checks))


def latencies_ms(ctx: Context, run: Delivered, pushed: dict[str, float]) -> list[float]:
    """Push -> accepted of every delivery, in ms; `pushed`: check id -> its event's push time."""
    check_of = {alert.id: alert.check for alert in bench_store.recorded_alerts(ctx.target.client)}
    found = []
    for medium, received in run.received.items():
        for key, at in received:
            check = key.partition("/")[2] if medium == PAGERDUTY else check_of.get(key, "")
            if check in pushed:
                found.append((at - pushed[check]) * 1000)
    return found


def delivery_size(ctx: Context, full: int) -> int:
    """Checks of a delivery scenario: `full`, a third with --quick, at most --events."""
    size = -(-full // 3) if ctx.options.quick else full
    return min(size, ctx.options.events) if ctx.options.events else size


def _outage(ctx: Context, name: str, media: tuple[str, ...], full: int, reference: bool) -> DeliveryResult:
    pop = population_for(delivery_size(ctx, full), False)
    server = _start(ctx, name, pop, media)
    try:
        work = everyone_fails(pop, pop.size, int(time.time()))
        pushed_at = time.time()
        bench_store.fill_queue(ctx.target.client, work.raws)
        run = _await(ctx, server, media, pop.size * CONTACTS * len(media), pushed_at)
    finally:
        server.stop()
    if reference:
        run.raw_rate = _plain_client(ctx, run, media[0], run.tally.expected)
    return DeliveryResult(name, run)


def _start(ctx: Context, name: str, pop: Population, media: Sequence[str]) -> FlapjackServer:
    """Seed the population's checks, add the contacts with `media`, empty the servers' records and start
    `flapjack server`; return it once it works."""
    prepare(ctx, pop, False)
    add_contacts(ctx.target.client, media=media)
    ctx.target.compact()
    ctx.sinks_call("sinks_take")
    server = FlapjackServer(ctx, server_config(ctx, media, ctx.sink_ports), name)
    try:
        server.wait_ready(media, pop.check(0))
    except BaseException:
        server.stop()
        raise
    return server


def _await(ctx: Context, server: FlapjackServer, media: Sequence[str], expected: int, pushed_at: float) -> Delivered:
    """Wait until the servers accepted `expected` deliveries and every job settled (or nothing moved for
    STALL_TIMEOUT s), noting when `expected` alerts were recorded (the database held none before); then
    what the servers accepted."""
    client, queued_at, polls = ctx.target.client, None, 0
    progress, moved_at = None, time.monotonic()
    while True:
        if queued_at is None and bench_store.alerts_recorded(client) >= expected:
            queued_at = time.time()
        polls += 1
        if polls % LOOK_EVERY == 0:
            server.check_running()
            now = (int(ctx.sinks_call("sinks_count")["count"]), bench_store.jobs_pending(ctx.target.raw, media))
            if now[0] >= expected and not now[1] and queued_at is not None:
                break
            if now != progress:
                progress, moved_at = now, time.monotonic()
            elif time.monotonic() - moved_at > STALL_TIMEOUT:
                log.warning("bench: no delivery for %.0fs; %d of %d accepted", STALL_TIMEOUT, now[0], expected)
                break
        time.sleep(POLL)
    taken = ctx.sinks_call("sinks_take")
    return _observed(ctx, server, media, expected, pushed_at, queued_at, taken)


def _observed(ctx: Context, server: FlapjackServer, media: Sequence[str], expected: int, pushed_at: float,
              queued_at: float | None, taken: dict[str, Any]) -> Delivered:
    """The run as the servers' records and the alert records tell it."""
    records = [a for a in bench_store.recorded_alerts(ctx.target.client) if a.media in media]
    received = {medium: [(str(key), float(at)) for key, at in taken["received"][medium]] for medium in media}
    tally = tally_deliveries([alert_key(a.media, a.id, a.address, a.check) for a in records],
                             [key for found in received.values() for key, _ in found])
    return Delivered(tuple(media), pushed_at, queued_at, len(records), expected, received,
                     {medium: int(taken["sessions"][medium]) for medium in media}, tally,
                     {medium: tuning_of(server.config, medium) for medium in media}, taken["samples"])


def _plain_client(ctx: Context, run: Delivered, medium: str, count: int) -> float:
    """The plain client's rate: the scenario's delivered messages (events) sent again, `count` in all."""
    samples = run.samples.get(medium) or []
    if not samples or not count:
        return 0.0
    command = RAW[medium][0]
    reply = ctx.probe.call(command, host="127.0.0.1", port=ctx.sink_ports[medium], samples=samples, count=count)
    ctx.sinks_call("sinks_take")  # the reference's own deliveries are not the scenario's
    return float(reply["rate"])

