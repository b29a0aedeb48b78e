"""Regular expressions written by users (rule regex_entities/regex_tags, chat /patterns/), run on RE2.

RE2 matches in time linear in the text, so no pattern can stall the executive
or the Jabber bot (`(a+)+$` against 30 a's and a `!` returns at once, where
Python's backtracking `re` takes minutes). What RE2 cannot do (backreferences,
lookaround) is refused with its reason, through InvalidPattern. Pure.
"""

from __future__ import annotations

import functools
import logging
from typing import Any

import re2

from flapjack_py.errors import FlapjackError

log = logging.getLogger(__name__)

MAX_PATTERN_LENGTH = 1000
"""Longest pattern accepted, in characters."""
MAX_PATTERN_MEMORY = 8 << 20
"""Bytes RE2 may use for one compiled pattern; bigger ones (a{1000}{1000}) are refused."""


class InvalidPattern(FlapjackError):
    """Raised when a user's regular expression is too long or not valid RE2 syntax; the message says why."""


Pattern = Any
"""A compiled RE2 pattern: search(), fullmatch(), match(), split() like `re.Pattern`."""
Match = Any
"""A match of a Pattern: group(), groups() like `re.Match`."""


def escape(text: str) -> str:
    """`text` as a pattern matching it literally."""
    result: str = re2.escape(text)
    return result


def compile_pattern(source: str, ignore_case: bool = False) -> Pattern:
    """The RE2 pattern for `source`; InvalidPattern (naming the problem) when it cannot be one."""
    return _compile(source, ignore_case)


def pattern_error(source: object) -> str | None:
    """Why `source` is not an acceptable pattern, or None when it is."""
    if not isinstance(source, str):
        return "not a string"
    try:
        _compile(source, False)
    except InvalidPattern as exc:
        return str(exc)
    return None


@functools.lru_cache(maxsize=1024)
def _compile(source: str, ignore_case: bool) -> Pattern:
    if len(source) > MAX_PATTERN_LENGTH:
        raise InvalidPattern(f"/{source[:40]}.../ is longer than {MAX_PATTERN_LENGTH} characters")
    options = re2.Options()
    options.log_errors = False
    options.max_mem = MAX_PATTERN_MEMORY
    options.case_sensitive = not ignore_case
    try:
        return re2.compile(source, options)
    except re2.error as exc:
        reason = exc.args[0].decode("utf-8", "replace") if exc.args and isinstance(exc.args[0], bytes) else str(exc)
        raise InvalidPattern(f"/{source}/ is not a valid RE2 regular expression: {reason}") from None
