"""Ack codes, pure (issue 30): the alphabet, uniqueness of the counter's codes, reading replies."""

from __future__ import annotations

from flapjack_py.model import ack_codes


def test_codes_use_an_unambiguous_alphabet_and_are_distinct_over_a_long_run() -> None:
    codes = [ack_codes.encode(n) for n in range(200_000)]
    assert len(set(codes)) == len(codes)
    assert all(len(c) == 5 and not set(c) & set("0O1I") for c in codes)
    assert ack_codes.encode(ack_codes.SPACE + 7) == ack_codes.encode(7)  # the counter wraps after 2**25
    assert codes[0][:3] != codes[1][:3]  # neighbours do not look alike


def test_replies_are_read_case_insensitively() -> None:
    assert ack_codes.parse_reply("ack 4f2kx") == ("4F2KX", "")
    assert ack_codes.parse_reply("  4F2KX ") == ("4F2KX", "")
    assert ack_codes.parse_reply("ACK 4F2KX 2h on it") == ("4F2KX", "2h on it")
    assert ack_codes.parse_reply("ACK 4F0KX") is None
    assert ack_codes.parse_reply("hello there") is None
    assert ack_codes.find_code("Re: ALERT ... ack 4f2kx 30m\nmore") == ("4F2KX", "30m")
    assert ack_codes.split_rest("2h on it") == ("2h", "on it")
    assert ack_codes.split_rest("on it") == ("", "on it")
    assert ack_codes.is_stop("stop") and not ack_codes.is_stop("ack 4F2KX")
    assert ack_codes.normalize("4f2kx") == "4F2KX" and ack_codes.normalize("4F2K") is None
