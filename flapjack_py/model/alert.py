"""The alert: what the notifier builds per contact and medium, the renderer writes its text into, the
`alert:ID` record and the rq job carry, and a gateway sends (contract.md 6, engine.md 5.5). Pure.

`Alert` is a TypedDict, so an alert is a plain dict at run time and its JSON form (the rq job's one
argument, rq's JSON serializer) is exactly the dict's: no conversion on the way out. On the way back in,
a gateway's job function checks the decoded payload once with `alert_from_json`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NotRequired, TypedDict, cast

from flapjack_py.errors import InvalidAlert

_NONE = type(None)


class RollupEntry(TypedDict):
    """One check of a rollup alert's `rollup_alerts`: seconds since its state changed, the state, its summary."""

    duration: int
    state: str | None
    summary: str


class AlertShared(TypedDict):
    """The alert fields every alert of one notification holds alike (notifier.shared_fields), in payload order."""

    event_id: str  # "ENTITY:CHECK"
    event_hash: str  # the ack hash of the check
    summary: str | None
    details: str | None
    time: int | None  # the event's time
    duration: int | None  # acknowledgements: seconds of unscheduled maintenance
    last_state: str | None
    last_summary: str | None
    state_duration: int | None
    tags: list[str]
    notification_type: str  # problem, recovery, acknowledgement, test (or a flapping notice)
    event_count: int
    actor: NotRequired[str]  # acknowledgements: who acknowledged (flapjack_py.model.actors) ...
    channel: NotRequired[str]  # ... through which channel


class Alert(TypedDict):
    """One alert. The contract's fields (contract.md 6) are required, except the text (`subject`, `body`: set
    when it is rendered) and `status` (set when it is recorded); the notifier also writes the contact's
    names and the notification's AlertShared fields, which alerts made elsewhere (the watchdog's) may lack."""

    id: str
    timestamp: int  # unix time it was generated
    contact: str  # contact id
    media: str  # medium name
    address: str  # the medium's address for the contact
    check: str  # "ENTITY:CHECK"
    type: str  # problem, recovery, acknowledgement or test
    rollup: str  # "", "problem" or "recovery"
    state: str  # the check state the alert is about
    contact_id: NotRequired[str]
    contact_first_name: NotRequired[str]
    contact_last_name: NotRequired[str]
    event_id: NotRequired[str]
    event_hash: NotRequired[str]
    summary: NotRequired[str | None]
    details: NotRequired[str | None]
    time: NotRequired[int | None]
    duration: NotRequired[int | None]
    last_state: NotRequired[str | None]
    last_summary: NotRequired[str | None]
    state_duration: NotRequired[int | None]
    tags: NotRequired[list[str]]
    notification_type: NotRequired[str]
    event_count: NotRequired[int]
    actor: NotRequired[str]
    channel: NotRequired[str]
    rollup_alerts: NotRequired[dict[str, RollupEntry]]  # a rollup alert: its contact's failing checks
    rollup_threshold: NotRequired[int | None]
    escalation_policy: NotRequired[str]  # an escalation policy paged the contact ...
    escalation_level: NotRequired[int]  # ... at this level (1-based)
    incident_id: NotRequired[str]  # the incident the alert is about (flapjack_py.model.incidents): threads messages
    ack_code: NotRequired[str]  # a problem alert: the code that acknowledges its check (model/ack_codes.py)
    subject: NotRequired[str]
    body: NotRequired[str]
    status: NotRequired[str]  # queued, delivered, failed or undeliverable (store.alerts.AlertStatus)
    error: NotRequired[str]  # why it failed


REQUIRED_FIELDS = ("id", "timestamp", "contact", "media", "address", "check", "type", "rollup", "state")
"""The fields every alert has (Alert's required keys: with postponed annotations Python 3.11 cannot tell them)."""
FIELD_TYPES: dict[str, tuple[type, ...]] = {
    "id": (str,), "timestamp": (int,), "contact": (str,), "media": (str,), "address": (str,), "check": (str,),
    "type": (str,), "rollup": (str,), "state": (str,),
    "contact_id": (str,), "contact_first_name": (str,), "contact_last_name": (str,), "event_id": (str,),
    "event_hash": (str,), "summary": (str, _NONE), "details": (str, _NONE), "time": (int, _NONE),
    "duration": (int, _NONE), "last_state": (str, _NONE), "last_summary": (str, _NONE),
    "state_duration": (int, _NONE), "tags": (list,), "notification_type": (str,), "event_count": (int,),
    "actor": (str,), "channel": (str,), "rollup_alerts": (dict,), "rollup_threshold": (int, _NONE), "escalation_policy": (str,),
    "escalation_level": (int,), "incident_id": (str,), "ack_code": (str,), "subject": (str,), "body": (str,), "status": (str,), "error": (str,),
}
"""The JSON types of each Alert field (exactly: a boolean is not an integer); tests/unit/test_alert.py keeps
this and REQUIRED_FIELDS in step with Alert."""
ROLLUP_ENTRY_TYPES: dict[str, tuple[type, ...]] = {"duration": (int,), "state": (str, _NONE), "summary": (str,)}
"""The JSON types of each RollupEntry field (all required)."""


def alert_from_json(payload: object) -> Alert:
    """The alert an rq job's decoded JSON argument holds, checked: every required field present, every known
    field of its JSON type (fields not known here are kept). Returns `payload` itself, so its JSON is unchanged.

    Raises InvalidAlert naming the alert (when it has an id) and every fault.
    """
    if type(payload) is not dict:
        raise InvalidAlert([f"the payload is {_json_type(payload)}, not an object"])
    errors = [f"no {name!r}" for name in REQUIRED_FIELDS if name not in payload]
    errors += _type_errors(payload, FIELD_TYPES, "")
    tags, rollup_alerts = payload.get("tags"), payload.get("rollup_alerts")
    if type(tags) is list:
        errors += [f"'tags' holds {_json_type(tag)}, not a string" for tag in tags if type(tag) is not str][:1]
    if type(rollup_alerts) is dict:
        errors += [e for check_id, entry in rollup_alerts.items() for e in _entry_errors(str(check_id), entry)]
    if errors:
        alert_id = payload.get("id")
        raise InvalidAlert(errors, alert_id if type(alert_id) is str else None)
    return cast(Alert, payload)


def _entry_errors(check_id: str, entry: object) -> list[str]:
    """The faults of one `rollup_alerts` entry (a RollupEntry)."""
    where = f"rollup_alerts[{check_id!r}]"
    if type(entry) is not dict:
        return [f"{where} is {_json_type(entry)}, not an object"]
    missing = [f"{where} has no {name!r}" for name in ROLLUP_ENTRY_TYPES if name not in entry]
    return missing + _type_errors(entry, ROLLUP_ENTRY_TYPES, f"{where}.")


def _type_errors(data: Mapping[str, object], types: Mapping[str, tuple[type, ...]], prefix: str) -> list[str]:
    """`'name' is X, not Y` for each field of `data` listed in `types` whose value is of none of its types."""
    return [f"{prefix}{name!r} is {_json_type(data[name])}, not {' or '.join(map(_json_name, allowed))}"
            for name, allowed in types.items() if name in data and type(data[name]) not in allowed]


_JSON_NAMES = {str: "a string", int: "an integer", float: "a number", bool: "a boolean", list: "an array",
               dict: "an object", _NONE: "null"}


def _json_name(kind: type) -> str:
    return _JSON_NAMES.get(kind, kind.__name__)


def _json_type(value: object) -> str:
    """What `value` is, in JSON's words."""
    return _json_name(type(value))
