"""Put alerts on the per-medium rq queues (JSON serializer) and record them (contract sections 5-6).

`add_alert` renders an alert's text and queues its record on the caller's
writes and its rq job data on `writes.jobs`; `enqueue_jobs` writes those jobs
on the caller's MULTI pipeline, so a batch's check state, alert records and rq
jobs commit together. Jobs are written as rq's own `Queue.enqueue_many` writes
them (flapjack_py.store.rq_jobs: rq's writes recorded once per medium and retry
setting, then one HSET per job), so rq workers, the failed-job registry and
retries see jobs exactly as rq writes them.
"""

from __future__ import annotations

import logging

import redis

from flapjack_py.config.media import known_media
from flapjack_py.config.settings import Config
from flapjack_py.model.alert import Alert
from flapjack_py.notify.render import SharedTexts, render_alert
from flapjack_py.store import alerts as alert_store
from flapjack_py.store.alerts import AlertStatus
from flapjack_py.store.plumbing.client import BytesRedis
from flapjack_py.store.plumbing.writes import WriteBuffer
from flapjack_py.store.queues import JobData, RetrySetting, enqueue_jobs, job_template, queue_for
from flapjack_py.store.rq_jobs import PLACEHOLDER_ID, SharedMembers
from flapjack_py.store.status_page import DeliveryQueue

log = logging.getLogger(__name__)


RETRY_INTERVALS = (10, 30, 60, 120, 300)
"""Seconds between delivery attempts (`gateways.<medium>.retry_intervals` overrides);
later attempts reuse the last value."""







_retry_settings: dict[tuple[int, str], tuple[Config, RetrySetting]] = {}




def add_alert(writes: WriteBuffer, alert: Alert, config: Config,
              texts: SharedTexts | None = None, shared: SharedMembers | None = None) -> str:
    """Render `alert`, record it on `writes` and, when its gateway is enabled, add its job to `writes.jobs`.

    Returns the record's status. A template that fails to render fails this
    alert only: it is recorded `failed` with the error and not enqueued.
    `texts`: what was rendered for the other alerts of its notification (render.render_alert's `shared`);
    `shared`: the fields the alert holds alike with them, their JSON made once (rq_jobs.shared_members).
    """
    medium = alert["media"]
    try:
        alert["subject"], alert["body"] = render_alert(alert, config, texts)
    except Exception as exc:  # a bad override template: this alert fails, not its event
        log.error("alert %s for contact %s on %s: rendering failed: %s", alert["id"], alert["contact"], medium, exc)
        alert["subject"], alert["body"] = "", ""
        failed: Alert = {**alert, "status": AlertStatus.FAILED, "error": f"rendering failed: {exc}"}
        alert_store.add_alert(writes, failed, config.executive.alert_retention)
        return AlertStatus.FAILED
    status = AlertStatus.QUEUED if config.gateway_enabled(medium) else AlertStatus.UNDELIVERABLE
    record: Alert = {**alert, "status": status}
    alert_store.add_alert(writes, record, config.executive.alert_retention)
    if status == AlertStatus.UNDELIVERABLE:
        log.warning("alert %s: gateway %s is not enabled; recorded as undeliverable", alert["id"], medium)
        return status
    writes.jobs.append(JobData(medium, record, _retry_setting(config, medium), shared))
    return status




def enqueue_alert(connection: BytesRedis, pipe: redis.client.Pipeline, alert: Alert, config: Config) -> str:
    """Record and enqueue one alert whose subject/body are already set, on `pipe` (in MULTI mode); return the status.

    Used to put a single alert on its queue outside a batch (tests, tools).
    """
    medium = alert["media"]
    status = AlertStatus.QUEUED if config.gateway_enabled(medium) else AlertStatus.UNDELIVERABLE
    record: Alert = {**alert, "status": status}
    alert_store.add_alert(pipe, record, config.executive.alert_retention)
    if status == AlertStatus.QUEUED:
        enqueue_jobs(connection, pipe, [JobData(medium, record, _retry_setting(config, medium))])
    return status


def delivery_queues(connection: BytesRedis, config: Config) -> list[DeliveryQueue]:
    """Jobs waiting and failed on each medium's rq queue (media enabled in config, or with jobs)."""
    found = []
    for medium in known_media():
        queue = queue_for(connection, medium)
        queued, failed = queue.count, queue.failed_job_registry.count
        if config.gateway_enabled(medium) or queued or failed:
            found.append(DeliveryQueue(medium, config.gateway_enabled(medium), queued, failed))
    return found


def prepare(connection: BytesRedis, config: Config) -> None:
    """Do now what the first alert on each enabled medium would do in the middle of a batch: make its rq
    queue and job template (rq asks the server's version on a new connection) and parse and compile its
    alert and rollup templates, by rendering a sample of each (issue 11: ~20 ms off the first alert after
    boot). A template that does not render is reported by the alert that uses it, not here."""
    for medium in known_media():
        if not config.gateway_enabled(medium):
            continue
        job_template(connection, medium, _retry_setting(config, medium))
        for rollup in ("", "problem"):
            sample: Alert = {"id": PLACEHOLDER_ID, "media": medium, "contact": "", "event_id": "host:check",
                             "notification_type": "problem", "state": "critical", "time": 0, "timestamp": 0,
                             "address": "", "check": "host:check", "type": "problem", "rollup": rollup}
            if rollup:
                sample["rollup_alerts"], sample["rollup_threshold"] = {}, 1
            try:
                render_alert(sample, config)
            except Exception as exc:  # a user's template: its alerts say what is wrong with it
                log.debug("%s templates not prepared: %s", medium, exc)








def _retry_setting(config: Config, medium: str) -> RetrySetting:
    """The medium's retries (remembered per config object: reading gateway settings is not free)."""
    known = _retry_settings.get((id(config), medium))
    if known is None or known[0] is not config:
        known = _retry_settings[(id(config), medium)] = (config, _read_retry_setting(config, medium))
    return known[1]


def _read_retry_setting(config: Config, medium: str) -> RetrySetting:
    retries = int(config.gateway(medium).get("retries", 3))
    intervals = config.gateway(medium).get("retry_intervals") or RETRY_INTERVALS
    return (retries, tuple(int(i) for i in intervals)[:retries]) if retries else None

