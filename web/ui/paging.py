"""Server-side paging of the UI's lists: a page of items plus what the pager needs.

Lists are cut before their rows are loaded, so a page costs the same with
100 entities or 100,000 (issue 17).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from flask import request

T = TypeVar("T")

PAGE_SIZE = 200
"""Rows per page of every paged list."""
MAX_PAGE = 1_000_000
"""Highest page number read from a URL."""
KEPT_ARGS = ("q", "show", "page", "failing_page", "entities_page", "upage", "hpage", "state", "entity", "check",
             "tag", "text", "sort", "desc")
"""Query arguments a pager link carries over (anything else, e.g. `_external`, is dropped)."""


@dataclass(frozen=True)
class Page(Generic[T]):
    """One page of a list: its items, its number (from 1), the page count and the whole list's length."""

    items: Sequence[T]
    number: int
    pages: int
    total: int
    args: dict[str, str]
    """The page's view arguments and list query arguments (KEPT_ARGS present in the request), for the pager."""


def page_of(items: Sequence[T], number: int | None = None, size: int = PAGE_SIZE) -> Page[T]:
    """Page `number` (default: the `page` query argument) of `items`; out-of-range numbers are clamped."""
    pages = max((len(items) + size - 1) // size, 1)
    number = min(max(page_arg() if number is None else number, 1), pages)
    args = {**(request.view_args or {}),
            **{name: request.args[name][:200] for name in KEPT_ARGS if request.args.get(name)}}
    return Page(items[(number - 1) * size:number * size], number, pages, len(items), args)


def page_arg(name: str = "page") -> int:
    """The page number in the query string (1 when absent or unreadable)."""
    value = request.args.get(name, "1")
    return min(int(value), MAX_PAGE) if value.isdigit() and 0 < len(value) < 8 else 1
