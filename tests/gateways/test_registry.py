"""A gateway declared in one place delivers through the worker; the worker's retries and take-backs through rq's
public API and flapjack_py.store.recovery: a due retry enqueued once, a stuck job put back once."""

from __future__ import annotations

import threading
import time
from datetime import UTC, datetime, timedelta

import time_machine
from rq import Queue
from rq.serializers import JSONSerializer

from flapjack_py.store import recovery
from gateways.worker import enqueue_due, recover_intermediate
from tests import telegraph_gateway
from tests.telegraph_gateway import installed_telegraph

from .conftest import gateway_config, make_alert, status_of

DELIVER = "gateways.worker.deliver"


def test_a_gateway_declared_in_one_place_delivers_its_alerts(tmp_path, redis_server, enqueue, burst, real_s):
    with installed_telegraph(tmp_path):
        config = gateway_config(redis_server.url, "telegraph", wire="morse")
        alert = enqueue(config, media="telegraph", address="+15550100")
        assert burst("telegraph", config) == 0
        assert [sent["id"] for sent in telegraph_gateway.SENT] == [alert["id"]]
    assert status_of(real_s, alert["id"])["status"] == "delivered"


def test_a_due_retry_is_enqueued_once_by_workers_running_at_once(real_r):
    queue = Queue("email", connection=real_r, serializer=JSONSerializer)
    due = [queue.enqueue_at(datetime.now(UTC) - timedelta(seconds=5), DELIVER, make_alert()) for _ in range(20)]
    later = queue.enqueue_at(datetime.now(UTC) + timedelta(hours=1), DELIVER, make_alert())
    start, moved = threading.Barrier(4), []

    def worker() -> None:
        start.wait()
        moved.append(enqueue_due(Queue("email", connection=real_r, serializer=JSONSerializer)))

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sum(moved) == 20
    assert sorted(queue.job_ids) == sorted(job.id for job in due)
    assert queue.scheduled_job_registry.get_job_ids(cleanup=False) == [later.id]


def test_a_due_retry_whose_job_is_gone_is_dropped(real_r):
    queue = Queue("email", connection=real_r, serializer=JSONSerializer)
    job = queue.enqueue_at(datetime.now(UTC) - timedelta(seconds=5), DELIVER, make_alert())
    job.delete(remove_from_queue=False)
    assert enqueue_due(queue) == 0
    assert queue.scheduled_job_registry.get_job_ids(cleanup=False) == [] and queue.job_ids == []


def test_a_job_a_dead_worker_took_goes_back_to_the_front_of_its_queue_once(real_r):
    queue = Queue("email", connection=real_r, serializer=JSONSerializer)
    taken, waiting = (queue.enqueue(DELIVER, make_alert()) for _ in range(2))
    real_r.lmove(queue.key, queue.intermediate_queue_key, "LEFT", "RIGHT")  # a worker took it, then died
    assert recover_intermediate(queue) == 0  # first seen now
    with time_machine.travel(time.time() + 5):
        assert recover_intermediate(queue) == 1
        assert recover_intermediate(queue) == 0
    assert queue.job_ids == [taken.id, waiting.id]
    assert queue.intermediate_queue.get_job_ids() == []
    assert recovery.requeue_stuck(queue, taken.id) is False  # no longer there: nothing moved
