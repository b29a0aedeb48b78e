"""Put alerts on the per-medium rq queues (JSON serializer) and record them (contract sections 5-6).

`add_alert` renders an alert's text and queues its record on the caller's
writes and its rq job data on `writes.jobs`; `enqueue_jobs` writes those jobs
with rq's own `Queue.enqueue_many` on the caller's MULTI pipeline, so a batch's
check state, alert records and rq jobs commit together, and rq workers, the
failed-job registry and retries see jobs exactly as rq writes them.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import redis
from rq import Queue, Retry
from rq.queue import EnqueueData
from rq.serializers import JSONSerializer

from .config import KNOWN_MEDIA, Config
from .render import render_alert
from .store import alerts as alert_store
from .store.alerts import AlertStatus
from .store.status_page import DeliveryQueue
from .store.writes import WriteBuffer

log = logging.getLogger(__name__)

DELIVER_FUNC = "gateways.worker.deliver"
"""Dotted path of the rq job function; its one argument is the alert payload (a dict)."""

RETRY_INTERVALS = (10, 30, 60, 120, 300)
"""Seconds between delivery attempts (`gateways.<medium>.retry_intervals` overrides);
later attempts reuse the last value."""

RESULT_TTL = 3600
FAILURE_TTL = 7 * 86400


@dataclass(frozen=True)
class JobData:
    """One rq job to enqueue on a medium's queue when its batch commits."""

    medium: str
    data: EnqueueData


_queues: dict[tuple[int, str], Queue] = {}


def queue_for(connection: redis.Redis, medium: str) -> Queue:
    """The rq queue of a medium (named after it), using the JSON serializer.

    Cached per connection: rq asks the server's version once per Queue object.
    """
    key = (id(connection), medium)
    queue = _queues.get(key)
    if queue is None or queue.connection is not connection:
        queue = _queues[key] = Queue(medium, connection=connection, serializer=JSONSerializer)
    return queue


def add_alert(writes: WriteBuffer, alert: dict[str, Any], config: Config) -> str:
    """Render `alert`, record it on `writes` and, when its gateway is enabled, add its job to `writes.jobs`.

    Returns the record's status. A template that fails to render fails this
    alert only: it is recorded `failed` with the error and not enqueued.
    """
    medium = alert["media"]
    try:
        alert["subject"], alert["body"] = render_alert(alert, config)
    except Exception as exc:  # a bad override template: this alert fails, not its event
        log.error("alert %s for contact %s on %s: rendering failed: %s", alert["id"], alert["contact"], medium, exc)
        alert["subject"], alert["body"] = "", ""
        alert_store.add_alert(writes, dict(alert, status=AlertStatus.FAILED, error=f"rendering failed: {exc}"),
                              config.executive.alert_retention)
        return AlertStatus.FAILED
    status = AlertStatus.QUEUED if config.gateway_enabled(medium) else AlertStatus.UNDELIVERABLE
    record = dict(alert, status=status)
    alert_store.add_alert(writes, record, config.executive.alert_retention)
    if status == AlertStatus.UNDELIVERABLE:
        log.warning("alert %s: gateway %s is not enabled; recorded as undeliverable", alert["id"], medium)
        return status
    writes.jobs.append(JobData(medium, _job_data(record, config)))
    return status


def enqueue_jobs(connection: redis.Redis, pipe: redis.client.Pipeline, jobs: Iterable[JobData]) -> None:
    """Write `jobs` with rq's `enqueue_many`, per medium in order, on `pipe` (a MULTI the caller executes).

    `connection` must be a bytes (non-decoding) client, as rq requires.
    """
    by_medium: dict[str, list[EnqueueData]] = {}
    for job in jobs:
        by_medium.setdefault(job.medium, []).append(job.data)
    for medium, datas in by_medium.items():
        queue_for(connection, medium).enqueue_many(datas, pipeline=pipe)


def enqueue_alert(connection: redis.Redis, pipe: redis.client.Pipeline, alert: Mapping[str, Any],
                  config: Config) -> str:
    """Record and enqueue one alert whose subject/body are already set, on `pipe` (in MULTI mode); return the status.

    Used to put a single alert on its queue outside a batch (tests, tools).
    """
    medium = alert["media"]
    status = AlertStatus.QUEUED if config.gateway_enabled(medium) else AlertStatus.UNDELIVERABLE
    record = dict(alert, status=status)
    alert_store.add_alert(pipe, record, config.executive.alert_retention)
    if status == AlertStatus.QUEUED:
        queue_for(connection, medium).enqueue_many([_job_data(record, config)], pipeline=pipe)
    return status


def delivery_queues(connection: redis.Redis, config: Config) -> list[DeliveryQueue]:
    """Jobs waiting and failed on each medium's rq queue (media enabled in config, or with jobs)."""
    found = []
    for medium in KNOWN_MEDIA:
        queue = queue_for(connection, medium)
        queued, failed = queue.count, queue.failed_job_registry.count
        if config.gateway_enabled(medium) or queued or failed:
            found.append(DeliveryQueue(medium, config.gateway_enabled(medium), queued, failed))
    return found


def _job_data(record: Mapping[str, Any], config: Config) -> EnqueueData:
    """rq's description of the delivery job (a short one: rq would otherwise repr the whole payload)."""
    medium = record["media"]
    return Queue.prepare_data(DELIVER_FUNC, args=(dict(record),), job_id=record["id"], retry=_retry(config, medium),
                              result_ttl=RESULT_TTL, failure_ttl=FAILURE_TTL,
                              description=f"deliver alert {record['id']} ({medium} to contact {record['contact']})")


def _retry(config: Config, medium: str) -> Retry | None:
    retries = int(config.gateway(medium).get("retries", 3))
    intervals = config.gateway(medium).get("retry_intervals") or RETRY_INTERVALS
    return Retry(max=retries, interval=[int(i) for i in intervals][:retries]) if retries else None

