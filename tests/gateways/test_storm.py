"""A storm end to end: many checks fail in one batch, every contact medium is alerted once, and real rq workers
deliver every job the batch's one MULTI wrote (issue 11)."""

from __future__ import annotations

import json
from collections import Counter

import pytest
import redis
from rq import Queue
from rq.serializers import JSONSerializer

from flapjack_py.config.settings import load_config
from flapjack_py.executive import Executive
from flapjack_py.runtime.embedded_redis import EmbeddedRedis
from flapjack_py.store import contacts as contact_store
from flapjack_py.store.plumbing.client import StrRedis
from gateways.worker import run_gateway

from .conftest import SmtpServer

pytestmark = pytest.mark.real

CHECKS = 20
CONTACTS = ("ada", "bob", "cy")


def storm_config(redis_server: EmbeddedRedis, smtp_port: int, sms_url: str) -> dict:
    retry = {"retries": 1, "retry_intervals": [0], "burst_wait": 5}
    return {"redis": {"url": redis_server.url},
            "executive": {"new_check_scheduled_maintenance_duration": 0, "batch_size": 1000},
            "incidents": {"group_by": "none"},  # every check's own page: the storm's count (issue 33 folds them)
            "gateways": {"email": {"enabled": True, **retry, "smtp_config": {"host": "127.0.0.1", "port": smtp_port}},
                         "sms": {"enabled": True, **retry, "endpoint": sms_url, "username": "u", "password": "p"}}}


def push_all(r: redis.Redis, state: str) -> None:
    r.lpush("events", *(json.dumps({"type": "service", "entity": f"web-{i % 4}", "check": f"check-{i}",
                                    "state": state, "summary": f"check-{i} {state}", "initial_failure_delay": 0,
                                    "repeat_failure_delay": 0}) for i in range(CHECKS)))


def test_a_storm_alerts_every_contact_medium_once_and_workers_deliver_it(
        redis_server: EmbeddedRedis, real_r: redis.Redis, smtp_server: SmtpServer, httpserver, real_s: StrRedis) -> None:  # type: ignore[no-untyped-def]
    httpserver.expect_request("/lodge").respond_with_data("ok")
    config = storm_config(redis_server, smtp_server.port, httpserver.url_for("/lodge"))
    for cid in CONTACTS:
        contact_store.create_contact(real_s, {"id": cid, "first_name": cid.title(),
                                              "media": {"email": f"{cid}@example.com", "sms": f"+61{len(cid)}"}})
        real_r.sadd("contacts_for:ALL", cid)
    executive = Executive(real_r, config)
    push_all(real_r, "ok")
    executive.drain()
    commits = []
    commit = executive.commit.batch
    executive.commit.batch = lambda batch, pending: commits.append(len(pending)) or commit(batch, pending)  # type: ignore[method-assign]
    push_all(real_r, "critical")
    assert executive.drain() == CHECKS

    assert commits == [CHECKS]  # the whole storm in one MULTI
    records = [{k.decode(): v.decode() for k, v in real_r.hgetall(f"alert:{i.decode()}").items()}
               for i in real_r.zrange("alerts", 0, -1)]
    assert Counter((a["check"], a["contact"], a["media"]) for a in records) == Counter(
        {(f"web-{i % 4}:check-{i}", cid, medium): 1 for i in range(CHECKS) for cid in CONTACTS
         for medium in ("email", "sms")})
    assert {a["status"] for a in records} == {"queued"}
    for medium in ("email", "sms"):
        queue = Queue(medium, connection=real_r, serializer=JSONSerializer)
        assert sorted(queue.job_ids) == sorted(a["id"] for a in records if a["media"] == medium)

    loaded = load_config(config)
    assert run_gateway("email", loaded, burst=True) == 0
    assert run_gateway("sms", loaded, burst=True) == 0
    statuses = Counter(real_r.hget(f"alert:{a['id']}", "status").decode() for a in records)
    assert statuses == {"delivered": CHECKS * len(CONTACTS) * 2}
    assert len(smtp_server.messages) == CHECKS * len(CONTACTS)
    assert len(httpserver.log) == CHECKS * len(CONTACTS)
    subjects = {m["Subject"] for m in smtp_server.messages}
    assert "Problem: 'check-7' on web-3 is Critical" in subjects
