"""Events: parse and validate the raw JSON feeders push (engine.md sections 1.2-1.3). Pure."""

from __future__ import annotations

import codecs
import json
import re
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from .errors import InvalidEvent

REQUIRED_KEYS = ("type", "state", "entity", "check")
OPTIONAL_KEYS = ("time", "summary", "details", "acknowledgement_id", "duration", "tags", "perfdata",
                 "initial_failure_delay", "repeat_failure_delay")
EVENT_TYPES = ("service", "action")
STATES = ("ok", "warning", "critical", "unknown", "acknowledgement", "test_notifications")
FAILURE_STATES = ("warning", "critical", "unknown")
_QUESTION_MARK = "flapjack-question-mark"


def _replace_with_question_mark(exc: UnicodeError) -> tuple[str, int]:
    """Codec error handler: an invalid UTF-8 sequence becomes `?` (engine.md 1.3), as Ruby's scrub('?')."""
    if not isinstance(exc, UnicodeDecodeError):
        raise exc
    return "?", exc.end


codecs.register_error(_QUESTION_MARK, _replace_with_question_mark)
_DIGITS = re.compile(r"[0-9]+")  # ASCII digits only, matched with fullmatch (no "12\n", no other scripts' digits)


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


def parse_event(raw: str | bytes) -> Event | None:
    """Parse one raw event; return None for a noop; raise InvalidEvent listing every problem."""
    data = _load_json(raw)
    if data.get("type") == "noop":
        return None
    errors = _check_keys(data)
    if not errors:
        errors = [e for name, value in data.items() if (e := _check_field(name, value))]
    if errors:
        raise InvalidEvent(errors)
    return _normalise(data)


_ALLOWED_KEYS = frozenset(REQUIRED_KEYS + OPTIONAL_KEYS)
_SURROGATE = re.compile("[\ud800-\udfff]")


def _load_json(raw: str | bytes) -> dict[str, Any]:
    if isinstance(raw, bytes):
        raw = raw.decode("utf-8", _QUESTION_MARK)
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


def _check_field(name: str, value: Any) -> str | None:
    """The problem with one field's value, or None (required keys' presence is checked before)."""
    if name == "type":
        return None if value.lower() in EVENT_TYPES else f"type must be one of {', '.join(EVENT_TYPES)}, got {value!r}"
    if name == "state":
        return None if value.lower() in STATES else f"state must be one of {', '.join(STATES)}, got {value!r}"
    check = _FIELD_CHECKS.get(name)
    if value is None or check is None or check[0](value):
        return None
    return f"{name} must be {check[1]}, got {json.dumps(value)}"


def _is_integer(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    return isinstance(value, int) or (isinstance(value, str) and _DIGITS.fullmatch(value) is not None)


def _is_string_list(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(t, str) for t in value)


_FIELD_CHECKS: dict[str, tuple[Any, str]] = {
    **dict.fromkeys(("time", "initial_failure_delay", "repeat_failure_delay", "duration"), (_is_integer, "an integer")),
    **dict.fromkeys(("summary", "details", "perfdata"), (lambda v: isinstance(v, str), "a string")),
    "acknowledgement_id": (lambda v: not isinstance(v, bool) and isinstance(v, (str, int)), "a string or integer"),
    "tags": (_is_string_list, "an array of strings"),
}


def _normalise(data: dict[str, Any]) -> Event:
    def text(name: str) -> str | None:
        value = data.get(name)
        return (value.strip() or None) if isinstance(value, str) else None

    def integer(name: str) -> int | None:
        value = data.get(name)
        return None if value is None else int(value)

    return Event(
        type=data["type"].lower(), state=data["state"].lower(), entity=data["entity"].lower(),
        check=data["check"], time=integer("time"), summary=text("summary"), details=text("details"),
        perfdata=text("perfdata"), acknowledgement_id=data.get("acknowledgement_id"),
        duration=integer("duration"), initial_failure_delay=integer("initial_failure_delay"),
        repeat_failure_delay=integer("repeat_failure_delay"), tags=frozenset(data.get("tags") or ()),
    )


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
