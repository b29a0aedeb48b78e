"""Generic JSON webhooks (config `receivers.webhooks.NAME`) -> Flapjack events. Pure.

A mapping (flapjack_py.config.receivers.WebhookReceiver) says where in the payload each part
of an event is, as dotted paths (`alert.host`, `items.0.name`; flapjack_py/model/json_paths.py):

* alerts: a path to a list of alerts, one event each; unset: the payload is one alert. The
  other paths are read from each alert;
* entity, check: the text or number at the path, else default_entity / default_check; every ':'
  and control character of the entity, and every control character of the check, becomes '-'
  (flapjack_py.model.names);
* state: the first of the `state` paths whose value `states` maps (ignoring case), or whose value
  is itself ok, warning, critical or unknown; a value that is neither passes on to the next
  path, and when none decides the state is default_state (no `state` paths: always default_state);
* summary: the value at `summary`, else default_summary, else the check name;
* time: when the payload arrives.

A value that is missing, null or "" counts as missing. A missing value with no default (for
state: every `state` path missing) is an error naming the path, as is an object or a list where a
value is wanted.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from flapjack_py.config.receivers import WebhookReceiver
from flapjack_py.errors import InvalidEvent
from flapjack_py.model.json_paths import MISSING, lookup, parse_path, scalar_text
from flapjack_py.model.names import fitted_check_name, fitted_entity_name

STATES = ("ok", "warning", "critical", "unknown")
_segments = lru_cache(maxsize=1024)(parse_path)


def alerts_of(payload: Any, mapping: WebhookReceiver) -> list[Any]:
    """The alerts of a payload: the list at `mapping.alerts`, or the payload itself as the one alert."""
    if mapping.alerts is None:
        return [payload]
    found = lookup(payload, _segments(mapping.alerts))
    if found is MISSING or found is None:
        raise InvalidEvent([f"no value at `{mapping.alerts}` (alerts)"])
    if not isinstance(found, list):
        raise InvalidEvent([f"`{mapping.alerts}` (alerts) is not a list"])
    return found


def events_from_alerts(alerts: list[Any], mapping: WebhookReceiver, now: int) -> list[dict[str, Any]]:
    """One event per alert; InvalidEvent naming the alert (when there is a list) and the path at fault."""
    folded = {value.strip().casefold(): state for value, state in mapping.states.items()}
    events = []
    for index, alert in enumerate(alerts):
        try:
            events.append(event_from_alert(alert, mapping, now, folded))
        except InvalidEvent as exc:
            where = f"alert {index}: " if mapping.alerts is not None else ""
            raise InvalidEvent([f"{where}{error}" for error in exc.errors]) from None
    return events


def event_from_alert(alert: Any, mapping: WebhookReceiver, now: int,
                     folded: Mapping[str, str] | None = None) -> dict[str, Any]:
    """One alert as a Flapjack service event (`folded`: mapping.states with case-folded keys)."""
    entity = _required(alert, mapping.entity, mapping.default_entity, "entity")
    check = fitted_check_name(_required(alert, mapping.check, mapping.default_check, "check"))
    summary = _value(alert, mapping.summary, "summary") or mapping.default_summary or check
    if folded is None:
        folded = {value.strip().casefold(): state for value, state in mapping.states.items()}
    return {"type": "service", "entity": fitted_entity_name(entity), "check": check,
            "state": _state(alert, mapping, folded), "summary": summary, "time": now}


def _state(alert: Any, mapping: WebhookReceiver, folded: Mapping[str, str]) -> str:
    """The state the first deciding `state` path gives; default_state when none decides."""
    present = False
    for path in mapping.state:
        value = _value(alert, path, "state")
        if value is None:
            continue
        present = True
        key = value.strip().casefold()
        state = folded.get(key) or (key if key in STATES else None)
        if state:
            return state
    if mapping.state and not present:
        raise InvalidEvent([f"no value at `{'`, `'.join(mapping.state)}` (state)"])
    return mapping.default_state


def _required(alert: Any, path: str | None, default: str | None, what: str) -> str:
    """The value at `path`, else `default`; InvalidEvent naming the path when neither is there."""
    value = _value(alert, path, what)
    if value is not None:
        return value
    if default is not None:
        return default
    raise InvalidEvent([f"no value at `{path}` ({what})"])


def _value(alert: Any, path: str | None, what: str) -> str | None:
    """The text of the scalar at `path` (None when unset, missing, null or ""); InvalidEvent for an object or list."""
    if path is None:
        return None
    found = lookup(alert, _segments(path))
    if found is MISSING or found is None or found == "":
        return None
    text = scalar_text(found)
    if text is None:
        raise InvalidEvent([f"`{path}` ({what}) is {'an object' if isinstance(found, dict) else 'a list'}, "
                            "not a value"])
    return text
