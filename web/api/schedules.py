"""API resource [addition]: on-call schedules, who is on call, their shifts, and iCalendar feeds.

Routes are added to web.api.bp; OpenAPI path items go in PATHS. Resolution is flapjack_py.oncall.schedules
(pure); storage flapjack_py.store.schedules; iCalendar text flapjack_py.oncall.schedule_ical.
"""

from __future__ import annotations

import logging
import time
import uuid
from typing import Any

from flask import Response, request

from flapjack_py.errors import FetchError
from flapjack_py.oncall import ical_fetch as safe_fetch
from flapjack_py.oncall import schedule_ical
from flapjack_py.oncall.schedule_data import (
    contacts_named,
    iso,
    schedule_from_json,
    schedule_shown_to,
    schedule_to_json,
)
from flapjack_py.oncall.schedules import InvalidSchedule, Schedule, check_ical, oncall_at, shifts
from flapjack_py.store import contacts as contact_store
from flapjack_py.store import schedules as store

from ..auth import current_principal
from ..errors import ApiError
from . import bp
from .common import (
    answer,
    created,
    ctx,
    find_listed,
    no_content,
    patch_ops,
    query_time,
    required_query_time,
    wrapped_list,
)
from .schemas import LOCATION, NO_CONTENT, STR_LIST, ids_param, ok, operation, patch_body, query, wrapper

log = logging.getLogger(__name__)

NAME = "schedules"
MAX_ITEMS = 50
MAX_SPAN = 366 * 86400
"""Longest period (seconds) one shifts or .ics request covers."""
FEED_WEEKS = 6
"""Weeks of shifts an .ics feed holds."""
ICAL_FETCH_TIMEOUT = 10.0
"""Seconds one ical_url fetch may take in all (connects, redirects and reads)."""
ICAL_MAX_BYTES = 1_000_000
FETCH_FAILED = "could not fetch ical_url (refused, unreachable, too large or not a calendar)"
"""The one answer to every failed ical_url fetch (the reason is logged)."""
PATCHABLE = ("name", "timezone", "layers", "overrides")


@bp.route("/schedules", methods=["GET"])
@bp.route("/schedules/<ids>", methods=["GET"])
def get_schedules(ids: str | None = None) -> Response:
    role = current_principal().role
    return answer({NAME: [schedule_shown_to(role, s) for s in _find(ids)]})


@bp.route("/schedules", methods=["POST"])
def post_schedules() -> Response:
    items = wrapped_list(NAME, 422)
    if not items or len(items) > MAX_ITEMS or not all(isinstance(i, dict) for i in items):
        raise ApiError(422, f"No valid {NAME} were submitted")
    made = [_parse(_with_fetched_icals(item), _new_id(item)) for item in items]
    taken = [s.id for s in made if store.load_schedule(ctx().client, s.id) is not None]
    if taken:
        raise ApiError(409, f"Schedules already exist with the following IDs: {', '.join(taken)}")
    for schedule in made:
        store.save_schedule(ctx().client, schedule)
    return created(NAME, [s.id for s in made], [s.id for s in made])


@bp.route("/schedules/<ids>", methods=["PATCH"])
def patch_schedules(ids: str) -> Response:
    found = _find(ids)
    ops = [op for op in patch_ops(NAME) if op.op == "replace" and op.field in PATCHABLE]
    changed = []
    for schedule in found:
        data = schedule_to_json(schedule)
        for op in ops:
            data[op.field] = op.value
        changed.append(_parse(_with_fetched_icals(data), schedule.id))
    for schedule in changed:
        store.save_schedule(ctx().client, schedule)
    return no_content()


@bp.route("/schedules/<ids>", methods=["DELETE"])
def delete_schedules(ids: str) -> Response:
    for schedule in _find(ids):
        store.delete_schedule(ctx().client, schedule.id)
    return no_content()


@bp.route("/schedules/<schedule_id>/oncall", methods=["GET"])
def get_oncall(schedule_id: str) -> Response:
    schedule = _one(schedule_id)
    at = query_time("at") if request.args.get("at") else int(time.time())
    if at is None:
        at = required_query_time("at")  # says what was understood
    shift = oncall_at(schedule, at, store.known_contacts(ctx().client))
    return answer({"oncall": list(shift.contacts), "until": iso(shift.end)})


@bp.route("/schedules/<schedule_id>/shifts", methods=["GET"])
def get_shifts(schedule_id: str) -> Response:
    schedule = _one(schedule_id)
    start, end = _period()
    found = shifts(schedule, start, end, store.known_contacts(ctx().client))
    return answer({"shifts": [{"start": iso(s.start), "end": iso(s.end), "oncall": list(s.contacts)} for s in found]})


@bp.route("/schedules/<schedule_id>.ics", methods=["GET"])
def get_schedule_ics(schedule_id: str) -> Response:
    schedule = _one(schedule_id)
    now = int(time.time())
    body = schedule_ical.schedule_feed(schedule, now, now + FEED_WEEKS * 7 * 86400, store.known_contacts(ctx().client))
    return _calendar(body, schedule_id)


@bp.route("/contacts/<contact_id>/oncall.ics", methods=["GET"])
def get_contact_oncall_ics(contact_id: str) -> Response:
    if not contact_store.contact_exists(ctx().client, contact_id):
        raise ApiError(404, f"could not find contacts '{contact_id}'")
    now = int(time.time())
    body = schedule_ical.contact_feed(store.load_schedules(ctx().client), contact_id, now,
                                      now + FEED_WEEKS * 7 * 86400, store.known_contacts(ctx().client))
    return _calendar(body, f"oncall-{contact_id}")


# --- helpers ----------------------------------------------------------------


def _find(ids: str | None) -> list[Schedule]:
    return find_listed(ids, store.load_schedules, NAME)


def _one(schedule_id: str) -> Schedule:
    found = store.load_schedule(ctx().client, schedule_id)
    if found is None:
        raise ApiError(404, f"could not find {NAME} '{schedule_id}'")
    return found


def _parse(item: dict[str, Any], schedule_id: str) -> Schedule:
    try:
        schedule = schedule_from_json(item, int(time.time()), schedule_id)
    except InvalidSchedule as exc:
        raise ApiError(422, str(exc)) from None
    unknown = [c for c in contacts_named(schedule) if not contact_store.contact_exists(ctx().client, c)]
    if unknown:
        raise ApiError(422, f"unknown contacts: {', '.join(unknown)}")
    return schedule


def _with_fetched_icals(item: dict[str, Any]) -> dict[str, Any]:
    """`item` with each layer that names an `ical_url` given that calendar's text (fetched now)."""
    layers = item.get("layers")
    if not isinstance(layers, list):
        return item
    return {**item, "layers": [_fetched(layer) if isinstance(layer, dict) and layer.get("ical_url") else layer
                               for layer in layers]}


def _fetched(layer: dict[str, Any]) -> dict[str, Any]:
    """`layer` given the calendar its `ical_url` answers, fetched through flapjack_py.oncall.ical_fetch.

    Every failure (an internal address, unreachable, too slow, too large, not an iCalendar) gets the same
    answer, which holds nothing the server sent nor why it failed: the answer must not tell an open port from
    a closed one nor echo an internal page. The reason is logged, with the URL's origin only.
    """
    url = layer["ical_url"]
    if not isinstance(url, str) or not url.startswith(("http://", "https://")) or len(url) > 2000:
        raise ApiError(422, "ical_url must be an http(s) URL")
    try:
        body = safe_fetch.fetch(url, allow_private=ctx().config.schedules.allow_private_urls,
                                max_bytes=ICAL_MAX_BYTES, timeout=ICAL_FETCH_TIMEOUT)
        text = body.decode("utf-8", "replace")
        check_ical(text)  # here, not in _parse: its message may quote the calendar
    except FetchError as exc:
        log.warning("schedule layer: ical_url not fetched: %s", exc)
        raise ApiError(422, FETCH_FAILED) from None
    except InvalidSchedule:
        log.warning("schedule layer: ical_url %s did not answer an iCalendar with events", safe_fetch.origin(url))
        raise ApiError(422, FETCH_FAILED) from None
    return {**layer, "ical": text}


def _period() -> tuple[int, int]:
    start = required_query_time("from") if request.args.get("from") else int(time.time())
    end = required_query_time("to") if request.args.get("to") else start + 7 * 86400
    if not 0 < end - start <= MAX_SPAN:
        raise ApiError(400, f"'to' must be after 'from', at most {MAX_SPAN // 86400} days later")
    return start, end


def _calendar(body: bytes, name: str) -> Response:
    return Response(body, content_type="text/calendar; charset=utf-8",
                    headers={"Content-Disposition": f'inline; filename="{name}.ics"'})


def _new_id(item: dict[str, Any]) -> str:
    given = item.get("id")
    if isinstance(given, int) and not isinstance(given, bool):
        given = str(given)
    if isinstance(given, str) and given and len(given) <= 100 and not set(given) & set(",/."):
        return given
    return str(uuid.uuid4())


LAYER = {"type": "object", "properties": {
    "start": {"type": "string", "description": "ISO 8601, or e.g. 'next monday 09:00' in the schedule's zone"},
    "rotation": {"type": "string", "examples": ["P1W", "P1D", "PT12H"]}, "contacts": STR_LIST,
    "restrictions": {"type": "array", "items": {"type": "object", "properties": {
        "weekdays": {"type": "array", "items": {"type": ["integer", "string"]}},
        "start": {"type": "string", "examples": ["09:00"]}, "end": {"type": "string", "examples": ["17:00"]}}}},
    "ical": {"type": "string", "description": "iCalendar text whose events' SUMMARY/ATTENDEE name contacts"},
    "ical_url": {"type": "string", "description": "where to fetch that iCalendar from"}}}
OVERRIDE = {"type": "object", "required": ["start", "end", "contact"], "properties": {
    "start": {"type": "string"}, "end": {"type": "string"}, "contact": {"type": "string"}}}
SCHEDULE = {"type": "object", "properties": {
    "id": {"type": "string"}, "name": {"type": "string"}, "timezone": {"type": "string", "examples": ["Europe/Berlin"]},
    "layers": {"type": "array", "items": LAYER}, "overrides": {"type": "array", "items": OVERRIDE}}}
ONCALL = {"type": "object", "properties": {"oncall": STR_LIST, "until": {"type": "string"}}}
SHIFTS = {"type": "object", "properties": {"shifts": {"type": "array", "items": {"type": "object", "properties": {
    "start": {"type": "string"}, "end": {"type": "string"}, "oncall": STR_LIST}}}}}
ICS = {"200": {"description": "RFC 5545 calendar", "content": {"text/calendar": {"schema": {"type": "string"}}}}}
_ID = [{"name": "schedule_id", "in": "path", "required": True, "schema": {"type": "string"}}]
PATHS: dict[str, Any] = {
    "/schedules": {
        "get": operation("List on-call schedules", ok(wrapper(NAME, SCHEDULE)), (), tag="schedules"),
        "post": operation("Create on-call schedules", ok(STR_LIST, "201", "Created", LOCATION),
                          ("400", "409", "415", "422"), body=wrapper(NAME, SCHEDULE), tag="schedules"),
    },
    "/schedules/{ids}": {
        "get": operation("Get on-call schedules", ok(wrapper(NAME, SCHEDULE)), ("404",), params=[ids_param()],
                         tag="schedules"),
        "patch": operation("Replace a schedule's name, timezone, layers or overrides", NO_CONTENT,
                           ("400", "404", "415", "422"), params=[ids_param()], body=patch_body(NAME),
                           body_types=("application/json-patch+json",), tag="schedules"),
        "delete": operation("Delete on-call schedules", NO_CONTENT, ("404",), params=[ids_param()], tag="schedules"),
    },
    "/schedules/{schedule_id}/oncall": {
        "get": operation("Who is on call at a moment", ok(ONCALL), ("400", "404"),
                         params=[*_ID, query("at", "ISO 8601 or e.g. 'tomorrow 03:00' [now]")], tag="schedules"),
    },
    "/schedules/{schedule_id}/shifts": {
        "get": operation("The resolved shifts of a period", ok(SHIFTS), ("400", "404"),
                         params=[*_ID, query("from", "start [now]"), query("to", "end [from + 7 days]")],
                         tag="schedules"),
    },
    "/schedules/{schedule_id}.ics": {
        "get": operation("The schedule's shifts as an iCalendar feed", ICS, ("404",), params=_ID, tag="schedules"),
    },
    "/contacts/{contact_id}/oncall.ics": {
        "get": operation("A contact's on-call shifts as an iCalendar feed", ICS, ("404",),
                         params=[{"name": "contact_id", "in": "path", "required": True, "schema": {"type": "string"}}],
                         tag="schedules"),
    },
}
