"""Chat buttons: POST /api/receivers/slack/interactions (payloads signed as Slack signs them) and
POST /api/receivers/mattermost/actions, with a local HTTP server standing in for Slack's Web API.

A valid press acknowledges through the one action path (an acknowledgement event with the actor) and updates
the message; a bad or stale signature, a wrong action token or a user who may not act queues nothing."""

from __future__ import annotations

import json
import time
from urllib.parse import urlencode

import pytest

from flapjack_py import keys
from flapjack_py.chat.slack import signature
from flapjack_py.store import chat, contacts, media
from flapjack_py.store.chat import ChatMessage
from web import create_app

SECRET = "8f742231b10e8888abcd99yyyzzz85a5"
TOKEN = "mm-action-token-1"


@pytest.fixture
def app(real_r, httpserver):
    httpserver.expect_request("/api/chat.update", method="POST").respond_with_json({"ok": True})
    return create_app(redis=real_r, config={"gateways": {
        "slack": {"enabled": True, "bot_token": "xoxb-1", "signing_secret": SECRET,
                  "api_url": httpserver.url_for("/api"), "allowed_users": ["U0ALICE"]},
        "mattermost": {"enabled": True, "url": "http://127.0.0.1:9/hooks/x", "action_token": TOKEN,
                       "allowed_users": ["mm-alice"]}}})


def queued(real_s):
    return [json.loads(e) for e in real_s.lrange(keys.events(), 0, -1)]


def updates(httpserver):
    return [json.loads(r.get_data()) for r, _ in httpserver.log if r.path == "/api/chat.update"]


def press(user="U0ALICE", action="flapjack_ack_4h"):
    return {"type": "block_actions", "user": {"id": user, "username": "alice"},
            "container": {"type": "message", "channel_id": "C0123", "message_ts": "1700000000.000100"},
            "message": {"ts": "1700000000.000100", "text": "Problem: ping on foo",
                        "blocks": [{"type": "section", "text": {"type": "mrkdwn", "text": "Problem: ping on foo"}}]},
            "actions": [{"action_id": action, "value": "foo:ping", "type": "button"}]}


def post_slack(client, payload, *, secret=SECRET, timestamp=None, tamper=False):
    body = urlencode({"payload": json.dumps(payload)}).encode()
    stamp = str(int(time.time()) if timestamp is None else timestamp)
    sig = signature(secret, stamp, body)
    return client.post("/api/receivers/slack/interactions", data=body + (b"x" if tamper else b""),
                       content_type="application/x-www-form-urlencoded",
                       headers={"X-Slack-Request-Timestamp": stamp, "X-Slack-Signature": sig})


@pytest.fixture
def posted(real_s):
    chat.remember(real_s, ChatMessage("slack", "C0123", "1700000000.000100", "foo:ping", "a1"), thread_of="#ops")


def test_valid_press_acknowledges_as_the_slack_user_and_updates_the_message(client, real_s, httpserver, posted):
    answer = post_slack(client, press())
    assert answer.status_code == 200, answer.get_data()
    assert answer.json == {"acknowledged": "foo:ping", "duration": 4 * 3600}
    [event] = queued(real_s)
    assert (event["type"], event["entity"], event["check"]) == ("action", "foo", "ping")
    assert (event["state"], event["actor"], event["channel"]) == ("acknowledgement", "slack:U0ALICE", "slack")
    assert event["duration"] == 4 * 3600
    [update] = updates(httpserver)
    assert (update["channel"], update["ts"]) == ("C0123", "1700000000.000100")
    assert [b["type"] for b in update["blocks"]] == ["section", "context"]  # the buttons are gone
    assert update["blocks"][0]["text"]["text"] == "Problem: ping on foo"
    assert update["blocks"][1]["elements"][0]["text"] == "Acknowledged by <@U0ALICE>"
    assert httpserver.log[0][0].headers["Authorization"] == "Bearer xoxb-1"


@pytest.mark.parametrize("how", ["tampered body", "other secret", "no signature"])
def test_bad_signature_is_401_and_queues_nothing(client, real_s, httpserver, posted, how):
    if how == "no signature":
        answer = client.post("/api/receivers/slack/interactions", data=urlencode({"payload": "{}"}),
                             content_type="application/x-www-form-urlencoded")
    else:
        answer = post_slack(client, press(), tamper=how == "tampered body",
                            secret="wrong" if how == "other secret" else SECRET)
    assert answer.status_code == 401
    assert "X-Slack" in answer.json["errors"][0]
    assert queued(real_s) == [] and updates(httpserver) == []


def test_stale_timestamp_is_401_even_when_signed(client, real_s, httpserver, posted):
    answer = post_slack(client, press(), timestamp=int(time.time()) - 6 * 60)
    assert answer.status_code == 401 and "5 minutes" in answer.json["errors"][0]
    assert queued(real_s) == [] and updates(httpserver) == []


def test_unknown_user_is_refused_until_set_as_a_contacts_slack_address(client, real_s, httpserver, posted):
    answer = post_slack(client, press(user="U0MALLORY"))
    assert answer.status_code == 403 and "U0MALLORY" in answer.json["errors"][0]
    assert queued(real_s) == [] and updates(httpserver) == []

    contact = contacts.create_contact(real_s, {"first_name": "Mal", "last_name": "Lory"})
    media.set_medium(real_s, contact, "slack", "U0MALLORY")
    assert post_slack(client, press(user="U0MALLORY", action="flapjack_ack")).status_code == 200
    [event] = queued(real_s)
    assert event["actor"] == "slack:U0MALLORY" and event["duration"] == 4 * 3600  # the default


def test_other_interactions_are_ignored(client, real_s, posted):
    answer = post_slack(client, {"type": "view_submission", "user": {"id": "U0ALICE"}})
    assert answer.status_code == 200 and queued(real_s) == []


def test_slack_not_configured_is_404(real_r):
    bare = create_app(redis=real_r, config={}).test_client()
    answer = bare.post("/api/receivers/slack/interactions", data="payload={}",
                       content_type="application/x-www-form-urlencoded")
    assert answer.status_code == 404


def mattermost(client, token=TOKEN, user="mm-alice-id", name="mm-alice", action="ack"):
    return client.post("/api/receivers/mattermost/actions", json={
        "user_id": user, "user_name": name, "channel_id": "ch1", "post_id": "p1", "type": "",
        "context": {"token": token, "check": "foo:ping", "action": action}})


def test_mattermost_press_acknowledges_and_answers_the_update(client, real_s):
    answer = mattermost(client, action="ack4h")
    assert answer.status_code == 200 and answer.content_type == "application/json"
    assert answer.json["update"]["message"] == "foo:ping: acknowledged by @mm-alice"
    [event] = queued(real_s)
    assert (event["actor"], event["channel"], event["duration"]) == ("mattermost:mm-alice-id", "mattermost", 14400)


def test_mattermost_wrong_token_is_401_and_queues_nothing(client, real_s):
    for token in ("nope", ""):
        assert mattermost(client, token=token).status_code == 401
    assert client.post("/api/receivers/mattermost/actions", json={"user_id": "x"}).status_code == 401
    assert queued(real_s) == []


def test_mattermost_stranger_is_403_and_queues_nothing(client, real_s):
    answer = mattermost(client, user="mm-bob-id", name="bob")
    assert answer.status_code == 403 and queued(real_s) == []
