"""Put alerts on the per-medium rq queues (JSON serializer) and record them (contract sections 5-6).

Everything is written into the caller's pipeline, so an event's check state,
its alerts' records and their rq jobs commit in one MULTI.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

import redis
from rq import Queue, Retry
from rq.serializers import JSONSerializer

from .config import Config
from .store import alerts as alert_store
from .store.alerts import AlertStatus

log = logging.getLogger(__name__)

DELIVER_FUNC = "gateways.worker.deliver"
"""Dotted path of the rq job function; its one argument is the alert payload (a dict)."""

RETRY_INTERVALS = (10, 30, 60, 120, 300)
"""Seconds between delivery attempts (`gateways.<medium>.retry_intervals` overrides);
later attempts reuse the last value."""


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


def enqueue_alert(connection: redis.Redis, pipe: redis.client.Pipeline, alert: Mapping[str, Any],
                  config: Config) -> str:
    """Record `alert` and, when its gateway is enabled, enqueue its delivery; return the status.

    `connection` must be a bytes (non-decoding) client, as rq requires; `pipe` is
    a transactional pipeline already in MULTI mode (`pipe.multi()`), which the
    caller executes.
    """
    medium = alert["media"]
    status = AlertStatus.QUEUED if config.gateway_enabled(medium) else AlertStatus.UNDELIVERABLE
    record = dict(alert, status=status)
    alert_store.add_alert(pipe, record, config.executive.alert_retention)
    if status == AlertStatus.UNDELIVERABLE:
        log.warning("alert %s: gateway %s is not enabled; recorded as undeliverable", alert["id"], medium)
        return status
    retries = int(config.gateway(medium).get("retries", 3))
    intervals = config.gateway(medium).get("retry_intervals") or RETRY_INTERVALS
    retry = Retry(max=retries, interval=[int(i) for i in intervals][:retries]) if retries else None
    queue_for(connection, medium).enqueue_call(
        DELIVER_FUNC, args=(dict(record),), job_id=alert["id"], retry=retry, pipeline=pipe,
        result_ttl=3600, failure_ttl=7 * 86400,
    )
    return status
