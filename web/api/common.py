"""Request and response conventions shared by every API resource (api-v1.md sections 1-2).

Views call these to read ids, bodies and JSON-Patch operations and to answer;
they raise web.errors.ApiError for every error answer.
"""

from __future__ import annotations

import json as stdlib_json
import logging
import re
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Protocol, TypeVar
from urllib.parse import quote

from flask import Response, current_app, json, request

from flapjack_py import keys, timeparse
from flapjack_py.store.plumbing import locks

from ..errors import JSONAPI_TYPE, ApiError

log = logging.getLogger(__name__)

LOCK_TTL = 30  # seconds the contact lock is held at most
LOCK_TRIES = 3
_SURROGATE = re.compile("[\ud800-\udfff]")


def ctx() -> Any:
    """The app's FlapjackContext (raw client, str client, config)."""
    return current_app.extensions["flapjack"]


# --- ids ---------------------------------------------------------------------


def id_list(raw: str) -> list[str]:
    """Split a path's comma-separated ids: empties dropped, duplicates removed (first kept).

    The WSGI server has already percent-decoded the path once; decoding again would turn an id
    containing `%` (a contact `a%41`, a check `Load 100%AB`) into a different id.
    """
    return list(dict.fromkeys(i for i in raw.split(",") if i))


def split_check_id(check_id: str, status: int = 400) -> tuple[str, str]:
    """(entity name, check name) of `ENTITY:CHECK`; ApiError `Malformed check ID` when malformed."""
    entity, sep, check = check_id.partition(":")
    if not sep or not entity or not check:
        raise ApiError(status, "Malformed check ID")
    return entity, check


# --- bodies --------------------------------------------------------------------


def json_body() -> Any:
    """The request body parsed as JSON (an empty body is `{}`); 400 when it is not JSON.

    NaN/Infinity and nesting too deep to parse are not JSON either (400). Lone surrogates
    (`"\\ud800"`, which Redis can't store as UTF-8) become `?`, as the executive does for events.
    """
    data = request.get_data(cache=True)
    if not data.strip():
        return {}
    try:
        return _no_surrogates(stdlib_json.loads(data, parse_constant=_reject_constant))
    except (ValueError, UnicodeDecodeError, RecursionError):
        raise ApiError(400, "Invalid JSON in request body") from None


def _reject_constant(name: str) -> None:
    raise ValueError(f"{name} is not JSON")


def _no_surrogates(value: Any) -> Any:
    """`value` with lone surrogates in every string (keys included) replaced by `?`."""
    if isinstance(value, str):
        return value.encode("utf-8", "replace").decode("utf-8") if _SURROGATE.search(value) else value
    if isinstance(value, list):
        return [_no_surrogates(v) for v in value]
    if isinstance(value, dict):
        return {_no_surrogates(k): _no_surrogates(v) for k, v in value.items()}
    return value


def wrapped_list(name: str, status: int = 403, missing: str | None = None,
                 not_list: str | None = None) -> list[Any]:
    """The list under `name` in a POST body (`{"contacts": [...]}`), or ApiError with the v1 messages."""
    body = json_body()
    if not isinstance(body, dict) or name not in body:
        raise ApiError(status, missing or f"No '{name}' object received")
    items = body[name]
    if not isinstance(items, list):
        raise ApiError(status, not_list or f"The received '{name}'' object is not an Array")
    return items


@dataclass(frozen=True)
class PatchOp:
    """One supported JSON-Patch operation: replace a field, or add/remove a link."""

    op: str  # "replace", "add" or "remove"
    field: str  # the field (replace) or link relation (add/remove)
    value: Any = None  # the new value (replace), the id(s) to link (add)
    member: str | None = None  # the member to unlink (remove)


def patch_ops(collection: str) -> list[PatchOp]:
    """The supported operations of a PATCH body for `collection`; unsupported ones are ignored (api-v1 2)."""
    body = json_body()
    if not isinstance(body, list) or not body:
        raise ApiError(400, "Invalid JSON-Patch request")
    prefix = f"/{collection}/0/"
    ops = []
    for item in body:
        if not isinstance(item, dict) or not isinstance(item.get("path"), str):
            continue
        op, path = item.get("op"), item["path"]
        if not path.startswith(prefix):
            continue
        parts = path[len(prefix):].split("/")
        if op == "replace" and len(parts) == 1 and parts[0] and parts[0] != "links":
            ops.append(PatchOp("replace", parts[0], item.get("value")))
        elif op == "add" and parts[0] == "links" and (len(parts) == 2 or (len(parts) == 3 and parts[2] == "-")):
            ops.append(PatchOp("add", parts[1], item.get("value")))
        elif op == "remove" and parts[0] == "links" and len(parts) == 3:
            member = parts[2].replace("~1", "/").replace("~0", "~")
            ops.append(PatchOp("remove", parts[1], member=member))
    return ops


# --- answers -------------------------------------------------------------------


def answer(data: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    """A JSON-API response with compact JSON, keys in insertion order."""
    body = json.dumps(data, separators=(",", ":"), sort_keys=False)
    response = Response(body, status=status, content_type=JSONAPI_TYPE)
    for name, value in (headers or {}).items():
        response.headers[name] = value
    return response


def created(collection: str, ids: Sequence[str], data: Any) -> Response:
    """201 with a Location header naming the new resources."""
    return answer(data, 201, {"Location": location(collection, ids)})


def no_content() -> Response:
    """204 with an empty body and no Content-Type (there is no body to describe)."""
    response = Response(status=204)
    del response.headers["Content-Type"]
    return response


def location(collection: str, ids: Sequence[str]) -> str:
    """`{api_base}/<collection>/<id>,<id>` with unsafe characters percent-encoded (`:` and `,` literal)."""
    base = ctx().config.web.api_base_url or (request.host_url.rstrip("/") + "/api")
    return f"{base.rstrip('/')}/{collection}/" + ",".join(quote(i, safe=":") for i in ids)


def not_found_list(prefix: str, ids: Sequence[str], sep: str = ", ", fmt: str = "'{}'") -> ApiError:
    """404 naming missing ids, e.g. `could not find contacts '1, 2'`."""
    return ApiError(404, prefix + sep.join(fmt.format(i) for i in ids))


class _Identified(Protocol):
    @property
    def id(self) -> str: ...


Found = TypeVar("Found", bound=_Identified)


def find_listed(ids: str | None, load: Callable[[Any, list[str] | None], list[Found]], name: str) -> list[Found]:
    """Every `name` item (`ids` None) or the listed ones, read by `load(client, ids)`; 404 naming any listed id
    not found."""
    if ids is None:
        return load(ctx().client, None)
    wanted = id_list(ids)
    found = load(ctx().client, wanted)
    missing = [i for i in wanted if i not in {item.id for item in found}]
    if missing:
        raise not_found_list(f"could not find {name} ", missing)
    return found


# --- times ---------------------------------------------------------------------


def parse_time(value: Any) -> int | None:
    """ISO 8601 -> unix seconds (UTC; no offset = UTC; fractions truncated); None when unparseable."""
    if not isinstance(value, str) or not value.strip():
        return None
    text = value.strip()
    if len(text) > 6 and text[-6] == " " and text[-5:-3].isdigit():  # an unencoded '+' became a space
        text = text[:-6] + "+" + text[-5:]
    text = text.replace("Z", "+00:00").replace("z", "+00:00")
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        return None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return int(parsed.timestamp())


def query_time(name: str) -> int | None:
    """Unix seconds of query parameter `name`: ISO 8601 (as parse_time) or a time people type (`now`,
    `in 2 hours`, `tomorrow 02:00 Europe/Berlin`, read in UTC); None when missing or unreadable."""
    value = request.args.get(name)
    found = parse_time(value)
    if found is not None or not value:
        return found
    try:
        return int(timeparse.parse_time(value, datetime.now(UTC), "UTC").timestamp())
    except timeparse.TimeParseError:
        return None


def required_query_time(name: str) -> int:
    """Like query_time, but 400 saying what was understood when the parameter is missing or unreadable."""
    value = request.args.get(name)
    if not value:
        raise ApiError(400, f"query parameter '{name}' (a time) must be provided")
    found = parse_time(value)
    if found is not None:
        return found
    try:
        return int(timeparse.parse_time(value, datetime.now(UTC), "UTC").timestamp())
    except timeparse.TimeParseError as exc:
        raise ApiError(400, f"{name}: {exc}") from None


def iso(ts: int | None) -> str | None:
    """Unix seconds -> ISO 8601 UTC string (reports)."""
    if ts is None:
        return None
    return datetime.fromtimestamp(ts, UTC).isoformat().replace("+00:00", "Z")


# --- the contact lock (api-v1 1.5) --------------------------------------------------

@contextmanager
def contact_lock(sleep: Callable[[float], None] | None = None) -> Iterator[None]:
    """Hold `semaphores:contact_mass_update` around contact writes; 423 when it can't be taken.

    `sleep` (default: time.sleep, looked up per call so tests can patch it) waits between attempts.
    """
    sleep = sleep or time.sleep
    lock = locks.try_lock(ctx().client, keys.contact_mass_update_lock(), LOCK_TTL)
    for _ in range(LOCK_TRIES - 1):
        if lock is not None:
            break
        sleep(1)
        lock = locks.try_lock(ctx().client, keys.contact_mass_update_lock(), LOCK_TTL)
    if lock is None:
        raise ApiError(423, "unable to obtain lock for resource 'contact_mass_update'")
    try:
        yield
    finally:
        locks.release(lock)
