"""PagerDuty gateway against a local HTTP server speaking Events v2, v1 and REST v2."""

from __future__ import annotations

import json
import time

import pytest
from werkzeug import Response

from flapjack_py import keys
from flapjack_py.store import contacts as contact_store
from flapjack_py.store import media as media_store
from gateways import pagerduty
from gateways.base import open_gateway

from .conftest import gateway_config, status_of

KEY = "a" * 32


def pd_config(redis_server, httpserver, **extra):
    return gateway_config(redis_server.url, "pagerduty", events_url=httpserver.url_for("/"),
                          api_url=httpserver.url_for("/"), ack_poll_interval=0, **extra)


def bodies(httpserver, path):
    return [json.loads(req.get_data()) for req, _ in httpserver.log if req.path == path]


@pytest.mark.parametrize("type_, state, action", [("problem", "critical", "trigger"),
                                                   ("acknowledgement", "acknowledgement", "acknowledge"),
                                                   ("recovery", "ok", "resolve")])
def test_events_v2_payloads(type_, state, action, redis_server, httpserver, enqueue, burst, real_r, real_s):
    httpserver.expect_request("/v2/enqueue", method="POST").respond_with_json(
        {"status": "success", "dedup_key": "foo:ping"}, status=202)
    config = pd_config(redis_server, httpserver)
    alert = enqueue(config, media="pagerduty", address=KEY, type=type_, notification_type=type_, state=state,
                    duration=3600 if type_ == "acknowledgement" else None)
    burst("pagerduty", config)
    [body] = bodies(httpserver, "/v2/enqueue")
    assert body["routing_key"] == KEY and body["dedup_key"] == "foo:ping" and body["event_action"] == action
    payload = body["payload"]
    assert payload["summary"] == alert["body"] and payload["source"] == "foo"
    assert payload["severity"] == ("critical" if state == "critical" else "info")
    assert payload["custom_details"]["HOSTNAME"] == "foo" and payload["custom_details"]["SERVICE"] == "ping"
    assert status_of(real_s, alert["id"])["status"] == "delivered"
    if type_ == "acknowledgement":
        assert alert["body"] == ('Acknowledgement: "ping" on foo has been acknowledged, unscheduled maintenance '
                                 'created for 1 hour, 100% packet loss')


def test_events_v1_payload(redis_server, httpserver, enqueue, burst, real_r, real_s):
    httpserver.expect_request(pagerduty.V1_PATH, method="POST").respond_with_json({"status": "success"})
    config = pd_config(redis_server, httpserver, events_api="v1")
    alert = enqueue(config, media="pagerduty", address=KEY)
    burst("pagerduty", config)
    [body] = bodies(httpserver, pagerduty.V1_PATH)
    assert body == {"service_key": KEY, "incident_key": "foo:ping", "event_type": "trigger",
                    "description": 'Problem: "ping" on foo is Critical, 100% packet loss',
                    "details": {"HOSTNAME": "foo", "SERVICE": "ping"}}
    assert status_of(real_s, alert["id"])["status"] == "delivered"


def test_retries_on_429_and_500_honouring_retry_after(redis_server, httpserver, enqueue, burst, real_r, real_s):
    times = []

    def handler(request):
        times.append(time.monotonic())
        if len(times) == 1:
            return Response("slow down", status=429, headers={"Retry-After": "1"})
        if len(times) == 2:
            return Response("oops", status=500)
        return Response(json.dumps({"status": "success"}), status=202, content_type="application/json")

    httpserver.expect_request("/v2/enqueue").respond_with_handler(handler)
    config = pd_config(redis_server, httpserver, retries=3, retry_intervals=[0])
    alert = enqueue(config, media="pagerduty", address=KEY)
    burst("pagerduty", config)
    assert len(times) == 3
    assert times[1] - times[0] >= 0.9  # Retry-After: 1 stretched the 0 s interval
    assert status_of(real_s, alert["id"])["status"] == "delivered"


def test_4xx_fails_without_retry(redis_server, httpserver, enqueue, burst, real_r, real_s):
    httpserver.expect_request("/v2/enqueue").respond_with_json({"status": "invalid event"}, status=400)
    config = pd_config(redis_server, httpserver)
    alert = enqueue(config, media="pagerduty", address=KEY)
    burst("pagerduty", config)
    assert len(httpserver.log) == 1
    record = status_of(real_s, alert["id"])
    assert record["status"] == "failed" and "HTTP 400" in record["error"]


def failing_check_with_pagerduty_contact(client, token="tok-123"):
    """A failing check foo:ping whose contact has PagerDuty credentials."""
    contact_store.create_contact(client, {"id": "c1", "first_name": "Ada", "last_name": "L", "email": "a@x"})
    media_store.set_pagerduty_credentials(client, "c1", {"service_key": KEY, "subdomain": "acme",
                                                           "token": token})
    client.hset(keys.entity_ids_by_name(), "foo", "e1")
    client.hset(keys.entity_names_by_id(), "e1", "foo")
    client.sadd(keys.contacts_for("e1"), "c1")
    client.zadd(keys.failed_checks(), {"foo:ping": 1})


def test_ack_sync_queues_an_ack_event(redis_server, httpserver, real_r, real_s):
    failing_check_with_pagerduty_contact(real_s)
    httpserver.expect_request("/incidents", method="GET").respond_with_json(
        {"incidents": [{"id": "P1", "status": "acknowledged", "last_status_change_by": {"summary": "Grace H"}}]})
    gateway = open_gateway("pagerduty", pd_config(redis_server, httpserver))
    assert gateway.poll(real_s) == 1
    [(request, _)] = httpserver.log
    assert request.headers["Authorization"] == "Token token=tok-123"
    assert request.args["incident_key"] == "foo:ping" and request.args.getlist("statuses[]") == ["acknowledged"]
    assert request.args["since"].endswith("Z") and request.args["until"].endswith("Z")
    event = json.loads(real_r.rpop(keys.events()))
    assert event["type"] == "action" and event["state"] == "acknowledgement"
    assert (event["entity"], event["check"]) == ("foo", "ping")
    assert event["summary"] == "Acknowledged on PagerDuty by Grace H" and event["duration"] == 14400
    assert not real_r.exists(keys.pagerduty_acks_running())


def test_ack_sync_skips_while_semaphore_held_and_when_nothing_acknowledged(redis_server, httpserver, real_r, real_s):
    failing_check_with_pagerduty_contact(real_s)
    httpserver.expect_request("/incidents").respond_with_json({"incidents": []})
    gateway = open_gateway("pagerduty", pd_config(redis_server, httpserver))
    real_r.set(keys.pagerduty_acks_running(), "true", ex=60)
    assert gateway.poll(real_s) == 0 and len(httpserver.log) == 0
    real_r.delete(keys.pagerduty_acks_running())
    assert gateway.poll(real_s) == 0 and len(httpserver.log) == 1
    assert real_r.llen(keys.events()) == 0


def test_ack_sync_then_drain_puts_the_check_in_unscheduled_maintenance(redis_server, httpserver, real_r, real_s):
    from flapjack_py.executive import Executive
    from flapjack_py.store import maintenance as maint
    from flapjack_py.store.events import push_event

    cfg = {"redis": {"url": redis_server.url},
           "executive": {"new_check_scheduled_maintenance_duration": 0, "initial_failure_delay": 0}}
    push_event(real_s, {"type": "service", "state": "critical", "entity": "foo", "check": "ping",
                        "summary": "down", "time": int(time.time())})
    Executive(real_r, cfg).drain()
    failing_check_with_pagerduty_contact(real_s)
    assert maint.in_force(real_s, "foo", "ping", maint.UNSCHEDULED) is None
    httpserver.expect_request("/incidents").respond_with_json(
        {"incidents": [{"id": "P1", "status": "acknowledged", "last_status_change_by": {"summary": "Grace H"}}]})
    assert open_gateway("pagerduty", pd_config(redis_server, httpserver)).poll(real_s) == 1
    Executive(real_r, cfg).drain()
    assert maint.in_force(real_s, "foo", "ping", maint.UNSCHEDULED) is not None
    assert 14000 < maint.remaining(real_s, "foo", "ping", maint.UNSCHEDULED) <= 14400
