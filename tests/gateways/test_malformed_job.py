"""A delivery job whose payload is not an alert is refused where the worker takes it (alert_from_json):
it fails with the faults named and nothing is sent; an abandoned one still fails its alert record."""

from __future__ import annotations

from rq import Queue
from rq.job import Job
from rq.registry import FailedJobRegistry
from rq.serializers import JSONSerializer

from flapjack_py.store.queues import DELIVER_FUNC
from gateways import base

from .conftest import gateway_config, make_alert, status_of


def test_a_malformed_job_fails_naming_its_faults_and_nothing_is_sent(redis_server, smtp_server, burst, real_r):
    config = gateway_config(redis_server.url, "email", smtp_config={"host": "127.0.0.1", "port": smtp_server.port})
    payload = make_alert(timestamp="soon", body="hello")
    del payload["address"]
    queue = Queue("email", connection=real_r, serializer=JSONSerializer)
    queue.enqueue(DELIVER_FUNC, payload, job_id=payload["id"])  # written by something other than the notifier
    assert burst("email", config) == 0
    assert smtp_server.messages == []
    assert payload["id"] in FailedJobRegistry("email", connection=real_r, serializer=JSONSerializer).get_job_ids()
    result = Job.fetch(payload["id"], connection=real_r, serializer=JSONSerializer).latest_result()
    assert result is not None and result.exc_string is not None
    assert (f"InvalidAlert: malformed alert {payload['id']}: no 'address'; 'timestamp' is a string, not an integer"
            in result.exc_string)


def test_an_abandoned_job_fails_its_alert_record_even_when_malformed(redis_server, enqueue, real_s):
    config = gateway_config(redis_server.url, "email")
    good, bad = enqueue(config), enqueue(config)
    assert base.record_failed_job(real_s, good["id"], good, "worker died") == "failed"
    assert base.record_failed_job(real_s, bad["id"], {"id": bad["id"], "media": 3}, "worker died") == "failed"
    for alert in (good, bad):
        record = status_of(real_s, alert["id"])
        assert (record["status"], record["error"]) == ("failed", "worker died")
