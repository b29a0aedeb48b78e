"""The mattermost gateway against a local HTTP server standing in for Mattermost: an incoming webhook gets the alert
with its "Acknowledge" buttons (their context carrying the action token and the check); through API v4 with a bot
token the post's id is remembered and an acknowledgement or recovery edits that post."""

from __future__ import annotations

import json

from flapjack_py.store import chat

from .conftest import gateway_config, status_of

ACTIONS_URL = "https://flapjack.example.org/api/receivers/mattermost/actions"


def bodies(httpserver, path):
    return [(r.method, json.loads(r.get_data())) for r, _ in httpserver.log if r.path == path]


def test_webhook_gets_the_alert_with_buttons(redis_server, httpserver, enqueue, burst, real_s):
    httpserver.expect_request("/hooks/abc", method="POST").respond_with_data("ok")
    config = gateway_config(redis_server.url, "mattermost", url=httpserver.url_for("/hooks/abc"),
                            action_token="tok-1", actions_url=ACTIONS_URL)
    problem = enqueue(config, media="mattermost", address="town-square")
    burst("mattermost", config)
    [(_, posted)] = bodies(httpserver, "/hooks/abc")
    assert posted["channel"] == "town-square" and posted["username"] == "flapjack"
    [attachment] = posted["attachments"]
    assert "ping" in attachment["text"] and attachment["color"] == "#d00000"
    assert [a["name"] for a in attachment["actions"]] == ["Acknowledge", "Acknowledge 4h"]
    assert attachment["actions"][1]["integration"] == {
        "url": ACTIONS_URL, "context": {"token": "tok-1", "check": "foo:ping", "action": "ack4h"}}
    assert status_of(real_s, problem["id"])["status"] == "delivered"

    enqueue(config, media="mattermost", address="town-square", type="recovery", state="ok",
            notification_type="recovery")
    burst("mattermost", config)
    recovery = bodies(httpserver, "/hooks/abc")[-1][1]
    assert "actions" not in recovery["attachments"][0]  # no buttons on anything but a problem


def test_api_mode_posts_then_edits_the_post(redis_server, httpserver, enqueue, burst, real_s):
    httpserver.expect_request("/api/v4/posts", method="POST").respond_with_json({"id": "post1"}, status=201)
    httpserver.expect_request("/api/v4/posts/post1/patch", method="PUT").respond_with_json({"id": "post1"})
    config = gateway_config(redis_server.url, "mattermost", url=httpserver.url_for("/"), bot_token="bot-tok-1",
                            action_token="tok-1", actions_url=ACTIONS_URL)
    enqueue(config, media="mattermost", address="chan1")
    burst("mattermost", config)
    [(_, posted)] = bodies(httpserver, "/api/v4/posts")
    assert posted["channel_id"] == "chan1" and posted["props"]["attachments"][0]["actions"]
    assert httpserver.log[0][0].headers["Authorization"] == "Bearer bot-tok-1"
    assert chat.find(real_s, "mattermost", "chan1", "post1").check == "foo:ping"

    enqueue(config, media="mattermost", address="chan1", type="acknowledgement",
            notification_type="acknowledgement", actor="mattermost:u1", channel="mattermost")
    burst("mattermost", config)
    [(method, patch)] = bodies(httpserver, "/api/v4/posts/post1/patch")
    assert method == "PUT" and patch["message"] == "foo:ping: acknowledged by mattermost:u1"
    assert "actions" not in patch["props"]["attachments"][0]
    assert len(bodies(httpserver, "/api/v4/posts")) == 1


def test_refusal_fails_without_leaking_the_token(redis_server, httpserver, enqueue, burst, real_s):
    httpserver.expect_request("/api/v4/posts").respond_with_json({"message": "bad channel"}, status=403)
    config = gateway_config(redis_server.url, "mattermost", url=httpserver.url_for("/"), bot_token="bot-tok-1")
    alert = enqueue(config, media="mattermost", address="nowhere")
    burst("mattermost", config)
    record = status_of(real_s, alert["id"])
    assert record["status"] == "failed" and "403" in record["error"] and "bot-tok-1" not in record["error"]
