"""Schedules to and from their JSON form (API bodies, the stored hash). Pure: times are passed in.

`{"id","name","timezone","layers":[{"start","rotation","contacts":[…],"restrictions":[{"weekdays",
"start","end"}],"ical"|"ical_url"}],"overrides":[{"start","end","contact"}]}`; times are ISO 8601 or
what people type (flapjack_py.timeparse), read in the schedule's zone; stored as unix seconds.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from datetime import UTC, datetime, time
from typing import Any

from flapjack_py.access import Role, sees_credentials, shown_credential_url
from flapjack_py.oncall.schedules import (
    WEEKDAYS,
    InvalidSchedule,
    Layer,
    Override,
    Restriction,
    Schedule,
    check_ical,
    rotation_of,
)
from flapjack_py.timeparse import TimeParseError, parse_time, zone_named

log = logging.getLogger(__name__)

MAX_LAYERS = 20
MAX_OVERRIDES = 500
MAX_CONTACTS = 200
MAX_ICAL = 1_000_000
"""Largest iCalendar text a layer holds (characters)."""
MAX_TEXT = 200


def schedule_from_json(data: Any, now: int, schedule_id: str) -> Schedule:
    """A validated Schedule from `data` (an API item); raises InvalidSchedule saying what is wrong."""
    if not isinstance(data, Mapping):
        raise InvalidSchedule("a schedule must be an object")
    zone_name = data.get("timezone") or "UTC"
    try:
        zone_named(zone_name)
    except TimeParseError as exc:
        raise InvalidSchedule(str(exc)) from None
    layers = _list(data.get("layers"), "layers", MAX_LAYERS)
    if not layers:
        raise InvalidSchedule("a schedule needs at least one layer")
    return Schedule(id=schedule_id, name=_text(data.get("name"), "name"), timezone=zone_name,
                    layers=tuple(_layer(item, zone_name, now) for item in layers),
                    overrides=tuple(_override(item, zone_name, now)
                                    for item in _list(data.get("overrides"), "overrides", MAX_OVERRIDES)))


def schedule_to_json(schedule: Schedule) -> dict[str, Any]:
    """The JSON form of a schedule (times as ISO 8601 UTC)."""
    return {"id": schedule.id, "name": schedule.name, "timezone": schedule.timezone,
            "layers": [_layer_json(layer) for layer in schedule.layers],
            "overrides": [{"start": iso(o.start), "end": iso(o.end), "contact": o.contact} for o in schedule.overrides]}


def schedule_shown_to(role: Role, schedule: Schedule) -> dict[str, Any]:
    """schedule_to_json as `role` may see it: below admin (access.sees_credentials), as for media credentials,
    a calendar layer's `ical_url` shows only where it points (its userinfo, path or query may hold the feed's
    token) and its `ical` text, the whole fetched calendar, is left out."""
    found = schedule_to_json(schedule)
    if sees_credentials(role):
        return found
    found["layers"] = [_layer_shown_to(role, layer) for layer in found["layers"]]
    return found


def iso(ts: int) -> str:
    """Unix seconds as ISO 8601 UTC (`2024-03-31T01:00:00Z`)."""
    return datetime.fromtimestamp(ts, UTC).isoformat().replace("+00:00", "Z")


def contacts_named(schedule: Schedule) -> list[str]:
    """Every contact id the schedule's rotations and overrides name (not those its calendars name)."""
    found = [c for layer in schedule.layers for c in layer.contacts] + [o.contact for o in schedule.overrides]
    return list(dict.fromkeys(found))


# --- helpers ----------------------------------------------------------------


def _layer(item: Any, zone: str, now: int) -> Layer:
    if not isinstance(item, Mapping):
        raise InvalidSchedule("each layer must be an object")
    ical = item.get("ical") or ""
    if ical:
        if not isinstance(ical, str) or len(ical) > MAX_ICAL:
            raise InvalidSchedule(f"ical must be iCalendar text of at most {MAX_ICAL} characters")
        check_ical(ical)
        return Layer(start=0, ical=ical, ical_url=_text(item.get("ical_url"), "ical_url", 2000))
    contacts = tuple(_text(c, "contacts") for c in _list(item.get("contacts"), "contacts", MAX_CONTACTS))
    if not contacts or not all(contacts):
        raise InvalidSchedule("a layer needs contacts (an ordered list of contact ids) or an ical calendar")
    return Layer(start=_time(item.get("start"), zone, now, "start"), rotation=rotation_of(item.get("rotation", "P1W")),
                 contacts=contacts,
                 restrictions=tuple(_restriction(r) for r in _list(item.get("restrictions"), "restrictions", 50)))


def _layer_json(layer: Layer) -> dict[str, Any]:
    if layer.ical:
        return {"ical": layer.ical, "ical_url": layer.ical_url} if layer.ical_url else {"ical": layer.ical}
    found: dict[str, Any] = {"start": iso(layer.start), "rotation": _iso_duration(layer), "contacts": list(layer.contacts)}
    if layer.restrictions:
        found["restrictions"] = [{"weekdays": list(r.weekdays), "start": r.start.strftime("%H:%M"),
                                  "end": r.end.strftime("%H:%M")} for r in layer.restrictions]
    return found


def _layer_shown_to(role: Role, layer: dict[str, Any]) -> dict[str, Any]:
    if "ical" not in layer:
        return layer
    shown = {key: value for key, value in layer.items() if key != "ical"}
    if "ical_url" in shown:
        shown["ical_url"] = shown_credential_url(role, shown["ical_url"])
    return shown


def _iso_duration(layer: Layer) -> str:
    days, seconds = layer.rotation.days, layer.rotation.seconds
    text = "P" + (f"{days}D" if days else "")
    if seconds:
        hours, rest = divmod(seconds, 3600)
        minutes, secs = divmod(rest, 60)
        text += "T" + "".join(f"{n}{u}" for n, u in ((hours, "H"), (minutes, "M"), (secs, "S")) if n)
    return text


def _restriction(item: Any) -> Restriction:
    if not isinstance(item, Mapping):
        raise InvalidSchedule("each restriction must be an object {weekdays, start, end}")
    days = _list(item.get("weekdays", [1, 2, 3, 4, 5, 6, 7]), "weekdays", 7)
    return Restriction(weekdays=tuple(_weekday(d) for d in days), start=_clock(item.get("start", "00:00")),
                       end=_clock(item.get("end", "00:00")))


def _weekday(value: Any) -> int:
    if isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= 7:
        return value
    if isinstance(value, str) and value[:3].lower() in WEEKDAYS:
        return WEEKDAYS.index(value[:3].lower()) + 1
    raise InvalidSchedule(f"weekdays are 1 (Monday) to 7 or names such as 'mon': {value!r}")


def _clock(value: Any) -> time:
    try:
        return time.fromisoformat(value) if isinstance(value, str) and len(value) <= 8 else _bad_clock(value)
    except ValueError:
        return _bad_clock(value)


def _bad_clock(value: Any) -> time:
    raise InvalidSchedule(f"restriction times are HH:MM local time: {value!r}")


def _override(item: Any, zone: str, now: int) -> Override:
    if not isinstance(item, Mapping):
        raise InvalidSchedule("each override must be an object {start, end, contact}")
    start, end = _time(item.get("start"), zone, now, "start"), _time(item.get("end"), zone, now, "end")
    if end <= start:
        raise InvalidSchedule("an override must end after it starts")
    contact = _text(item.get("contact"), "contact")
    if not contact:
        raise InvalidSchedule("an override needs a contact")
    return Override(start, end, contact)


def _time(value: Any, zone: str, now: int, name: str) -> int:
    if not isinstance(value, str) or not value:
        raise InvalidSchedule(f"{name} must be a time (ISO 8601 or e.g. 'next monday 09:00')")
    try:
        return int(parse_time(value, datetime.fromtimestamp(now, UTC), zone).timestamp())
    except TimeParseError as exc:
        raise InvalidSchedule(f"{name}: {exc}") from None


def _list(value: Any, name: str, most: int) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list) or len(value) > most:
        raise InvalidSchedule(f"{name} must be a list of at most {most} items")
    return value


def _text(value: Any, name: str, most: int = MAX_TEXT) -> str:
    if value is None:
        return ""
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str) or len(value) > most:
        raise InvalidSchedule(f"{name} must be a string of at most {most} characters")
    return value
