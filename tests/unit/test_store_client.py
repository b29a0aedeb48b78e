"""The data layer's reply helpers: one `to_int` for every stored integer, str and bytes alike; `text` for the
bytes client's replies."""

from __future__ import annotations

import pytest

from flapjack_py.store.plumbing.client import text, to_int


@pytest.mark.parametrize(("stored", "expected"), [
    ("300", 300), (b"300", 300), (" 42 ", 42), ("-5", -5), ("12x", 12), ("3.7", 3), (7, 7),
    (None, None), ("", None), ("x", None), (b"", None), ("-", None),
])
def test_to_int_reads_leading_digits_as_flapjack_did(stored: object, expected: int | None) -> None:
    assert to_int(stored) == expected


def test_text_decodes_a_bytes_reply() -> None:
    assert text(b"caf\xc3\xa9") == "café"
    assert text(b"\xff") == "\ufffd"
