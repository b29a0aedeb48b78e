"""Events: parse and validate the raw JSON feeders push (engine.md sections 1.2-1.3). Pure.

Input that could hurt is refused before it costs anything: events longer than
`max_bytes`, bytes that are not UTF-8, JSON nested deeper than MAX_JSON_DEPTH,
and integers outside their range (a 5,000-digit `time` is never given to int()).
Entity and check names must fit the `ENTITY:CHECK` layout (flapjack_py.model.names): no ':'
in the entity, no control characters in either.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from flapjack_py.durations import MAX_DURATION
from flapjack_py.errors import InvalidEvent
from flapjack_py.model.actors import Actor, actor_problem, channel_problem
from flapjack_py.model.names import check_name_problem, entity_name_problem

REQUIRED_KEYS = ("type", "state", "entity", "check")
OPTIONAL_KEYS = ("time", "summary", "details", "acknowledgement_id", "duration", "tags", "perfdata",
                 "initial_failure_delay", "repeat_failure_delay", "actor", "channel")
EVENT_TYPES = ("service", "action")
STATES = ("ok", "warning", "critical", "unknown", "acknowledgement", "test_notifications")
FAILURE_STATES = ("warning", "critical", "unknown")
DEFAULT_MAX_EVENT_BYTES = 64 * 1024
"""Longest raw event accepted when the caller gives no limit (config executive.max_event_bytes)."""
MAX_JSON_DEPTH = 16
"""Deepest nesting of arrays/objects accepted; a valid event needs 2."""
MAX_TIME = 32_503_680_000
"""Largest absolute `time` accepted: 3000-01-01T00:00:00Z in unix seconds."""
INTEGER_RANGES = {"time": MAX_TIME, "duration": MAX_DURATION, "initial_failure_delay": MAX_DURATION,
                  "repeat_failure_delay": MAX_DURATION}
"""Integer field -> largest absolute value accepted (negative JSON integers pass, engine.md 1.2)."""
MAX_ACK_ID_LENGTH = 256
_DIGITS = re.compile(r"[0-9]{1,20}")  # ASCII digits only, matched with fullmatch (no "12\n", no other scripts' digits)
_ALL_DIGITS = re.compile(r"[0-9]+")
_BRACKET = re.compile(r"[][{}]")
_JSON_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"')


DEFAULT_ACK_DURATION = 14400  # seconds (4 hours)
"""An acknowledgement without a (positive) duration silences its check this long."""


class EventType(StrEnum):
    """The two kinds of event."""

    SERVICE = "service"
    ACTION = "action"


@dataclass(frozen=True)
class Event:
    """A validated, normalised event (entity, type and state lower-cased)."""

    type: str
    state: str
    entity: str
    check: str
    time: int | None = None
    summary: str | None = None
    details: str | None = None
    perfdata: str | None = None
    acknowledgement_id: str | int | None = None
    duration: int | None = None
    initial_failure_delay: int | None = None
    repeat_failure_delay: int | None = None
    tags: frozenset[str] = field(default_factory=frozenset)
    actor: str | None = None  # who made an action event (flapjack_py.model.actors)
    channel: str | None = None  # ... and through which channel

    @property
    def id(self) -> str:
        """The `E:C` check id."""
        return f"{self.entity}:{self.check}"

    @property
    def is_service(self) -> bool:
        return self.type == EventType.SERVICE

    @property
    def is_failure(self) -> bool:
        """True for a service event in warning, critical or unknown."""
        return self.is_service and self.state in FAILURE_STATES

    @property
    def is_ok(self) -> bool:
        return self.is_service and self.state == "ok"

    @property
    def is_acknowledgement(self) -> bool:
        return self.type == EventType.ACTION and self.state == "acknowledgement"

    @property
    def is_test(self) -> bool:
        return self.type == EventType.ACTION and self.state == "test_notifications"


def parse_event(raw: str | bytes, max_bytes: int = DEFAULT_MAX_EVENT_BYTES) -> Event | None:
    """Parse one raw event; return None for a noop; raise InvalidEvent listing every problem.

    Events longer than `max_bytes` (UTF-8 bytes), not UTF-8, or nested deeper than
    MAX_JSON_DEPTH are refused before they are parsed.
    """
    data = _load_json(_checked_text(raw, max_bytes))
    if data.get("type") == "noop":
        return None
    errors = _check_keys(data) or _field_errors(data)
    if errors:
        raise InvalidEvent(errors)
    return _normalise(data)


_ALLOWED_KEYS = frozenset(REQUIRED_KEYS + OPTIONAL_KEYS)
_SURROGATE = re.compile("[\ud800-\udfff]")


def _checked_text(raw: str | bytes, max_bytes: int) -> str:
    """The event as text, or InvalidEvent when it is too long, not UTF-8, or too deeply nested."""
    size = len(raw) if isinstance(raw, bytes) else len(raw.encode("utf-8", "surrogatepass"))
    if size > max_bytes:
        raise InvalidEvent([f"event too large: {size} bytes, more than the {max_bytes} allowed (executive.max_event_bytes)"])
    if isinstance(raw, bytes):
        try:
            raw = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InvalidEvent([f"not UTF-8: byte 0x{raw[exc.start]:02x} at offset {exc.start}"]) from None
    if raw.count("[") + raw.count("{") > MAX_JSON_DEPTH and _too_deep(raw):
        raise InvalidEvent([f"JSON nested deeper than {MAX_JSON_DEPTH} levels"])
    return raw


def _too_deep(text: str) -> bool:
    """True when [ and { outside strings nest deeper than MAX_JSON_DEPTH; stops at the first such place."""
    depth = 0
    for match in _BRACKET.finditer(_JSON_STRING.sub("", text)):
        depth += 1 if match.group() in "[{" else -1
        if depth > MAX_JSON_DEPTH:
            return True
    return False


def _load_json(raw: str) -> dict[str, Any]:
    try:
        data = _DECODER.decode(raw)
    except (ValueError, RecursionError) as exc:
        raise InvalidEvent([f"not valid JSON: {exc}"]) from None
    if not isinstance(data, dict):
        raise InvalidEvent([f"event must be a JSON object, got {type(data).__name__}"])
    if "\\u" not in raw:  # lone surrogates can only come from \\u escapes
        return data
    return {_no_surrogates(k): _no_surrogates(v) for k, v in data.items()}


def _no_surrogates(value: Any) -> Any:
    """Replace lone surrogates (JSON escapes like \\ud800, not valid UTF-8) with `?`."""
    if isinstance(value, str):
        return value.encode("utf-8", "replace").decode("utf-8") if _SURROGATE.search(value) else value
    if isinstance(value, list):
        return [_no_surrogates(v) for v in value]
    return value


def _reject_constant(name: str) -> None:
    raise ValueError(f"{name} is not allowed")


_DECODER = json.JSONDecoder(parse_constant=_reject_constant)  # strict: no NaN/Infinity


def _check_keys(data: dict[str, Any]) -> list[str]:
    errors = []
    missing = [k for k in REQUIRED_KEYS if not isinstance(data.get(k), str) or data.get(k) == ""]
    absent = [k for k in missing if data.get(k) is None or data.get(k) == ""]
    if absent:
        errors.append(f"missing required keys: {', '.join(absent)}")
    errors += [f"{k} must be a string, got {json.dumps(data[k])}" for k in missing if k not in absent]
    unknown = sorted(data.keys() - _ALLOWED_KEYS)
    if unknown:
        errors.append(f"unknown keys: {', '.join(unknown)}")
    return errors


_STRING_FIELDS = frozenset(("entity", "check", "summary", "details", "perfdata"))  # entity, check: see _check_keys
_NAME_RULES: dict[str, Callable[[str], str | None]] = {"entity": entity_name_problem, "check": check_name_problem}


def _field_errors(data: dict[str, Any]) -> list[str]:
    """Every field's problem, in the event's order; the common valid values pass without a closer look."""
    errors = []
    for name, value in data.items():
        if type(value) is str and name in _STRING_FIELDS:
            rule = _NAME_RULES.get(name)
            if rule is not None and (problem := rule(value)):
                errors.append(problem)
            continue
        limit = INTEGER_RANGES.get(name)
        if limit is not None and type(value) is int and -limit <= value <= limit:
            continue
        error = _check_field(name, value)
        if error:
            errors.append(error)
    return errors


def _check_field(name: str, value: Any) -> str | None:
    """The problem with one field's value, or None (required keys' presence is checked before)."""
    if name == "type":
        return None if value.lower() in EVENT_TYPES else f"type must be one of {', '.join(EVENT_TYPES)}, got {value!r}"
    if name == "state":
        return None if value.lower() in STATES else f"state must be one of {', '.join(STATES)}, got {value!r}"
    if name in _PROBLEM_CHECKS:
        return None if value is None else _PROBLEM_CHECKS[name](value)
    check = _FIELD_CHECKS.get(name)
    if value is None or check is None or check[0](value):
        return None
    if name in INTEGER_RANGES and (_is_integer(value) or (isinstance(value, str) and _ALL_DIGITS.fullmatch(value))):
        return f"{name} must be between -{INTEGER_RANGES[name]} and {INTEGER_RANGES[name]}, got {_shown(value)}"
    return f"{name} must be {check[1]}, got {_shown(value)}"


def _shown(value: Any) -> str:
    """A value as JSON for an error message, cut to 60 characters."""
    text = json.dumps(value)
    return text if len(text) <= 60 else f"{text[:57]}..."


def _is_integer(value: Any) -> bool:
    """An int, or a string of 1-20 ASCII digits (longer ones are out of every range anyway)."""
    if isinstance(value, bool):
        return False
    return isinstance(value, int) or (isinstance(value, str) and _DIGITS.fullmatch(value) is not None)


def _in_range(name: str) -> Any:
    def check(value: Any) -> bool:
        return _is_integer(value) and abs(int(value)) <= INTEGER_RANGES[name]
    return check


def _is_ack_id(value: Any) -> bool:
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        return False
    return len(value) <= MAX_ACK_ID_LENGTH if isinstance(value, str) else abs(value) < 2**63


def _is_string_list(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(t, str) for t in value)


_FIELD_CHECKS: dict[str, tuple[Any, str]] = {
    **{name: (_in_range(name), "an integer") for name in INTEGER_RANGES},
    **dict.fromkeys(("summary", "details", "perfdata"), (lambda v: isinstance(v, str), "a string")),
    "acknowledgement_id": (_is_ack_id, f"a string (at most {MAX_ACK_ID_LENGTH} characters) or a 64-bit integer"),
    "tags": (_is_string_list, "an array of strings"),
}
_PROBLEM_CHECKS: dict[str, Callable[[Any], str | None]] = {"actor": actor_problem, "channel": channel_problem}


def _normalise(data: dict[str, Any]) -> Event:
    get = data.get
    return Event(
        type=data["type"].lower(), state=data["state"].lower(), entity=data["entity"].lower(),
        check=data["check"], time=_integer(get("time")), summary=_text(get("summary")), details=_text(get("details")),
        perfdata=_text(get("perfdata")), acknowledgement_id=get("acknowledgement_id"),
        duration=_integer(get("duration")), initial_failure_delay=_integer(get("initial_failure_delay")),
        repeat_failure_delay=_integer(get("repeat_failure_delay")), tags=frozenset(get("tags") or ()),
        actor=get("actor"), channel=get("channel") if get("actor") else None,
    )


def _text(value: Any) -> str | None:
    """A string field stripped, None when absent, blank or not a string."""
    return (value.strip() or None) if isinstance(value, str) else None


def _integer(value: Any) -> int | None:
    """A validated integer field (an int or a string of digits) as int."""
    return None if value is None else int(value)


def action_event(state: str, entity: str, check: str, *, summary: str | None = None,
                 duration: int | None = None, time: int | None = None, ack_id: str | None = None,
                 actor: Actor | None = None) -> dict[str, Any]:
    """The raw action event (`state` acknowledgement or test_notifications) the action path
    (flapjack_py.actions) pushes; the fields given as None are left out (the executive then applies its
    defaults)."""
    event: dict[str, Any] = {"type": EventType.ACTION.value, "state": state, "entity": entity, "check": check}
    optional = {"summary": summary, "duration": duration, "time": time, "acknowledgement_id": ack_id}
    event.update((name, value) for name, value in optional.items() if value is not None)
    if actor is not None:
        event.update(actor.fields())
    return event


def derived_tags(entity: str, check: str) -> set[str]:
    """Tags every event carries: entity split once on the first '.', check split on whitespace."""
    tags = {part.lower() for part in entity.split(".", 1) if part}
    tags.update(word.lower() for word in check.split())
    return tags


def parse_perfdata(perfdata: str) -> list[dict[str, str]]:
    """`time=0.48s;;;0 size=909B;;;0` -> [{"key": "time", "value": "0.48s"}, ...]."""
    items = []
    for item in perfdata.split():
        key, _, rest = item.partition("=")
        items.append({"key": key, "value": rest.split("=", 1)[0].split(";", 1)[0]})
    return items


def ack_duration(duration: int | None) -> int:
    """The unscheduled maintenance an ack creates: its duration, or 4 hours when missing or <= 0."""
    return duration if duration and duration > 0 else DEFAULT_ACK_DURATION
