"""The matrix gateway and bot against a real Synapse: events in -> the executive -> alerts in the room; acting from
the room (a threaded `ack`, a ✅ reaction, a stranger refused) -> acknowledgement events with the Matrix user as
actor -> "acknowledged by" and "recovered" in the alert's thread; a homeserver restarted mid-run loses no alert."""

from __future__ import annotations

import json
import re
import time
from dataclasses import replace
from typing import Any

import pytest

from flapjack_py import keys
from flapjack_py.executive import Executive
from flapjack_py.model.rules import general_rule
from flapjack_py.store import alerts as alert_store
from flapjack_py.store import chat
from flapjack_py.store import contacts as contact_store
from flapjack_py.store import media as media_store
from flapjack_py.store import rules as rule_store
from flapjack_py.store.events import push_event
from tests.polling import wait_for

WAIT = 30.0


def executive_config(settings: dict[str, Any]) -> dict[str, Any]:
    return {"executive": {"new_check_scheduled_maintenance_duration": 0, "initial_failure_delay": 0},
            "gateways": {"matrix": settings}}


@pytest.fixture
def contact(real_r, real_s, room):
    contact_store.create_contact(real_s, {"id": "c1", "first_name": "Ada", "last_name": "L", "email": "a@x"})
    media_store.set_medium(real_s, "c1", "matrix", room, 0)
    rule = replace(general_rule("c1"), critical_media=["matrix"], warning_media=["matrix"])  # not a Flapjack 1.6 medium
    rule_store.create_rule(real_s, rule)
    for number, entity in enumerate(("foo", "bar", "baz")):  # one check each: an entity's checks may be grouped
        real_r.hset(keys.entity_ids_by_name(), entity, f"e{number}")
        real_r.hset(keys.entity_names_by_id(), f"e{number}", entity)
        real_r.sadd(keys.contacts_for(f"e{number}"), "c1")


def event(real_s, check_id: str, state: str, summary: str) -> None:
    entity, check = check_id.split(":")
    push_event(real_s, {"type": "service", "entity": entity, "check": check, "state": state, "summary": summary,
                        "time": int(time.time())})


def from_bot(person, room, predicate=lambda m: True):
    return [m for m in person.messages(room) if m["sender"] == "@flapjack:localhost" and predicate(m)]


def in_thread(root):
    return lambda m: (m["content"].get("m.relates_to") or {}).get("event_id") == root


def alert_message(person, room, check_id):
    entity, check = check_id.split(":")
    found = wait_for(lambda: from_bot(person, room, lambda m: f"'{check}' on {entity}" in m["content"]["body"]
                                      and "m.relates_to" not in m["content"]), WAIT, f"the {check} alert in the room")
    return found[-1]


def queued_events(real_s):
    return [json.loads(e) for e in real_s.lrange(keys.events(), 0, -1)]


def test_alerts_acting_from_the_room_and_the_thread_following_the_check(
        real_r, real_s, room, people, matrix_settings, contact, gateway):
    alice, mallory = people["alice"], people["mallory"]
    executive = Executive(real_r, executive_config(matrix_settings))
    event(real_s, "foo:ping", "critical", "100% packet loss")
    event(real_s, "bar:disk", "critical", "disk full")
    executive.drain()

    ping = alert_message(alice, room, "foo:ping")
    disk = alert_message(alice, room, "bar:disk")
    assert "CRITICAL" in ping["content"]["formatted_body"] and "100% packet loss" in ping["content"]["formatted_body"]
    posted = chat.find(real_s, "matrix", room, ping["event_id"])
    assert posted is not None and posted.check == "foo:ping"

    # an allowed user's threaded `ack 10m looking`
    alice.in_thread(room, ping["event_id"], "ack 10m looking")
    [ack] = wait_for(lambda: queued_events(real_s), WAIT, "the acknowledgement event")
    assert (ack["check"], ack["state"], ack["duration"]) == ("ping", "acknowledgement", 600)
    assert (ack["actor"], ack["channel"]) == ("matrix:@alice:localhost", "matrix")
    wait_for(lambda: from_bot(alice, room, lambda m: in_thread(ping["event_id"])(m)
                              and "acknowledging foo:ping for 10 minutes" in m["content"]["body"]), WAIT, "the answer")
    executive.drain()
    acked = wait_for(lambda: from_bot(alice, room, lambda m: in_thread(ping["event_id"])(m)
                                      and m["content"]["body"].startswith("acknowledged by")), WAIT, "acknowledged by")
    assert acked[0]["content"]["body"].startswith("acknowledged by @alice:localhost")

    # a stranger's ack is refused in the thread, nothing queued
    mallory.in_thread(room, disk["event_id"], "ack 1h mine now")
    wait_for(lambda: from_bot(alice, room, lambda m: in_thread(disk["event_id"])(m)
                              and "not allowed" in m["content"]["body"]), WAIT, "the refusal")
    assert queued_events(real_s) == []

    # a ✅ reaction acknowledges another, with the default duration
    alice.react(room, disk["event_id"], "✅")
    [reacted] = wait_for(lambda: queued_events(real_s), WAIT, "the reaction's acknowledgement")
    assert (reacted["check"], reacted["duration"], reacted["actor"]) == ("disk", 4 * 3600, "matrix:@alice:localhost")
    executive.drain()

    # recovery in the thread
    event(real_s, "foo:ping", "ok", "all fine")
    executive.drain()
    wait_for(lambda: from_bot(alice, room, lambda m: in_thread(ping["event_id"])(m)
                              and m["content"]["body"] == "recovered"), WAIT, "recovered in the thread")


def test_homeserver_restarted_mid_run_loses_no_alert(real_r, real_s, room, people, matrix_settings, contact,
                                                     gateway, synapse):
    executive = Executive(real_r, executive_config(matrix_settings))
    event(real_s, "foo:ping", "critical", "first")
    executive.drain()
    alert_message(people["alice"], room, "foo:ping")

    synapse.stop()
    event(real_s, "baz:load", "critical", "load 40")
    executive.drain()
    [load_id] = [a for a in alert_store.alert_ids(real_s, keys.alerts())
                 if (alert_store.load_alert(real_s, a) or {}).get("check") == "baz:load"]
    time.sleep(2)  # the gateway tries while the homeserver is away
    assert (alert_store.load_alert(real_s, load_id) or {}).get("status") == "queued"
    synapse.start()
    load = alert_message(people["alice"], room, "baz:load")
    wait_for(lambda: (alert_store.load_alert(real_s, load_id) or {}).get("status") == "delivered", WAIT,
             "the alert delivered")

    # outside a thread: `ack CODE ...` with the alert's ack code, and `status ENTITY:CHECK`
    code = re.search(r"ack code <code>(\w+)</code>", load["content"]["formatted_body"]).group(1)
    assert code in load["content"]["body"]
    people["alice"].send(room, {"msgtype": "m.text", "body": f"ack {code} 5m rebooting"})
    [ack] = wait_for(lambda: queued_events(real_s), WAIT, "the acknowledgement by code")
    assert (ack["entity"], ack["check"], ack["duration"], ack["actor"]) == ("baz", "load", 300,
                                                                           "matrix:@alice:localhost")
    people["alice"].send(room, {"msgtype": "m.text", "body": "status baz:load"})
    wait_for(lambda: from_bot(people["alice"], room, lambda m: m["content"]["body"].startswith("baz:load is critical")),
             WAIT, "the status answer")


def test_a_user_address_gets_one_direct_room_kept_across_restarts(real_r, real_s, room, people, matrix_settings,
                                                                  contact, gateway):
    alice = people["alice"]
    media_store.set_medium(real_s, "c1", "matrix", alice.user_id, 0)
    executive = Executive(real_r, executive_config(matrix_settings))
    event(real_s, "foo:ping", "critical", "first")
    executive.drain()
    direct = wait_for(lambda: chat.room_of(real_s, "matrix", alice.user_id), WAIT, "the direct room")
    alice.join(direct)
    alert_message(alice, direct, "foo:ping")

    gateway.matrix._room_ids.clear()  # what a restarted gateway knows: only Redis
    event(real_s, "bar:disk", "critical", "second")
    executive.drain()
    alert_message(alice, direct, "bar:disk")
    assert chat.room_of(real_s, "matrix", alice.user_id) == direct
