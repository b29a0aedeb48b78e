"""The slack gateway in app mode against a local HTTP server standing in for Slack's Web API: a problem is posted
with chat.postMessage and its buttons, remembered with the alert; an acknowledgement or recovery of the check
updates that message with chat.update; Slack's refusals fail or retry the alert."""

from __future__ import annotations

import json

import pytest

from flapjack_py.store import chat

from .conftest import gateway_config, status_of

SLACK = {"bot_token": "xoxb-test-token-1", "signing_secret": "shh-signing-1", "channel": "C0DEFAULT",
         "web_url": "https://flapjack.example.org/"}


def slack_config(redis_url, httpserver):
    return gateway_config(redis_url, "slack", api_url=httpserver.url_for("/api"), **SLACK)


def calls(httpserver, method):
    return [json.loads(request.get_data()) for request, _ in httpserver.log if request.path == f"/api/{method}"]


def test_problem_posted_with_buttons_then_updated_on_acknowledgement_and_recovery(
        redis_server, httpserver, enqueue, burst, real_s):
    httpserver.expect_request("/api/chat.postMessage", method="POST").respond_with_json(
        {"ok": True, "channel": "C0123", "ts": "1700000000.000100"})
    httpserver.expect_request("/api/chat.update", method="POST").respond_with_json({"ok": True})
    config = slack_config(redis_server.url, httpserver)

    problem = enqueue(config, media="slack", address="#ops", check="foo:ping")
    assert burst("slack", config) == 0
    [posted] = calls(httpserver, "chat.postMessage")
    request = httpserver.log[0][0]
    assert request.headers["Authorization"] == "Bearer xoxb-test-token-1"
    assert posted["channel"] == "ops" and "ping" in posted["text"]
    [text, buttons] = posted["blocks"]
    assert text["type"] == "section" and "ping" in text["text"]["text"]
    labels = [b["text"]["text"] for b in buttons["elements"]]
    assert labels == ["Acknowledge", "Acknowledge 4h", "Open check"]
    assert buttons["elements"][0]["value"] == "foo:ping"
    assert buttons["elements"][2]["url"] == "https://flapjack.example.org/checks/foo/ping"
    assert status_of(real_s, problem["id"])["status"] == "delivered"
    remembered = chat.find(real_s, "slack", "C0123", "1700000000.000100")
    assert remembered is not None and (remembered.check, remembered.alert_id) == ("foo:ping", problem["id"])

    enqueue(config, media="slack", address="#ops", check="foo:ping", type="acknowledgement",
            notification_type="acknowledgement", actor="slack:U0ALICE", channel="slack", summary="on it")
    burst("slack", config)
    [acked] = calls(httpserver, "chat.update")
    assert (acked["channel"], acked["ts"]) == ("C0123", "1700000000.000100")
    assert [b["type"] for b in acked["blocks"]] == ["section", "context"]
    assert acked["blocks"][1]["elements"][0]["text"] == "Acknowledged by <@U0ALICE>: on it"

    enqueue(config, media="slack", address="#ops", check="foo:ping", type="recovery", state="ok",
            notification_type="recovery")
    burst("slack", config)
    recovered = calls(httpserver, "chat.update")[-1]
    assert recovered["ts"] == "1700000000.000100" and "Recovered" in recovered["blocks"][1]["elements"][0]["text"]
    assert len(calls(httpserver, "chat.postMessage")) == 1


def test_slack_refusal_fails_and_rate_limit_retries(redis_server, httpserver, enqueue, burst, real_s):
    httpserver.expect_request("/api/chat.postMessage").respond_with_json({"ok": False, "error": "channel_not_found"})
    config = slack_config(redis_server.url, httpserver)
    refused = enqueue(config, media="slack", address="#nowhere")
    burst("slack", config)
    record = status_of(real_s, refused["id"])
    assert record["status"] == "failed" and "channel_not_found" in record["error"]
    assert "xoxb-test-token-1" not in record["error"]

    httpserver.clear()
    httpserver.expect_ordered_request("/api/chat.postMessage").respond_with_json({"ok": False, "error": "ratelimited"})
    httpserver.expect_ordered_request("/api/chat.postMessage").respond_with_json({"ok": True, "channel": "C9",
                                                                                  "ts": "2.3"})
    limited = enqueue(config, media="slack", address="#ops")
    burst("slack", config)
    assert len(calls(httpserver, "chat.postMessage")) == 2
    assert status_of(real_s, limited["id"])["status"] == "delivered"


@pytest.mark.parametrize(("channel", "expected"), [("C0DEFAULT", "C0DEFAULT"), (None, "U0ADA")])
def test_a_user_id_address_goes_to_the_channel_mentioning_them(redis_server, httpserver, enqueue, burst, channel,
                                                               expected):
    httpserver.expect_request("/api/chat.postMessage").respond_with_json({"ok": True, "channel": "C1", "ts": "1.2"})
    config = gateway_config(redis_server.url, "slack", api_url=httpserver.url_for("/api"),
                            **{**SLACK, "channel": channel})
    enqueue(config, media="slack", address="U0ADA")
    burst("slack", config)
    [posted] = calls(httpserver, "chat.postMessage")
    assert posted["channel"] == expected
    assert posted["text"].startswith("<@U0ADA> ") == (channel is not None)
