"""Dotted paths into parsed JSON (`alert.host`, `items.0.name`): the syntax webhook mappings use. Pure.

A path is segments joined by '.': each segment is an object key, or, where the value reached
is a list, an index into it (`0` is the first item). A key holding '.' cannot be named.
"""

from __future__ import annotations

import re
from typing import Any, Final

MAX_PATH_LENGTH = 512
MAX_SEGMENTS = 16
_INDEX = re.compile(r"[0-9]{1,6}")


class Missing:
    """The value of a path that leads nowhere (a key or index not there)."""

    def __repr__(self) -> str:
        return "MISSING"


MISSING: Final = Missing()


def parse_path(text: str) -> tuple[str, ...]:
    """The segments of a dotted path; ValueError naming the problem when it is not one."""
    if not text:
        raise ValueError("a path must not be empty")
    if len(text) > MAX_PATH_LENGTH:
        raise ValueError(f"a path is at most {MAX_PATH_LENGTH} characters")
    segments = tuple(text.split("."))
    if len(segments) > MAX_SEGMENTS:
        raise ValueError(f"a path has at most {MAX_SEGMENTS} segments")
    if "" in segments:
        raise ValueError(f"empty segment in path {text!r} (segments are joined by single dots)")
    if any(ord(c) < 32 or ord(c) == 127 for c in text):
        raise ValueError(f"path {text!r} holds a control character")
    return segments


def lookup(value: Any, path: tuple[str, ...]) -> Any:
    """The value `path` leads to in `value`, or MISSING."""
    for segment in path:
        if isinstance(value, dict):
            value = value.get(segment, MISSING)
        elif isinstance(value, list) and _INDEX.fullmatch(segment) and int(segment) < len(value):
            value = value[int(segment)]
        else:
            return MISSING
        if value is MISSING:
            return MISSING
    return value


def scalar_text(value: Any) -> str | None:
    """A JSON scalar as text (`true`, `0`, `1.5`, the string itself); None for objects and lists."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, (str, int, float)):
        return str(value)
    return None
