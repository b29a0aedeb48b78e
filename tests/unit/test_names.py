"""The name rule (flapjack_py.model.names): entity and check names that fit the `ENTITY:CHECK` layout, and the rewrite."""

from __future__ import annotations

import pytest

from flapjack_py import keys
from flapjack_py.model.names import check_name_problem, entity_name_problem, fitted_check_name, fitted_entity_name

CONTROL_CHARACTERS = [chr(c) for c in range(0x20)] + ["\x7f"]


@pytest.mark.parametrize("name", ["web-01.example.com", "Web 01", "db/primary", "2001-db8--7", "ü-host", "a\u00a0b"])
def test_names_that_fit_pass_as_entity_and_check(name: str) -> None:
    assert entity_name_problem(name) is None
    assert check_name_problem(name) is None


@pytest.mark.parametrize("name", ["web:01", ":", "::1", "2001:db8::7", "host:"])
def test_a_colon_is_refused_in_entity_names_only(name: str) -> None:
    assert entity_name_problem(name) == (
        "entity name must not contain a colon (':' separates entity and check in check ids)")
    assert check_name_problem(name) is None  # split at the first ':', a check may hold one
    assert keys.split_check_id(keys.check_id("web-01", name)) == ("web-01", name)


@pytest.mark.parametrize("char", CONTROL_CHARACTERS, ids=[f"U+{ord(c):04X}" for c in CONTROL_CHARACTERS])
def test_every_control_character_is_refused_in_both(char: str) -> None:
    name = f"ab{char}c"
    assert entity_name_problem(name) == f"entity name has a control character (U+{ord(char):04X} at offset 2)"
    assert check_name_problem(name) == f"check name has a control character (U+{ord(char):04X} at offset 2)"


@pytest.mark.parametrize(("text", "fitted"), [
    ("web:01", "web-01"), ("::1", "--1"), ("2001:db8::7", "2001-db8--7"), ("a\nb\x7f", "a-b-"),
    ("web-01.example.com", "web-01.example.com"),
])
def test_fitted_entity_name_replaces_colons_and_control_characters_with_dashes(text: str, fitted: str) -> None:
    assert fitted_entity_name(text) == fitted
    assert entity_name_problem(fitted_entity_name(text)) is None


def test_fitted_check_name_keeps_colons() -> None:
    assert fitted_check_name("node/Disk: /var\tfull\x00") == "node/Disk: /var-full-"
    assert check_name_problem(fitted_check_name("x\x1fy")) is None
