"""Two executives agree on one incident per group (issue 33 item 5): the group's live state is WATCHed with
the batch read, so an executive whose group another one changed meanwhile decides its notifications again."""

from __future__ import annotations

import json
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import redis
from executives import add_contact_for_all, start_executives, stop, wait_processed, wait_registered

from flapjack_py import keys
from flapjack_py.executive import Executive
from flapjack_py.notify.decisions import describe
from flapjack_py.runtime.embedded_redis import EmbeddedRedis
from flapjack_py.store import decisions as decision_store
from flapjack_py.store import incidents as store
from flapjack_py.store.plumbing.client import StrRedis

pytestmark = pytest.mark.real
SETTINGS = {"new_check_scheduled_maintenance_duration": 0, "batch_size": 3}
CONFIG = {"executive": SETTINGS, "gateways": {"email": {"enabled": True}}}  # incidents by entity (the default)
ENTITY = "switch-3.example.com"


def event(check: str, state: str) -> bytes:
    return json.dumps({"type": "service", "entity": ENTITY, "check": check, "state": state, "summary": state,
                       "initial_failure_delay": 0}).encode()


def alerts(client: redis.Redis) -> Counter[tuple[str, ...]]:
    return Counter(tuple(v.decode() for v in client.hmget(keys.alert(a.decode()), "contact", "type", "incident_id"))
                   for a in client.zrange(keys.alerts(), 0, -1))


def test_an_executive_whose_group_another_opened_meanwhile_joins_that_incident(
        real_r: redis.Redis, real_s: StrRedis, monkeypatch: pytest.MonkeyPatch) -> None:
    add_contact_for_all(real_s, "alice", {"email": {"address": "alice@example.com"}})
    first, other = Executive(real_r, CONFIG), Executive(real_r, CONFIG)
    decide = first.notifier.notify
    rounds: list[int] = []

    def decide_while_the_other_opens_an_incident(*args: Any, **kwargs: Any) -> None:
        decide(*args, **kwargs)
        rounds.append(len(rounds))
        if len(rounds) == 1:  # between this executive's read and its commit
            real_r.lpush("events", event("HTTP 2", "critical"))
            assert other.drain() == 1

    monkeypatch.setattr(first.notifier, "notify", decide_while_the_other_opens_an_incident)
    real_r.lpush("events", event("HTTP 1", "critical"))
    assert first.drain() == 1
    assert rounds == [0, 1]  # its commit failed on the WATCHed group: decided again
    [incident] = [i.decode() for i in real_r.zrange(keys.incidents(), 0, -1)]
    assert alerts(real_r) == {("alice", "problem", incident): 1}  # the other one paged; this one joined
    assert sorted(store.load(real_s, incident).checks) == [f"{ENTITY}:HTTP 1", f"{ENTITY}:HTTP 2"]
    from rq import Queue
    from rq.serializers import JSONSerializer
    [job] = Queue("email", connection=real_r, serializer=JSONSerializer).jobs
    assert job.args[0]["incident_id"] == incident  # the rq job's alert carries it: gateways can thread
    trace = decision_store.load(real_s, ENTITY, "HTTP 1")[0]
    assert trace["incident"] == {"id": incident, "what": "problem"}
    assert trace["contacts"][0]["media"] == [{"medium": "email", "outcome": "incident"}]
    assert any("folded into the incident" in line for line in describe(trace)), describe(trace)


@pytest.mark.slow
def test_two_executive_processes_open_one_incident_for_a_storm_of_one_entity(
        redis_server: EmbeddedRedis, real_r: redis.Redis, real_s: StrRedis, tmp_path: Path) -> None:
    add_contact_for_all(real_s, "alice", {"email": {"address": "alice@example.com"}})
    add_contact_for_all(real_s, "bob", {"email": {"address": "bob@example.com"}})
    procs = start_executives(redis_server, CONFIG, tmp_path, 2)
    try:
        wait_registered(real_r, 2)
        real_r.lpush("events", *[event(f"HTTP {n:02d}", "critical") for n in range(40)])
        wait_processed(real_r, 40)
        [incident] = [i.decode() for i in real_r.zrange(keys.incidents(), 0, -1)]
        assert len(store.load(real_s, incident).checks) == 40
        assert alerts(real_r) == {("alice", "problem", incident): 1, ("bob", "problem", incident): 1}
        time.sleep(1.1 - time.time() % 1)
        real_r.lpush("events", *[event(f"HTTP {n:02d}", "ok") for n in range(40)])
        wait_processed(real_r, 80)
    finally:
        stop(procs)
    assert alerts(real_r) == {("alice", "problem", incident): 1, ("bob", "problem", incident): 1,
                              ("alice", "recovery", incident): 1, ("bob", "recovery", incident): 1}
    assert real_r.hget(keys.incident(incident), "state") == b"resolved"
