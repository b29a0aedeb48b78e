"""Prometheus metrics of the whole system, read from Redis at scrape time (prometheus_client collector).

Any process can serve them (the web app at `/metrics`, a worker with
`--metrics-port`): the values are the counters every executive and gateway
keeps in Redis, not process-local state.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

from prometheus_client import CollectorRegistry, generate_latest, start_http_server
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, HistogramMetricFamily, Metric
from prometheus_client.registry import Collector
from rq import Worker

from flapjack_py.config.media import known_media
from flapjack_py.config.settings import Config
from flapjack_py.store import metrics as store
from flapjack_py.store.events import events_processed, queue_length
from flapjack_py.store.plumbing.client import Clients, StrRedis
from flapjack_py.store.queues import queue_for
from flapjack_py.store.receivers import load_receiver_counters, rejected_reasons

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"


class FlapjackCollector(Collector):
    """Yields every flapjack_* metric family from one set of Redis reads."""

    def __init__(self, clients: Clients, config: Config) -> None:
        self.raw = clients.raw  # rq's registries
        self.client = clients.text
        self.config = config

    def collect(self) -> Iterator[Metric]:
        client = self.client
        queue = self.config.executive.queue
        yield _counter("flapjack_events_processed", "Events the executives have processed.",
                       events_processed(client))
        rejected = CounterMetricFamily("flapjack_events_rejected", "Events rejected, by reason.", labels=["reason"])
        for reason, count in sorted(store.rejected_counts(client).items()):
            rejected.add_metric([reason], count)
        yield rejected
        yield _gauge("flapjack_events_queue_length", "Events waiting on the queue.", queue_length(client, queue))
        yield _gauge("flapjack_events_oldest_queued_age_seconds", "Age of the oldest queued event (its `time`).",
                     store.oldest_queued_age(client, queue, time.time()))
        yield _histogram("flapjack_executive_batch_seconds", "Time an executive took for one batch.",
                         store.batch_histogram(client))
        yield from self._checks(client)
        yield from self._alerts(client)
        yield from self._gateways()
        yield from self._receivers(client)
        yield self._up(client)

    def _checks(self, client: StrRedis) -> Iterator[Metric]:
        counts = store.check_counts(client)
        states = GaugeMetricFamily("flapjack_checks", "Known checks by current state.", labels=["state"])
        for state, count in sorted(counts.by_state.items()):
            states.add_metric([state], count)
        yield states
        yield _gauge("flapjack_checks_unhandled", "Failing checks not acknowledged, not in maintenance, enabled, not inhibited.",
                     counts.unhandled)

    def _alerts(self, client: StrRedis) -> Iterator[Metric]:
        alerts = CounterMetricFamily("flapjack_alerts", "Alerts that reached a status, by medium and type.",
                                     labels=["medium", "type", "status"])
        for (medium, alert_type, status), count in sorted(store.alert_counts(client).items()):
            alerts.add_metric([medium, alert_type, status], count)
        yield alerts
        delivery = HistogramMetricFamily("flapjack_alert_delivery_seconds", "Alert enqueued -> delivered.",
                                         labels=["medium"])
        for medium, hist in sorted(store.delivery_histograms(client).items()):
            delivery.add_metric([medium], _buckets(hist), hist.total)
        yield delivery

    def _gateways(self) -> Iterator[Metric]:
        failed = GaugeMetricFamily("flapjack_gateway_failed_jobs", "Jobs in a medium's failed-job registry.",
                                   labels=["medium"])
        for medium in self._media():
            failed.add_metric([medium], queue_for(self.raw, medium).failed_job_registry.count)
        yield failed

    def _receivers(self, client: StrRedis) -> Iterator[Metric]:
        label = ["receiver"]
        read = CounterMetricFamily("flapjack_receiver_lines_read", "Lines (requests) a receiver read.", labels=label)
        pushed = CounterMetricFamily("flapjack_receiver_events_pushed", "Events a receiver queued.", labels=label)
        rejected = CounterMetricFamily("flapjack_receiver_lines_rejected", "Lines a receiver rejected, by reason.",
                                       labels=["receiver", "reason"])
        for name, counters in load_receiver_counters(client).items():
            read.add_metric([name], counters["read"])
            pushed.add_metric([name], counters["pushed"])
            for reason, count in sorted(rejected_reasons(counters).items()):
                rejected.add_metric([name, reason], count)
        yield from (read, pushed, rejected)

    def _up(self, client: StrRedis) -> Metric:
        up = GaugeMetricFamily("flapjack_up", "1 per process with a live heartbeat.", labels=["role", "instance"])
        for instance in store.live_executives(client):
            up.add_metric(["executive", instance], 1)
        for medium in self._media():
            for worker in Worker.all(queue=queue_for(self.raw, medium)):
                up.add_metric([f"gateway_{medium}", worker.name], 1)
        return up

    def _media(self) -> list[str]:
        return [m for m in known_media() if self.config.gateway_enabled(m)]


def render(clients: Clients, config: Config) -> bytes:
    """The exposition text of every flapjack metric."""
    registry = CollectorRegistry(auto_describe=False)
    registry.register(FlapjackCollector(clients, config))
    return generate_latest(registry)


def _counter(name: str, doc: str, value: float) -> CounterMetricFamily:
    return CounterMetricFamily(name, doc, value=value)


def _gauge(name: str, doc: str, value: float) -> GaugeMetricFamily:
    return GaugeMetricFamily(name, doc, value=value)


def _histogram(name: str, doc: str, hist: store.Histogram) -> HistogramMetricFamily:
    return HistogramMetricFamily(name, doc, buckets=_buckets(hist), sum_value=hist.total)


def _buckets(hist: store.Histogram) -> list[tuple[str, float]]:
    return [("+Inf" if bound == float("inf") else f"{bound:g}", count) for bound, count in hist.buckets]


def serve(port: int, clients: Clients, config: Config, bind: str = "127.0.0.1") -> None:
    """Serve `/metrics` on `bind:port` from a daemon thread (for workers started with --metrics-port)."""
    registry = CollectorRegistry(auto_describe=False)
    registry.register(FlapjackCollector(clients, config))
    start_http_server(port, addr=bind, registry=registry)
