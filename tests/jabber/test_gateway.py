"""The jabber gateway against a real prosody: alerts to people and rooms, the bot over chat, acks, reconnects."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import redis
import yaml

from flapjack_py import keys
from flapjack_py.config.settings import Config
from flapjack_py.executive import Executive
from flapjack_py.notify.render import ack_hash
from flapjack_py.runtime.supervisor import EXIT_CONFIG
from flapjack_py.store import alerts as alert_store
from flapjack_py.store import contacts as contact_store
from flapjack_py.store import entities as entity_store
from flapjack_py.store import maintenance as maint_store
from flapjack_py.store.plumbing.client import StrRedis
from gateways.jabber import JabberGateway, run

from .conftest import DOMAIN, ROOM, ChatClient, make_config, wait_for
from .prosody import MUC, Prosody

pytestmark = pytest.mark.real

ALICE = f"alice@{DOMAIN}"
GATEWAY = f"flapjack@{DOMAIN}"
FLAPJACK = Path(__file__).resolve().parents[2] / "bin" / "flapjack"
PROBLEM = 'Problem: flapjack: ACKID 47ae7a99, "ping" on foo is Critical, 100% packet loss'


def status(client: redis.Redis, alert_id: str) -> str:
    return (alert_store.load_alert(client, alert_id) or {}).get("status", "")


def queued_events(client: redis.Redis) -> list[dict[str, Any]]:
    return [json.loads(e) for e in reversed(client.lrange(keys.events(), 0, -1))]


# --- delivery ---------------------------------------------------------------------


def test_problem_alert_reaches_the_person(gateway: JabberGateway, person: ChatClient, jabber_config: Config,
                                          enqueue: Callable[..., dict[str, Any]], real_r: redis.Redis, real_s: StrRedis) -> None:
    alert = enqueue(jabber_config)
    kind, sender, body = person.next(kind="chat")
    assert (sender.split("/")[0], body) == (GATEWAY, PROBLEM)
    wait_for(lambda: status(real_s, alert["id"]) == "delivered", what="alert delivered")


def test_room_alert_reaches_the_room(gateway: JabberGateway, client_factory: Callable[..., ChatClient],
                                     jabber_config: Config, enqueue: Callable[..., dict[str, Any]],
                                     real_r: redis.Redis, real_s: StrRedis) -> None:
    roommate = client_factory("bob")
    roommate.join(ROOM)
    roommate.drop_pending()
    alert = enqueue(jabber_config, address=ROOM, state="ok", type="recovery", notification_type="recovery",
                    summary="all fine")
    assert roommate.next(kind="groupchat") == ("groupchat", f"{ROOM}/flapjack",
                                               'Recovery: "ping" on foo is OK, all fine')
    wait_for(lambda: status(real_s, alert["id"]) == "delivered", what="alert delivered")


def test_gateway_announces_itself_in_rooms(start_gateway: Callable[..., JabberGateway],
                                           jabber_settings: dict[str, Any],
                                           client_factory: Callable[..., ChatClient]) -> None:
    roommate = client_factory("bob")
    roommate.join(ROOM)
    roommate.drop_pending()
    start_gateway(jabber_settings)
    body = roommate.next(kind="groupchat")[2]
    assert body.startswith("flapjack's jabber gateway started at ")
    assert body.endswith(", hello! Try typing 'help'.")


def test_room_commands_are_answered_in_the_room(gateway: JabberGateway, client_factory: Callable[..., ChatClient],
                                                real_r: redis.Redis) -> None:
    roommate = client_factory("bob")
    roommate.join(ROOM)
    roommate.drop_pending()
    roommate.say(ROOM, "FLAPJACK: find entities matching /zzz/", groupchat=True)
    assert roommate.next(kind="groupchat") == ("groupchat", f"{ROOM}/flapjack", "found no entities matching /zzz/")
    roommate.say(ROOM, "just chatting about flapjack", groupchat=True)
    with pytest.raises(AssertionError):
        roommate.next(timeout=1.0, kind="groupchat")


# --- ACKID round trip --------------------------------------------------------------------


@pytest.fixture
def executive(real_r: redis.Redis, jabber_settings: dict[str, Any], redis_server: Any, real_s: StrRedis) -> Executive:
    """An executive on the real Redis with contact c1 (jabber: alice) on entity foo."""
    contact_store.create_contact(real_s, {"id": "c1", "first_name": "Alice", "media": {"jabber": ALICE}})
    entity_store.import_entity(real_s, "e1", "foo", ["c1"])
    cfg = {"redis": {"url": redis_server.url}, "gateways": {"jabber": jabber_settings},
           "executive": {"new_check_scheduled_maintenance_duration": 0}}
    return Executive(real_r, cfg)


def test_ackid_reply_acknowledges_the_check(gateway: JabberGateway, person: ChatClient, executive: Executive,
                                            real_r: redis.Redis, real_s: StrRedis) -> None:
    real_r.lpush(keys.events(), json.dumps({"type": "service", "entity": "foo", "check": "ping", "state": "critical",
                                            "summary": "100% packet loss", "initial_failure_delay": 0}))
    executive.drain()
    problem = person.next(kind="chat")[2]
    hash_ = ack_hash("foo:ping")
    assert problem == PROBLEM.replace("47ae7a99", hash_)

    assert person.ask(f"flapjack: ACKID {hash_} looking") == f"ACKing ping on foo ({hash_})"
    (event,) = queued_events(real_r)
    assert (event["state"], event["entity"], event["check"], event["summary"], event["duration"]) == (
        "acknowledgement", "foo", "ping", "looking", 14400)

    executive.drain()
    assert maint_store.in_force(real_s, "foo", "ping", maint_store.UNSCHEDULED) is not None
    assert (event["actor"], event["channel"]) == ("jabber:test", "jabber")
    assert person.next(kind="chat")[2] == ('Acknowledgement: "ping" on foo has been acknowledged by jabber:test, '
                                           'unscheduled maintenance created for 4 hours, looking')


# --- the bot over chat -----------------------------------------------------------------------

BOT_CASES = [
    ("ACKID deadbeef looking", "ERROR - couldn't ACK deadbeef - not found"),
    ("ACKID {hash}", 'ERROR - couldn\'t ACK {hash} - please provide a comment, eg "flapjack: ACKID {hash} AL looking"'),
    ("test notifications for foo", "so you want me to test notifications for entity: foo, check: test eh? ... well OK!"),
    ("test notifications for nope", "yeah, no I can't see nope in my systems"),
    ("tell me about foo:ping", "so you'd like details on entity: foo, check: ping hmm? ... OK!\n"
                               "Not in scheduled or unscheduled maintenance."),
    ("tell me about nope", "hmmm, I can't see nope in my systems"),
    ("find checks on foo", "Entity: foo\nChecks: ping\n----"),
    ("find checks on nope", "found no entity for 'nope'"),
    ("find checks on entities matching /(/", "that doesn't seem to be a valid pattern - /(/"),
    ("find entities matching /^fo/", "found 1 entity matching /^fo/ ... \nfoo"),
    ("find entities matching /zzz/", "found no entities matching /zzz/"),
    ("find entities matching /[/", "that doesn't seem to be a valid pattern - /[/"),
    ("status entities /foo/", "Status list:\nfoo:ping: critical"),
    ("status entities /zzz/", "found no entities matching /zzz/"),
    ("status checks /ping/ on /foo/", "Status list:\nfoo:ping: critical"),
    ("status checks /nope/", "found no matching checks"),
    ("status checks /*/", "that doesn't seem to be a valid pattern - /*/"),
    ("ack checks /ping/ on /zzz/", "found no matching failing checks"),
    ("ack entities /zzz/", "found no entities matching /zzz/"),
    ("ack entities /(/", "that doesn't seem to be a valid pattern - /(/"),
    ("ack entities /foo/ <b>on it</b>", "Ack list:\nfoo:ping"),
    ("ack checks /ping/ on /foo/", "Ack list:\nfoo:ping"),
    ("maint entities /zzz/", "found no entities matching /zzz/"),
    ("maint entities /foo/ upgrade start-at: tomorrow 9am duration: 2 hours", "Maint list:\nfoo:ping"),
    ("make me a sandwich", "what do you mean, 'make me a sandwich'? Type 'help' for a list of acceptable commands."),
]


def test_bot_commands_over_chat(gateway: JabberGateway, person: ChatClient, executive: Executive,
                                real_r: redis.Redis) -> None:
    real_r.lpush(keys.events(), json.dumps({"type": "service", "entity": "foo", "check": "ping", "state": "critical"}))
    executive.drain()
    hash_ = ack_hash("foo:ping")
    for command, expected in BOT_CASES:
        assert person.ask(command.format(hash=hash_)) == expected.format(hash=hash_), command
    assert "ACKID <id>" in person.ask("help")
    assert person.ask("identify").startswith("Flapjack ")
    events = queued_events(real_r)
    assert [e["state"] for e in events] == ["test_notifications", "acknowledgement", "acknowledgement"]
    assert events[1]["summary"] == f"{person.xmpp.boundjid.resource}: on it"


def test_command_from_a_jid_not_allowed_is_refused(start_gateway: Callable[..., JabberGateway],
                                                   jabber_settings: dict[str, Any], person: ChatClient,
                                                   executive: Executive, real_r: redis.Redis,
                                                   caplog: pytest.LogCaptureFixture) -> None:
    real_r.lpush(keys.events(), json.dumps({"type": "service", "entity": "foo", "check": "ping", "state": "critical"}))
    executive.drain()
    gateway = start_gateway({**jabber_settings, "allowed_jids": [f"bob@{DOMAIN}"]})
    wait_for(gateway.xmpp.ready.is_set, what="gateway connected")
    hash_ = ack_hash("foo:ping")
    assert person.ask(f"ACKID {hash_} mine now") == "sorry, you are not allowed to give me commands"
    assert queued_events(real_r) == []
    assert "refused" in caplog.text


# --- connection life ------------------------------------------------------------------------


def test_alerts_queued_while_the_server_is_down_arrive_once(gateway: JabberGateway, prosody: Prosody,
                                                            client_factory: Callable[..., ChatClient],
                                                            jabber_config: Config, real_r: redis.Redis,
                                                            enqueue: Callable[..., dict[str, Any]], real_s: StrRedis) -> None:
    prosody.stop()
    wait_for(lambda: not gateway.xmpp.ready.is_set(), what="gateway noticed the server is gone")
    alerts = [enqueue(jabber_config, summary=f"alert {i}") for i in range(3)]
    time.sleep(1.0)  # the gateway holds them while disconnected
    assert [status(real_s, a["id"]) for a in alerts] == ["queued"] * 3
    prosody.start()
    wait_for(gateway.xmpp.ready.is_set, timeout=20, what="gateway reconnected")
    person = client_factory("alice")
    bodies = sorted(person.next(kind="chat")[2] for _ in alerts)
    assert bodies == [PROBLEM.replace("100% packet loss", f"alert {i}") for i in range(3)]
    wait_for(lambda: all(status(real_s, a["id"]) == "delivered" for a in alerts), what="alerts delivered")
    with pytest.raises(AssertionError):
        person.next(timeout=1.5, kind="chat")


def test_wrong_password_stops_with_a_clear_error(redis_server: Any, jabber_settings: dict[str, Any],
                                                 caplog: pytest.LogCaptureFixture) -> None:
    started = time.monotonic()
    code = run(make_config(redis_server.url, {**jabber_settings, "password": "wrong-pw"}))
    assert code == EXIT_CONFIG
    assert time.monotonic() - started < 15
    assert "cannot log in as flapjack@localhost" in caplog.text
    assert "wrong-pw" not in caplog.text


def test_burst_run_delivers_what_is_queued(redis_server: Any, jabber_config: Config, person: ChatClient,
                                           enqueue: Callable[..., dict[str, Any]], real_r: redis.Redis, real_s: StrRedis) -> None:
    alert = enqueue(jabber_config)
    assert run(jabber_config, burst=True) == 0
    assert status(real_s, alert["id"]) == "delivered"
    assert person.next(kind="chat")[2] == PROBLEM


def test_command_in_a_room_not_allowed_is_refused(start_gateway: Callable[..., JabberGateway],
                                                  jabber_settings: dict[str, Any],
                                                  client_factory: Callable[..., ChatClient],
                                                  real_r: redis.Redis) -> None:
    gateway = start_gateway({**jabber_settings, "allowed_rooms": [f"other@{MUC}"]})
    wait_for(gateway.xmpp.ready.is_set, what="gateway connected")
    roommate = client_factory("bob")
    roommate.join(ROOM)
    roommate.drop_pending()
    roommate.say(ROOM, "flapjack: test notifications for foo", groupchat=True)
    assert roommate.next(kind="groupchat")[2] == "sorry, you are not allowed to give me commands"
    assert queued_events(real_r) == []


def test_cli_gateway_jabber_stops_on_a_refused_login(tmp_path: Path, redis_server: Any,
                                                     jabber_settings: dict[str, Any]) -> None:
    config = {"redis": {"url": redis_server.url}, "gateways": {"jabber": {**jabber_settings, "password": "nope-pw"}}}
    path = tmp_path / "flapjack.yml"
    path.write_text(yaml.safe_dump(config))
    done = subprocess.run([sys.executable, str(FLAPJACK), "--config", str(path), "gateway", "jabber"],
                          capture_output=True, text=True, timeout=60, check=False,
                          env={**os.environ, "PYTHONPATH": str(FLAPJACK.parents[1])})
    assert done.returncode == EXIT_CONFIG, done.stderr
    assert "cannot log in as flapjack@localhost: not-authorized (wrong jabberid or password?)" in done.stderr, done.stderr


# --- who may give commands (issue 17: deny by default, real JIDs in rooms) -----------------------------


def test_empty_allowed_jids_obey_nobody(start_gateway: Callable[..., JabberGateway],
                                        jabber_settings: dict[str, Any], person: ChatClient,
                                        real_r: redis.Redis) -> None:
    gateway = start_gateway({**jabber_settings, "allowed_jids": []})
    wait_for(gateway.xmpp.ready.is_set, what="gateway connected")
    assert person.ask("test notifications for foo") == "sorry, you are not allowed to give me commands"
    assert queued_events(real_r) == []


def test_a_strangers_direct_command_is_refused(gateway: JabberGateway, client_factory: Callable[..., ChatClient],
                                               real_r: redis.Redis, caplog: pytest.LogCaptureFixture) -> None:
    stranger = client_factory("mallory")
    assert stranger.ask("maint entities /.*/ duration: 100 years") == "sorry, you are not allowed to give me commands"
    assert queued_events(real_r) == []
    assert f"command from mallory@{DOMAIN} refused" in caplog.text


def test_a_strangers_room_command_is_refused_even_under_an_allowed_nick(
        gateway: JabberGateway, client_factory: Callable[..., ChatClient], real_r: redis.Redis,
        caplog: pytest.LogCaptureFixture) -> None:
    stranger = client_factory("mallory", nick="alice")  # alice is allowed; her nick proves nothing
    stranger.join(ROOM)
    stranger.drop_pending()
    stranger.say(ROOM, "flapjack: test notifications for foo", groupchat=True)
    assert stranger.next(kind="groupchat")[2] == "sorry, you are not allowed to give me commands"
    assert queued_events(real_r) == []
    assert f"mallory@{DOMAIN} not in allowed_jids" in caplog.text
    roommate = client_factory("bob")
    roommate.join(ROOM)
    roommate.drop_pending()
    roommate.say(ROOM, "flapjack: find entities matching /zzz/", groupchat=True)
    assert roommate.next(kind="groupchat")[2] == "found no entities matching /zzz/"


def test_a_room_hiding_real_jids_gets_no_obedience(start_gateway: Callable[..., JabberGateway],
                                                   jabber_settings: dict[str, Any],
                                                   client_factory: Callable[..., ChatClient],
                                                   caplog: pytest.LogCaptureFixture) -> None:
    """bob creates the room, so the bot joins as a plain occupant and cannot see real JIDs: even bob is refused."""
    hidden = f"hidden@{MUC}"
    owner = client_factory("bob")
    owner.join(hidden)
    gateway = start_gateway({**jabber_settings, "rooms": [hidden]})
    wait_for(gateway.xmpp.ready.is_set, what="gateway connected")
    assert "hello!" in owner.next(kind="groupchat")[2]  # the bot's announcement on joining
    owner.say(hidden, "flapjack: find entities matching /zzz/", groupchat=True)
    assert owner.next(kind="groupchat")[2] == "sorry, you are not allowed to give me commands"
    assert "hides the occupant's real JID" in caplog.text
