"""The typed alert (flapjack_py.model.alert): its field table follows the TypedDict, a real alert record keeps
its JSON form through the rq job, and `alert_from_json` refuses a malformed payload with a clear message."""

from __future__ import annotations

import json
import types
import typing
from typing import Any

import fakeredis
import pytest
from rq.job import Job
from rq.serializers import JSONSerializer

from flapjack_py.config.settings import load_config
from flapjack_py.errors import InvalidAlert
from flapjack_py.model.alert import (
    FIELD_TYPES,
    REQUIRED_FIELDS,
    ROLLUP_ENTRY_TYPES,
    Alert,
    RollupEntry,
    alert_from_json,
)
from flapjack_py.model.alerting import CheckFacts
from flapjack_py.model.contacts import Contact, Medium
from flapjack_py.model.notification import Notification, NotificationType
from flapjack_py.notify import enqueue as delivery
from flapjack_py.notify.notifier import build_alert
from flapjack_py.notify.rollup import RollupDecision
from flapjack_py.store import queues
from flapjack_py.store.plumbing.writes import WriteBuffer

NOW = 1_700_000_000
CONFIG = load_config({"gateways": {"email": {"enabled": True},
                                    "sms": {"enabled": True, "username": "u", "password": "p"}}})
CONTRACT_FIELDS = ("id", "timestamp", "contact", "media", "address", "check", "type", "rollup", "state",
                   "subject", "body", "status")
"""The fields contract.md section 6 says the record and the job payload carry."""


def json_types(hint: Any) -> set[type]:
    """The JSON value types an annotation allows (`str | None` -> {str, NoneType}, `list[str]` -> {list})."""
    if typing.get_origin(hint) is typing.NotRequired:
        (hint,) = typing.get_args(hint)
    arms = typing.get_args(hint) if isinstance(hint, types.UnionType) else (hint,)
    return {typing.get_origin(arm) or arm for arm in arms}


def recorded_alert(medium: Medium, **over: Any) -> Alert:
    """An alert as the notifier records and enqueues it: a rollup, paged by an escalation, rendered, queued."""
    fields: dict[str, Any] = {"event_id": "web:http", "entity": "web", "check": "http", "state": "critical",
                              "type": NotificationType.PROBLEM, "severity": "critical", "count": 7,
                              "event_hash": "abcd1234", "summary": 'dïsk "full"', "details": None, "time": NOW,
                              "last_state": "ok", "last_summary": "fine", "state_duration": 90, "tags": ("b", "a")}
    notification = Notification(**(fields | over))
    facts = {"web:http": CheckFacts("web:http", "critical", NOW - 90, "down"), "db:ping": CheckFacts("db:ping")}
    decision = RollupDecision(rollup="problem", members=("db:ping", "web:http"), threshold=2)
    alert = build_alert(notification, Contact("c1", "Zoë", None), medium, decision, facts, NOW)
    alert["escalation_policy"], alert["escalation_level"] = "night", 2
    writes = WriteBuffer()
    delivery.add_alert(writes, alert, CONFIG)
    [job] = writes.jobs
    return job.record


# --- the type ---------------------------------------------------------------------


def test_the_field_table_is_the_typed_dicts() -> None:
    hints = typing.get_type_hints(Alert, include_extras=True)
    assert list(FIELD_TYPES) == list(hints)
    assert all(set(FIELD_TYPES[name]) == json_types(hint) for name, hint in hints.items())
    required = [name for name, hint in hints.items() if typing.get_origin(hint) is not typing.NotRequired]
    assert list(REQUIRED_FIELDS) == required
    entry = typing.get_type_hints(RollupEntry)
    assert {name: set(kinds) for name, kinds in ROLLUP_ENTRY_TYPES.items()} == \
           {name: json_types(hint) for name, hint in entry.items()}


def test_every_contract_field_is_typed_and_only_text_and_status_may_be_missing() -> None:
    assert set(CONTRACT_FIELDS) <= set(FIELD_TYPES)
    assert set(CONTRACT_FIELDS) - set(REQUIRED_FIELDS) == {"subject", "body", "status"}


# --- the JSON form ----------------------------------------------------------------


@pytest.mark.parametrize("medium", [Medium("c1", "email", "zoe@example.com"), Medium("c1", "sms", "+61400")])
def test_a_recorded_alert_round_trips_through_json_unchanged(medium: Medium) -> None:
    record = recorded_alert(medium)
    assert {"subject", "body", "status", "rollup_alerts", "escalation_level", "tags"} <= set(record)
    text = json.dumps(record)
    alert = alert_from_json(json.loads(text))
    assert alert == record and json.dumps(alert) == text  # the same fields, values and order


def test_the_rq_job_hands_the_worker_the_record_it_was_given() -> None:
    record = recorded_alert(Medium("c1", "email", "zoe@example.com"))
    r = fakeredis.FakeRedis()
    retry = (2, (5, 9))
    with r.pipeline() as pipe:
        pipe.multi()
        queues.enqueue_jobs(r, pipe, [queues.JobData("email", record, retry)])
        pipe.execute()
    job = Job.fetch(record["id"], connection=r, serializer=JSONSerializer)
    assert job.func_name == queues.DELIVER_FUNC
    [payload] = job.args
    assert alert_from_json(payload) == record and json.dumps(payload) == json.dumps(record)


def test_a_payload_is_returned_as_it_is_with_fields_not_known_here() -> None:
    payload = json.loads(json.dumps(recorded_alert(Medium("c1", "sms", "+61400")))) | {"added_later": [1]}
    assert alert_from_json(payload) is payload


def test_an_alert_with_only_the_required_fields_is_one() -> None:
    payload = {"id": "w1", "timestamp": NOW, "contact": "c1", "media": "sms", "address": "+1", "check": "a:b",
               "type": "problem", "rollup": "", "state": "critical"}
    assert alert_from_json(payload) == payload


# --- malformed payloads -----------------------------------------------------------


def payload(**over: Any) -> dict[str, Any]:
    found: dict[str, Any] = json.loads(json.dumps(recorded_alert(Medium("c1", "sms", "+61400"))))
    found["id"] = "a1"
    return found | over


@pytest.mark.parametrize("value, what", [(["a1"], "an array"), ("{}", "a string"), (None, "null")])
def test_a_payload_that_is_not_an_object_is_refused(value: object, what: str) -> None:
    with pytest.raises(InvalidAlert, match=f"^malformed alert payload: the payload is {what}, not an object$"):
        alert_from_json(value)


def test_missing_required_fields_are_named_with_the_alert() -> None:
    broken = payload()
    del broken["media"], broken["timestamp"]
    with pytest.raises(InvalidAlert) as raised:
        alert_from_json(broken)
    assert str(raised.value) == "malformed alert a1: no 'timestamp'; no 'media'"
    assert raised.value.alert_id == "a1" and raised.value.errors == ["no 'timestamp'", "no 'media'"]


@pytest.mark.parametrize("over, fault", [
    ({"timestamp": "1700000000"}, "'timestamp' is a string, not an integer"),
    ({"timestamp": True}, "'timestamp' is a boolean, not an integer"),
    ({"timestamp": 1.5}, "'timestamp' is a number, not an integer"),
    ({"address": None}, "'address' is null, not a string"),
    ({"summary": 3}, "'summary' is an integer, not a string or null"),
    ({"tags": "a,b"}, "'tags' is a string, not an array"),
    ({"tags": ["a", 2, None]}, "'tags' holds an integer, not a string"),
    ({"escalation_level": "2"}, "'escalation_level' is a string, not an integer"),
    ({"rollup_alerts": []}, "'rollup_alerts' is an array, not an object"),
    ({"rollup_alerts": {"db:ping": "critical"}}, "rollup_alerts['db:ping'] is a string, not an object"),
    ({"rollup_alerts": {"db:ping": {"state": "critical", "summary": ""}}}, "rollup_alerts['db:ping'] has no 'duration'"),
    ({"rollup_alerts": {"db:ping": {"duration": "5", "state": None, "summary": ""}}},
     "rollup_alerts['db:ping'].'duration' is a string, not an integer"),
])
def test_a_wrongly_typed_field_is_named_with_what_it_is(over: dict[str, Any], fault: str) -> None:
    with pytest.raises(InvalidAlert) as raised:
        alert_from_json(payload(**over))
    assert raised.value.errors == [fault]
    assert str(raised.value) == f"malformed alert a1: {fault}"


def test_every_fault_is_listed_and_a_payload_without_a_usable_id_is_not_named() -> None:
    with pytest.raises(InvalidAlert) as raised:
        alert_from_json(payload(id=7, state=None))
    assert str(raised.value) == "malformed alert payload: 'id' is an integer, not a string; 'state' is null, not a string"
