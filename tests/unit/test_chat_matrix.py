"""Matrix message shapes and command reading (flapjack_py.chat.matrix), Slack request signing
(flapjack_py.chat.slack): pure, no server."""

from __future__ import annotations

import pytest

from flapjack_py.chat import matrix, slack
from flapjack_py.chat.matrix import Command, command_of


@pytest.mark.parametrize(("body", "expected"), [
    ("ack 10m looking", Command("ack", "10m", "looking")),
    ("ACK", Command("ack")),
    ("ack looking into it", Command("ack", "", "looking into it")),
    ("> <@flapjack:hs> Problem: ...\n\nack 2h", Command("ack", "2h", "")),
    ("maint 1h deploy", Command("maint", "1h", "deploy")),
    ("status", Command("status")),
    ("help me", Command("help")),
    ("hello there", None),
    ("", None),
])
def test_command_of(body, expected):
    assert command_of(body) == expected


def test_related_event_is_the_thread_root_else_the_replied_event():
    thread = matrix.thread_content("$root", "hi")
    assert matrix.related_event(thread) == "$root"
    assert matrix.related_event({"m.relates_to": {"m.in_reply_to": {"event_id": "$a"}}}) == "$a"
    assert matrix.related_event({"body": "x"}) is None


@pytest.mark.parametrize(("key", "acks"), [("✅", True), ("👍", True), ("👍\ufe0f", True), ("👎", False)])
def test_only_acknowledging_reactions_count(key, acks):
    content = {"m.relates_to": {"rel_type": "m.annotation", "event_id": "$e", "key": key}}
    assert matrix.reaction_target(content) == ("$e" if acks else None)


def test_alert_content_names_check_state_summary_and_ack_code_in_html_escaped():
    content = matrix.alert_content({"type": "problem", "check": "web<1>:http", "state": "critical",
                                    "summary": "<b>down</b>", "body": "Problem: http on web<1>", "ack_code": "K7Q2M"})
    assert content["body"].endswith("ack code: K7Q2M")
    html = content["formatted_body"]
    assert "web&lt;1&gt;:http" in html and "CRITICAL" in html and "&lt;b&gt;down&lt;/b&gt;" in html and "K7Q2M" in html


def test_slack_signature_is_checked_and_refused_when_stale_or_wrong():
    body = b"payload=%7B%7D"
    signed = slack.signature("secret", "1700000000", body)
    assert signed.startswith("v0=") and len(signed) == 67
    assert slack.signature_problem("secret", "1700000000", signed, body, 1700000100) is None
    assert "5 minutes" in (slack.signature_problem("secret", "1700000000", signed, body, 1700000301) or "")
    assert "does not match" in (slack.signature_problem("other", "1700000000", signed, body, 1700000000) or "")
    assert "does not match" in (slack.signature_problem("secret", "1700000000", signed, body + b"x", 1700000000) or "")
    assert slack.signature_problem("secret", None, signed, body, 0) is not None


def test_code_command_reads_code_duration_and_message():
    assert matrix.code_command(command_of("ack K7Q2M 10m rebooting")) == ("K7Q2M", "10m", "rebooting")
    assert matrix.code_command(command_of("ack K7Q2M")) == ("K7Q2M", "", "")
    assert matrix.code_command(command_of("ack 10m looking")) is None  # a thread's ack, no code
    assert matrix.code_command(command_of("status foo:ping")) is None


def test_bot_acts_only_on_its_alerts_for_allowed_users(s):
    from flapjack_py import keys
    from flapjack_py.store import chat
    from flapjack_py.store.chat import ChatMessage
    from gateways.matrix_bot import REFUSAL, MatrixBot

    bot = MatrixBot(s, frozenset({"@alice:hs"}))
    chat.remember(s, ChatMessage("matrix", "!r:hs", "$alert", "foo:ping", "a1"), thread_of="!r:hs")
    assert bot.command("!r:hs", "@alice:hs", "$other", Command("ack"), 1000) is None  # not an alert of ours
    assert bot.command("!r:hs", "@mallory:hs", "$alert", Command("ack"), 1000) == REFUSAL
    assert bot.reaction("!r:hs", "@mallory:hs", "$alert", 1000) == REFUSAL
    assert s.llen(keys.events()) == 0
    assert "cannot read the duration" in (bot.command("!r:hs", "@alice:hs", "$alert", Command("ack", "9q"), 1000)
                                          or "")
    assert bot.command("!r:hs", "@alice:hs", "$alert", Command("maint"), 1000).startswith("maint needs a duration")
    assert s.llen(keys.events()) == 0
    answer = bot.command("!r:hs", "@alice:hs", "$alert", Command("maint", "2h", "deploy"), 1000)
    assert answer == "scheduled maintenance of foo:ping for 2 hours"
    assert bot.reaction("!r:hs", "@alice:hs", "$alert", 1000) == "acknowledging foo:ping for 4 hours"
    assert s.llen(keys.events()) == 1
