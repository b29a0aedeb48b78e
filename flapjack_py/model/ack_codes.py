"""Ack codes: the short code an alert carries so its check can be acknowledged from a phone (issue 30). Pure.

A code is 5 characters of an alphabet without 0/O/1/I (read aloud or typed on a phone without doubt),
made from a counter (flapjack_py.store.ack_codes hands each notifier a block of it) by a bijection of the
counter's 25 bits: two codes are the same only 2**25 codes apart, so the codes still open (24 h by default)
never collide, and consecutive codes do not look alike. Codes are compared in upper case.

`parse_reply` reads what people send back: `ACK 4F2KX`, `ack 4f2kx 2h`, `4F2KX`, `ack 4F2KX 30m busy`.
"""

from __future__ import annotations

import re
from typing import NamedTuple

ALPHABET = "23456789ABCDEFGHJKLMNPQRSTUVWXYZ"
"""32 characters: no 0, O, 1 or I."""
LENGTH = 5
SPACE = len(ALPHABET) ** LENGTH  # 2**25
_MASK = SPACE - 1
_CODE = f"[{ALPHABET}]{{{LENGTH}}}"
_ACK_WORD = re.compile(rf"\bACK\s+({_CODE})\b", re.IGNORECASE)
_REPLY = re.compile(rf"^\s*(?:ACK\s+)?({_CODE})(?:\s+(.*?))?\s*$", re.IGNORECASE | re.DOTALL)
_STOP_WORDS = frozenset({"STOP", "STOPALL", "UNSUBSCRIBE", "CANCEL", "END", "QUIT", "HELP", "INFO"})


class Reply(NamedTuple):
    """What an acknowledging reply asks for: the code, and what follows it (a duration, then a message)."""

    code: str
    rest: str


def encode(n: int) -> str:
    """The code of counter value `n` (any int; taken modulo 2**25)."""
    x = _scramble(n & _MASK)
    chars = []
    for _ in range(LENGTH):
        x, digit = divmod(x, len(ALPHABET))
        chars.append(ALPHABET[digit])
    return "".join(reversed(chars))


def _scramble(x: int) -> int:
    """A bijection of 25-bit numbers (odd multipliers and xorshifts), so neighbours get unlike codes."""
    x = (x * 0x1A2B3C5 + 0x0F1E2D) & _MASK
    x ^= x >> 13
    x = (x * 0x5BD1E9) & _MASK
    return x ^ (x >> 11)


def normalize(text: str) -> str | None:
    """`text` as a code (upper case, stripped), or None when it is not one."""
    code = text.strip().upper()
    return code if re.fullmatch(_CODE, code) else None


def parse_reply(text: str) -> Reply | None:
    """The code a short reply (an SMS: `ACK CODE [DURATION [MESSAGE]]` or just the code) names, or None."""
    found = _REPLY.match(text[:500])
    if found is None:
        return None
    return Reply(found.group(1).upper(), (found.group(2) or "").strip())


def find_code(text: str) -> Reply | None:
    """The first `ACK CODE ...` anywhere in `text` (an email's subject or line), with the rest of its line."""
    found = _ACK_WORD.search(text)
    if found is None:
        return None
    rest = text[found.end():].split("\n", 1)[0].strip()
    return Reply(found.group(1).upper(), rest)


def is_stop(text: str) -> bool:
    """Whether a reply is a STOP-style keyword (answered, never acted on)."""
    return text.strip().upper() in _STOP_WORDS


def split_rest(rest: str) -> tuple[str, str]:
    """(duration, message) of what follows a code: the first word when it reads as a duration, then the rest."""
    word, _, after = rest.partition(" ")
    if re.fullmatch(r"\d+\s*[a-zA-Z]*", word):
        return word, after.strip()
    return "", rest


_QUOTE_INTRO = re.compile(r"^(On .* wrote:|-----\s*Original Message\s*-----|From: .*)$", re.IGNORECASE)
_ALERT_MESSAGE_ID = re.compile(r"<([0-9a-f]{32})@[^>]*>")


def first_lines(text: str, most: int = 5) -> list[str]:
    """The first non-blank lines of an email reply written above the quoted alert (no `>` lines, nothing after
    an "On ... wrote:" line), at most `most`."""
    found: list[str] = []
    for raw in text[:20_000].splitlines():
        line = raw.strip()
        if _QUOTE_INTRO.match(line) or line.startswith(">"):
            break
        if line:
            found.append(line)
            if len(found) == most:
                break
    return found


def alert_ids_answered(*headers: str) -> list[str]:
    """The alert ids of the Message-IDs (`<ALERTID@host>`) an email's In-Reply-To / References headers name."""
    return [m.group(1) for header in headers for m in _ALERT_MESSAGE_ID.finditer(header or "")]


def ack_line(line: str) -> str | None:
    """What follows `ack` at the start of a reply's first line (a duration, a message), or None when it does not
    start with `ack`."""
    found = re.match(r"^ack\b[\s:,.!-]*(.*)$", line.strip(), re.IGNORECASE)
    return None if found is None else found.group(1).strip()
