"""The chat bot's commands (engine.md 6.3 table) against fakeredis, no XMPP."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

import pytest
import redis

from flapjack_py import keys
from flapjack_py.executive import Executive
from flapjack_py.notify.render import ack_hash
from flapjack_py.store import maintenance as maint_store
from flapjack_py.store.plumbing.client import StrRedis
from gateways.jabber_bot import Bot, BotSettings, command_in_chat, command_in_room, split_options, strip_html

NOW = 1_700_000_000
FROM = "ops@conference.localhost/alice"
CFG = {"executive": {"new_check_scheduled_maintenance_duration": 0}}


def service_event(entity: str, check: str, state: str, **over: Any) -> dict[str, Any]:
    return {"type": "service", "entity": entity, "check": check, "state": state, "summary": f"{check} {state}", **over}


@pytest.fixture
def world(r: redis.Redis) -> redis.Redis:
    """foo (ping critical, http ok), bar (disk warning), baz (no current checks)."""
    events = [service_event("foo", "ping", "critical"), service_event("foo", "http", "ok"),
              service_event("bar", "disk", "warning"), service_event("baz", "old", "ok")]
    for event in events:
        r.lpush(keys.events(), json.dumps(event))
    Executive(r, CFG).drain()
    r.zrem(keys.current_checks("baz"), "old")
    return r


@pytest.fixture
def bot(world: redis.Redis, s: StrRedis) -> Bot:
    return Bot(s, BotSettings(boot_time=NOW), clock=lambda: NOW)


@pytest.fixture
def queued(world: redis.Redis) -> Callable[[], list[dict[str, Any]]]:
    """The events the bot queued, oldest first (and empties the queue)."""
    def _queued() -> list[dict[str, Any]]:
        raw = world.lrange(keys.events(), 0, -1)
        world.delete(keys.events())
        return [json.loads(e) for e in reversed(raw)]
    return _queued


# --- picking the command -------------------------------------------------------


def test_room_commands_need_an_identifier() -> None:
    ids = ("flapjack", "fj")
    assert command_in_room("flapjack: help", ids) == "help"
    assert command_in_room("FJ help", ids) == "help"
    assert command_in_room("flapjack:help", ids) == "help"
    assert command_in_room("hello flapjack: help", ids) is None
    assert command_in_room("flapjackery", ids) is None


def test_chat_strips_a_leading_flapjack() -> None:
    assert command_in_chat("flapjack: ACKID 1a2b looking") == "ACKID 1a2b looking"
    assert command_in_chat("help") == "help"


def test_html_is_stripped() -> None:
    assert strip_html("<p><b>flapjack:</b> help</p>") == "flapjack: help"
    assert command_in_chat("<body><p>help</p></body>") == "help"


def test_options_are_split_from_the_comment() -> None:
    assert split_options("AL looking duration: 2 hours", ("duration",)) == ("AL looking", {"duration": "2 hours"})
    assert split_options("x start-at: tomorrow 9am duration: 1h", ("start-at", "duration")) == (
        "x", {"start-at": "tomorrow 9am", "duration": "1h"})
    assert split_options("", ("duration",)) == ("", {})


# --- 1 ACKID -----------------------------------------------------------------------


def test_ackid_queues_an_acknowledgement(bot: Bot, queued: Callable[[], list[dict[str, Any]]]) -> None:
    hash_ = ack_hash("foo:ping")
    assert bot.reply(f"ACKID {hash_} AL looking duration: 2 hours", FROM) == f"ACKing ping on foo ({hash_})"
    assert queued() == [{"type": "action", "state": "acknowledgement", "entity": "foo", "check": "ping",
                         "summary": "AL looking", "duration": 7200, "time": NOW, "acknowledgement_id": hash_,
                         "actor": f"jabber:{FROM}", "channel": "jabber"}]


def test_ackid_is_case_insensitive_and_defaults_to_four_hours(bot: Bot, queued: Callable[[], list[Any]]) -> None:
    hash_ = ack_hash("foo:ping").upper()
    assert bot.reply(f"ackid {hash_} looking", FROM) == f"ACKing ping on foo ({hash_})"
    assert queued()[0]["duration"] == 14400


def test_ackid_again_changes_the_ack(bot: Bot, s: StrRedis) -> None:
    hash_ = ack_hash("foo:ping")
    maint_store.create_unscheduled(s, "foo", "ping", NOW, 3600, "x", NOW)
    assert bot.reply(f"ACKID {hash_} still looking", FROM) == f"Changing ACK for ping on foo ({hash_})"


def test_ackid_unknown_and_without_comment(bot: Bot, queued: Callable[[], list[Any]]) -> None:
    assert bot.reply("ACKID deadbeef looking", FROM) == "ERROR - couldn't ACK deadbeef - not found"
    assert bot.reply("ACKID deadbeef", FROM) == (
        "ERROR - couldn't ACK deadbeef - please provide a comment, eg \"flapjack: ACKID deadbeef AL looking\"")
    assert bot.reply("ACKID deadbeef duration: 1 hour", FROM).endswith("please provide a comment, "
                                                                       "eg \"flapjack: ACKID deadbeef AL looking\"")
    assert queued() == []


# --- 2, 3 help, identify --------------------------------------------------------------


def test_help_lists_every_command(bot: Bot) -> None:
    text = bot.reply("HELP", FROM)
    for command in ("ACKID", "identify", "test notifications for", "tell me about", "find checks",
                    "find entities", "ack entities", "maint entities", "status entities", "ack checks",
                    "status checks"):
        assert command in text


def test_identify(bot: Bot) -> None:
    lines = bot.reply("identify", FROM).split("\n")
    assert re.fullmatch(r"Flapjack \S+ process \d+ on \S+", lines[0])
    assert lines[1] == "Identifiers: flapjack"
    assert lines[2].startswith("Boot time: ")
    assert lines[3].startswith("User CPU Time: ") and lines[4].startswith("System CPU Time: ")


# --- 4, 5 test notifications, tell me about ------------------------------------------------


def test_test_notifications(bot: Bot, queued: Callable[[], list[dict[str, Any]]]) -> None:
    assert bot.reply("test notifications for foo", FROM) == (
        "so you want me to test notifications for entity: foo, check: test eh? ... well OK!")
    assert bot.reply("Test Notifications for foo:ping", FROM).endswith("entity: foo, check: ping eh? ... well OK!")
    events = queued()
    assert [e["check"] for e in events] == ["test", "ping"]
    assert events[0]["state"] == "test_notifications" and events[0]["type"] == "action"
    assert events[0]["summary"] == "Testing notifications to all contacts interested in entity: foo, check: test"
    assert bot.reply("test notifications for nope", FROM) == "yeah, no I can't see nope in my systems"
    assert queued() == []


def test_tell_me_about(bot: Bot, s: StrRedis) -> None:
    maint_store.create_unscheduled(s, "foo", "ping", NOW, 7200, "x", NOW)
    text = bot.reply("tell me about foo", FROM)
    lines = text.split("\n")
    assert lines[0] == "so you'd like details on entity: foo hmm? ... OK!"
    assert lines[1:4] == ["---", "foo:http", "Not in scheduled or unscheduled maintenance."]
    assert lines[4:7] == ["---", "foo:ping", "Not in scheduled maintenance."]
    assert re.fullmatch(r"In unscheduled maintenance: .+ -> .+ \(2 hours remaining\)", lines[7])
    assert bot.reply("tell me about foo:http", FROM) == (
        "so you'd like details on entity: foo, check: http hmm? ... OK!\nNot in scheduled or unscheduled maintenance.")
    assert bot.reply("tell me about baz", FROM) == (
        "so you'd like details on entity: baz hmm? ... OK!\nI couldn't find any checks for entity: baz")
    assert bot.reply("tell me about nope", FROM) == "hmmm, I can't see nope in my systems"


# --- 6, 7 find ------------------------------------------------------------------------


def test_find_checks_on_an_entity(bot: Bot) -> None:
    assert bot.reply("find checks on foo", FROM) == "Entity: foo\nChecks: http, ping\n----"
    assert bot.reply("checks matching /pi/ on foo", FROM) == "Entity: foo\nChecks: ping\n----"
    assert bot.reply("find checks on baz", FROM) == "Entity: baz has no checks\n----"
    assert bot.reply("find checks on nope", FROM) == "found no entity for 'nope'"


def test_find_checks_on_entities_matching(bot: Bot) -> None:
    assert bot.reply("find checks on entities matching /^ba/", FROM) == (
        "found 2 entities matching /^ba/ ... \nEntity: bar\nChecks: disk\n----\nEntity: baz has no checks\n----")
    assert bot.reply("find checks on entities matching /zzz/", FROM) == "found no entities matching /zzz/"
    assert bot.reply("find checks on entities matching /(/", FROM) == "that doesn't seem to be a valid pattern - /(/"


def test_find_entities(bot: Bot) -> None:
    assert bot.reply("find entities matching /^ba/", FROM) == "found 2 entities matching /^ba/ ... \nbar, baz"
    assert bot.reply("entities matching /foo/", FROM) == "found 1 entity matching /foo/ ... \nfoo"
    assert bot.reply("find entities matching /zzz/", FROM) == "found no entities matching /zzz/"
    assert bot.reply("find entities matching /[/", FROM) == "that doesn't seem to be a valid pattern - /[/"


def test_find_entities_shows_at_most_30(r: redis.Redis, s: StrRedis) -> None:
    for i in range(35):
        r.lpush(keys.events(), json.dumps(service_event(f"host{i:02d}", "ping", "ok")))
    Executive(r, CFG).drain()
    text = Bot(s, BotSettings()).reply("find entities matching /host/", FROM)
    header, names = text.split("\n")
    assert header == "showing first 30 of 35 entities found matching /host/"
    assert len(names.split(", ")) == 30


# --- 8, 9, 10 ack / maint / status entities -------------------------------------------------


def test_ack_entities(bot: Bot, queued: Callable[[], list[dict[str, Any]]]) -> None:
    assert bot.reply("ack entities /^(foo|bar)$/ on it duration: 30 minutes", FROM) == "Ack list:\nbar:disk\nfoo:ping"
    events = queued()
    assert [(e["entity"], e["check"], e["summary"], e["duration"]) for e in events] == [
        ("bar", "disk", f"{FROM}: on it", 1800), ("foo", "ping", f"{FROM}: on it", 1800)]
    assert bot.reply("entities /foo/", FROM) == "Ack list:\nfoo:ping"
    assert queued()[0]["summary"] == f"{FROM}: Set via chatbot" and True
    assert bot.reply("ack entities /baz/", FROM) == "found no matching entities with failing checks"
    assert bot.reply("ack entities /zzz/", FROM) == "found no entities matching /zzz/"
    assert bot.reply("ack entities /(/", FROM) == "that doesn't seem to be a valid pattern - /(/"
    assert queued() == []


def test_ack_entities_default_duration_is_one_hour(bot: Bot, queued: Callable[[], list[dict[str, Any]]]) -> None:
    bot.reply("ack entities /foo/ hi", FROM)
    assert queued()[0]["duration"] == 3600


def test_maint_entities(bot: Bot, s: StrRedis) -> None:
    assert bot.reply("maint entities /foo/ upgrade start-in: 1 hour duration: 2 hours", FROM) == (
        "Maint list:\nfoo:http\nfoo:ping")
    windows = maint_store.list_windows(s, "foo", "ping", maint_store.SCHEDULED)
    assert [(w.start, w.duration, w.summary) for w in windows] == [(NOW + 3600, 7200, f"{FROM}: upgrade")]


def test_maint_entities_now_and_start_at(bot: Bot, s: StrRedis) -> None:
    assert bot.reply("maint entities /bar/", FROM) == "Maint list:\nbar:disk"
    assert maint_store.in_force(s, "bar", "disk", maint_store.SCHEDULED) == NOW
    assert bot.reply("maint entities /foo/ start-at: tomorrow 9am", FROM) == "Maint list:\nfoo:http\nfoo:ping"
    (window,) = maint_store.list_windows(s, "foo", "ping", maint_store.SCHEDULED)
    assert NOW < window.start <= NOW + 86400 + 9 * 3600 and window.duration == 3600
    assert bot.reply("maint entities /zzz/", FROM) == "found no entities matching /zzz/"
    assert bot.reply("maint entities /)/", FROM) == "that doesn't seem to be a valid pattern - /)/"


def test_status_entities(bot: Bot) -> None:
    assert bot.reply("status entities /foo|bar/", FROM) == (
        "Status list:\nbar:disk: warning\nfoo:http: ok\nfoo:ping: critical")
    assert bot.reply("status entities /zzz/", FROM) == "found no entities matching /zzz/"
    assert bot.reply("status entities /*/", FROM) == "that doesn't seem to be a valid pattern - /*/"


# --- 11, 12 ack / status checks -----------------------------------------------------------------


def test_ack_checks(bot: Bot, queued: Callable[[], list[dict[str, Any]]]) -> None:
    assert bot.reply("ack checks /ping|http/ on /foo/ restarting duration: 1 day", FROM) == "Ack list:\nfoo:ping"
    (event,) = queued()
    assert (event["summary"], event["duration"]) == (f"{FROM}: restarting", 86400)
    assert bot.reply("checks /http/ on /foo/", FROM) == "found no matching failing checks"
    assert bot.reply("ack checks /ping/ on /zzz/", FROM) == "found no matching failing checks"
    assert bot.reply("ack checks /(/ on /foo/", FROM) == "that doesn't seem to be a valid pattern - /(/"


def test_status_checks(bot: Bot) -> None:
    assert bot.reply("status checks /./", FROM) == "Status list:\nbar:disk: warning\nfoo:http: ok\nfoo:ping: critical"
    assert bot.reply("status checks /ping/ on /foo/", FROM) == "Status list:\nfoo:ping: critical"
    assert bot.reply("status checks /ping/ on /bar/", FROM) == "found no matching checks"
    assert bot.reply("status checks /+/", FROM) == "that doesn't seem to be a valid pattern - /+/"


# --- 13, errors -------------------------------------------------------------------------------


def test_anything_else(bot: Bot) -> None:
    assert bot.reply("make me a sandwich", FROM) == (
        "what do you mean, 'make me a sandwich'? Type 'help' for a list of acceptable commands.")


def test_an_exception_is_reported(bot: Bot, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: Any) -> None:
        raise ConnectionError("redis went away")
    monkeypatch.setattr("flapjack_py.store.checks.check_id_for_hash", broken)
    assert bot.reply("ACKID 1a2b3c4d looking", FROM) == (
        "Oops, something went wrong processing that command (ConnectionError, redis went away)")


# --- settings and back-off of the client ------------------------------------------------------


def test_settings_defaults() -> None:
    from gateways.jabber import JabberSettings
    settings = JabberSettings.from_mapping({"jabberid": "fj@example.com", "password": "pw", "identifiers": ["fj"],
                                            "rooms": ["Ops@conference.example.com"], "allowed_jids": []})
    assert settings.jid.startswith("fj@example.com/") and len(settings.jid) > len("fj@example.com/")
    assert (settings.alias, settings.identifiers, settings.rooms) == ("flapjack", ("fj", "flapjack"),
                                                                     ("ops@conference.example.com",))
    assert settings.allowed_jids == frozenset() and settings.port == 5222  # empty: the bot obeys nobody
    assert JabberSettings.from_mapping({"jabberid": "fj@example.com/res", "password": "pw"}).jid == "fj@example.com/res"


def test_reconnect_backoff() -> None:
    from gateways.jabber import backoff
    assert [backoff(n) for n in (1, 10, 11, 60, 61, 500)] == [2, 2, 10, 10, 60, 60]


def test_chat_patterns_run_in_linear_time_and_re2_rejects_backreferences(bot: Bot, world: redis.Redis) -> None:
    world.hset(keys.entity_names_by_id(), "id-a", "a" * 40 + "!")  # (a+)+$ would backtrack for days with re

    assert bot.reply("find entities matching /(a+)+$/", FROM) == "found no entities matching /(a+)+$/"
    assert bot.reply("status entities /(f)\\1/", FROM) == "that doesn't seem to be a valid pattern - /(f)\\1/"
    assert bot.reply("status entities /" + "x" * 3000 + "/", FROM).startswith("that command is longer than")
