"""Reads in steps made together (flapjack_py.store.plumbing.staged) on a real server: one round trip per step of the
longest chain, replies handed to the read that queued them, scripts loaded when the server forgot them, and
the notifier's batch read and a notifying batch in the fewest round trips their dependencies allow."""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Any

import pytest
import redis

from flapjack_py.bench.workload import add_contacts, executive_config, make_event
from flapjack_py.executive import Executive
from flapjack_py.store import rules as rule_store
from flapjack_py.store.notify_data import NotifiedCheck, load_notify_data
from flapjack_py.store.plumbing import scripts, staged
from flapjack_py.store.plumbing.client import Clients, StrRedis, load_scripts, script_sha
from tests.sent import Sent

pytestmark = pytest.mark.real


def chain(*keys: str) -> staged.Reads[list[Any]]:
    """Reads `keys` one after the other, each step naming the next key (the value read)."""
    found, key = [], keys[0]
    for _ in keys:
        value = (yield staged.Step(lambda p, key=key: p.get(key)))[0]
        found.append(value)
        key = value or ""
    return found


def test_reads_made_together_take_as_many_round_trips_as_the_longest_chain(
        real_s: StrRedis, monkeypatch: pytest.MonkeyPatch) -> None:
    real_s.mset({"a": "b", "b": "c", "c": "end", "x": "y", "y": "end"})
    sent = Sent(monkeypatch)
    assert staged.run(real_s, staged.together(chain("a", "b", "c"), chain("x", "y"), chain("z"))) == \
        [["b", "c", "end"], ["y", "end"], [None]]
    assert sent.writes == [["GET", "GET", "GET"], ["GET", "GET"], ["GET"]]


def test_a_read_that_needs_no_round_trip_makes_none(real_s: StrRedis, monkeypatch: pytest.MonkeyPatch) -> None:
    def nothing() -> staged.Reads[int]:
        return 7
        yield  # a generator

    sent = Sent(monkeypatch)
    assert staged.run(real_s, staged.together(nothing(), nothing())) == [7, 7]
    assert sent.writes == []


def test_an_error_reply_raises_unless_the_step_keeps_it(real_s: StrRedis) -> None:
    real_s.set("text", "x")

    def failing() -> staged.Reads[None]:
        yield staged.Step(lambda p: p.hget("text", "field"))

    def keeping() -> staged.Reads[bool]:
        replies = yield staged.Step(lambda p: p.hget("text", "field"), keep_errors=True)
        return isinstance(replies[0], redis.ResponseError)

    with pytest.raises(redis.ResponseError, match="WRONGTYPE"):
        staged.run(real_s, staged.together(chain("text"), failing()))
    assert staged.run(real_s, staged.together(chain("text"), keeping())) == [["x"], True]


def test_a_script_the_server_forgot_is_loaded_and_called_again_the_others_waiting(real_s: StrRedis) -> None:
    real_s.script_flush()
    real_s.set("a", "1")
    source = "return {KEYS[1], ARGV[1]}"
    assert staged.run(real_s, staged.together(staged.script(source, [(["k1"], ["a1"]), (["k2"], ["a2"])]),
                                              chain("a"))) == [[["k1", "a1"], ["k2", "a2"]], ["1"]]
    assert real_s.script_exists(script_sha(source)) == [True]
    with pytest.raises(redis.ResponseError, match="boom"):
        staged.run(real_s, staged.script("return redis.error_reply('boom')", [([], [])]))


def test_the_notifier_reads_a_batch_in_three_round_trips_with_the_callers_reads(
        real_s: StrRedis, monkeypatch: pytest.MonkeyPatch) -> None:
    contacts = add_contacts(real_s)
    load_scripts(real_s, [scripts.CHECK_FACTS, scripts.CONTACT_DETAILS])  # as the executive does at boot
    real_s.set("mine", "1")
    checks = [NotifiedCheck("web", None, "http", "critical"), NotifiedCheck("db", None, "disk", "critical")]
    sent = Sent(monkeypatch)
    data = load_notify_data(real_s, checks, also=chain("mine"))
    assert len(sent.writes) == 3
    assert data.contact_ids == {"web:http": sorted(contacts), "db:disk": sorted(contacts)}
    assert sorted(data.contacts) == sorted(contacts) and len(data.rules) == len(contacts)
    assert set(data.facts) == {"web:http", "db:disk"}


def test_a_notifying_batch_takes_seven_round_trips(real_clients: Clients, monkeypatch: pytest.MonkeyPatch) -> None:
    """take, guard + snapshots, the WATCH of the batch's incident groups (issue 33: their heads are read and
    written in the batch), the notifier's three reads (with the previous state run), commit."""
    real_s = real_clients.text
    add_contacts(real_s)
    executive = Executive(real_clients, executive_config("redis://unused"))
    for state in ("ok", "critical", "ok"):  # the last two notify: the connections are open
        real_s.lpush("events", make_event("web", "http", state, int(time.time())))
        assert executive.drain() == 1
    real_s.lpush("events", make_event("web", "http", "critical", int(time.time())))
    sent = Sent(monkeypatch)
    executive._process_batch(executive.queue.take(10))
    assert len(sent.writes) == 7, sent.writes
    assert sent.writes[2] == ["WATCH"], sent.writes
    assert sent.writes[-1][0] == "MULTI"
    assert sum(real_s.llen(f"rq:queue:{medium}") for medium in ("email", "sms")) == 18  # 3 contacts x 2 media x 3


def test_a_rule_changed_between_batches_is_read_as_changed(real_s: StrRedis) -> None:
    """Rules are parsed once per stored content (notify_data._rule): a changed hash is a new rule."""
    contacts = add_contacts(real_s, 1)
    load_scripts(real_s, [scripts.CHECK_FACTS, scripts.CONTACT_DETAILS])
    checks = [NotifiedCheck("web", None, "http", "critical")]
    (rule_id, before), = load_notify_data(real_s, checks).rules.items()
    assert before.critical_media == ["email", "sms"]
    rule_store.save_rule(real_s, replace(before, critical_media=["sms"]))
    after = load_notify_data(real_s, checks).rules[rule_id]
    assert after.critical_media == ["sms"] and after.contact_id == contacts[0]
    assert load_notify_data(real_s, checks).rules[rule_id] is after  # parsed once for the same content
