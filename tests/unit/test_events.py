"""Event parsing, validation and normalisation (engine.md 1.2, 1.3; derived tags 2.1; perfdata 2.3)."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from flapjack_py.errors import InvalidEvent
from flapjack_py.model.events import Event, action_event, derived_tags, parse_event, parse_perfdata

RawEvent = Callable[..., str]
INTEGER_FIELDS = ("time", "initial_failure_delay", "repeat_failure_delay", "duration")
TEXT_FIELDS = ("summary", "details", "perfdata")


def rejected(raw: str | bytes) -> list[str]:
    """The errors parse_event reports for `raw` (fails the test if it is accepted)."""
    with pytest.raises(InvalidEvent) as info:
        parse_event(raw)
    assert info.value.errors, "InvalidEvent must list at least one reason"
    return info.value.errors


def text_of(errors: list[str]) -> str:
    return " | ".join(errors)


# --- 1.2 step 1: strict JSON object -------------------------------------------------


def test_valid_minimal_event_is_accepted(raw_event: RawEvent) -> None:
    event = parse_event(raw_event())

    assert event == Event(type="service", state="critical", entity="web-01.example.com", check="HTTP")


@pytest.mark.parametrize("raw", ["", "not json", "{", '{"type": "service",}', "{'type': 'service'}"],
                         ids=["empty", "text", "truncated", "trailing-comma", "single-quotes"])
def test_unparseable_text_is_rejected(raw: str) -> None:
    rejected(raw)


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_non_strict_json_constants_are_rejected(constant: str) -> None:
    raw = '{"type": "service", "state": "ok", "entity": "e", "check": "c", "time": ' + constant + "}"

    rejected(raw)


@pytest.mark.parametrize("raw", ["null", "[]", '[{"type": "service"}]', '"service"', "42", "true"],
                         ids=["null", "empty-array", "array-of-object", "string", "number", "boolean"])
def test_top_level_value_that_is_not_an_object_is_rejected(raw: str) -> None:
    rejected(raw)


def test_bytes_are_accepted_like_text(raw_event: RawEvent) -> None:
    event = parse_event(raw_event(state="ok").encode())

    assert event is not None and event.state == "ok"


# --- 1.2 step 2: noop ----------------------------------------------------------------


@pytest.mark.parametrize("raw", ['{"type": "noop"}', '{"type": "noop", "state": 5, "bogus": [1]}',
                                 '{"type": "noop", "entity": "", "check": null}'],
                         ids=["bare", "other-keys-ignored", "bad-required-ignored"])
def test_noop_is_skipped_silently(raw: str) -> None:
    assert parse_event(raw) is None


@pytest.mark.parametrize("type_", ["NOOP", "Noop", " noop"])
def test_noop_is_case_sensitive(raw_event: RawEvent, type_: str) -> None:
    errors = rejected(raw_event(type=type_))

    assert "type" in text_of(errors)


# --- 1.2 step 3: required keys -------------------------------------------------------


@pytest.mark.parametrize("key", ["type", "state", "entity", "check"])
@pytest.mark.parametrize("how", ["absent", "null", "empty"])
def test_required_key_missing_null_or_empty_is_rejected(raw_event: RawEvent, key: str, how: str) -> None:
    raw = raw_event(drop=(key,)) if how == "absent" else raw_event(**{key: None if how == "null" else ""})

    errors = rejected(raw)

    assert key in text_of(errors)


@pytest.mark.parametrize("key", ["type", "state", "entity", "check"])
@pytest.mark.parametrize("value", [5, 1.5, True, ["service"], {"a": 1}], ids=["int", "float", "bool", "list", "obj"])
def test_required_key_that_is_not_a_string_is_rejected(raw_event: RawEvent, key: str, value: object) -> None:
    errors = rejected(raw_event(**{key: value}))

    assert key in text_of(errors)


def test_missing_required_keys_are_reported_together(raw_event: RawEvent) -> None:
    errors = rejected(raw_event(drop=("type", "entity"), check=None, state=7))

    text = text_of(errors)
    for key in ("type", "entity", "check", "state"):
        assert key in text


@pytest.mark.parametrize("key", ["entity", "check"])
def test_whitespace_only_required_values_are_accepted(raw_event: RawEvent, key: str) -> None:
    event = parse_event(raw_event(**{key: "  "}))

    assert event is not None and getattr(event, key) == "  "


# --- 1.2 step 4: unknown keys --------------------------------------------------------


def test_unknown_key_is_rejected_naming_it(raw_event: RawEvent) -> None:
    errors = rejected(raw_event(hostname="x"))

    assert "hostname" in text_of(errors)


def test_unknown_and_missing_keys_are_reported_together(raw_event: RawEvent) -> None:
    errors = rejected(raw_event(drop=("check",), colour="red", Entity="x"))

    text = text_of(errors)
    assert "check" in text and "colour" in text and "Entity" in text


def test_field_rules_are_not_checked_while_keys_are_wrong(raw_event: RawEvent) -> None:
    errors = rejected(raw_event(drop=("entity",), time="soon"))

    text = text_of(errors)
    assert "entity" in text
    assert "time" not in text


def test_every_optional_key_is_known(raw_event: RawEvent) -> None:
    event = parse_event(raw_event(time=1, summary="s", details="d", acknowledgement_id="a", duration=2, tags=["t"],
                                  perfdata="p=1", initial_failure_delay=3, repeat_failure_delay=4))

    assert event == Event(type="service", state="critical", entity="web-01.example.com", check="HTTP", time=1,
                          summary="s", details="d", perfdata="p=1", acknowledgement_id="a", duration=2,
                          initial_failure_delay=3, repeat_failure_delay=4, tags=frozenset({"t"}))


# --- per-field rules -----------------------------------------------------------------


@pytest.mark.parametrize("type_", ["service", "action", "SERVICE", "Action"])
def test_type_is_service_or_action_in_any_case(raw_event: RawEvent, type_: str) -> None:
    event = parse_event(raw_event(type=type_, state="ok"))

    assert event is not None and event.type == type_.lower()


@pytest.mark.parametrize("type_", ["host", "services", "metric", " service"])
def test_other_types_are_rejected(raw_event: RawEvent, type_: str) -> None:
    errors = rejected(raw_event(type=type_))

    assert "type" in text_of(errors)


@pytest.mark.parametrize("state", ["ok", "warning", "critical", "unknown", "acknowledgement", "test_notifications",
                                   "OK", "Critical", "ACKNOWLEDGEMENT", "Test_Notifications"])
def test_every_state_is_accepted_in_any_case(raw_event: RawEvent, state: str) -> None:
    event = parse_event(raw_event(state=state))

    assert event is not None and event.state == state.lower()


@pytest.mark.parametrize("state", ["down", "up", "error", "acknowledged", "test", "ok "])
def test_other_states_are_rejected(raw_event: RawEvent, state: str) -> None:
    errors = rejected(raw_event(state=state))

    assert "state" in text_of(errors)


@pytest.mark.parametrize("combo", [("service", "acknowledgement"), ("action", "critical"), ("action", "ok")])
def test_type_state_combination_is_not_validated(raw_event: RawEvent, combo: tuple[str, str]) -> None:
    event = parse_event(raw_event(type=combo[0], state=combo[1]))

    assert event is not None and (event.type, event.state) == combo


@pytest.mark.parametrize("field", INTEGER_FIELDS)
@pytest.mark.parametrize(("value", "expected"), [(None, None), (0, 0), (42, 42), (-5, -5), ("123", 123), ("0", 0),
                                                  (1_700_000_000, 1_700_000_000), ("007", 7)],
                         ids=["null", "zero", "int", "negative-int", "digits", "digit-zero", "big", "leading-zeros"])
def test_integer_fields_accept_integers_and_digit_strings(raw_event: RawEvent, field: str, value: object,
                                                          expected: int | None) -> None:
    event = parse_event(raw_event(**{field: value}))

    assert event is not None
    assert getattr(event, field) == expected
    assert getattr(event, field) is None or type(getattr(event, field)) is int


@pytest.mark.parametrize("field", INTEGER_FIELDS)
@pytest.mark.parametrize("value", [12.5, 1.0, "12.5", "-5", "+5", " 12", "12 ", "12\n", "", "12a", "soon", True,
                                   False, [1], {"s": 1}, "\u0661\u0662"],
                         ids=["float", "float-integral", "decimal-string", "negative-string", "plus-string",
                              "leading-space", "trailing-space", "trailing-newline", "empty", "alnum", "word", "true",
                              "false", "list", "object", "arabic-indic-digits"])
def test_integer_fields_reject_everything_else(raw_event: RawEvent, field: str, value: object) -> None:
    errors = rejected(raw_event(**{field: value}))

    assert field in text_of(errors)


@pytest.mark.parametrize("field", TEXT_FIELDS)
@pytest.mark.parametrize("value", [5, 1.5, True, ["a"], {"a": "b"}], ids=["int", "float", "bool", "list", "obj"])
def test_text_fields_must_be_strings(raw_event: RawEvent, field: str, value: object) -> None:
    errors = rejected(raw_event(**{field: value}))

    assert field in text_of(errors)


@pytest.mark.parametrize("field", TEXT_FIELDS)
def test_text_fields_may_be_null(raw_event: RawEvent, field: str) -> None:
    event = parse_event(raw_event(**{field: None}))

    assert event is not None and getattr(event, field) is None


@pytest.mark.parametrize("value", [None, "abc-123", 42, 0, -1])
def test_acknowledgement_id_may_be_string_or_integer(raw_event: RawEvent, value: object) -> None:
    event = parse_event(raw_event(type="action", state="acknowledgement", acknowledgement_id=value))

    assert event is not None and event.acknowledgement_id == value


@pytest.mark.parametrize("value", [1.5, True, False, ["a"], {"id": 1}], ids=["float", "true", "false", "list", "obj"])
def test_acknowledgement_id_rejects_other_types(raw_event: RawEvent, value: object) -> None:
    errors = rejected(raw_event(type="action", state="acknowledgement", acknowledgement_id=value))

    assert "acknowledgement_id" in text_of(errors)


@pytest.mark.parametrize(("value", "expected"), [(None, frozenset()), ([], frozenset()), (["a"], frozenset({"a"})),
                                                  (["a", "b", "a"], frozenset({"a", "b"})), ([""], frozenset({""}))],
                         ids=["null", "empty", "one", "duplicates", "empty-string"])
def test_tags_become_a_set_of_strings(raw_event: RawEvent, value: object, expected: frozenset[str]) -> None:
    event = parse_event(raw_event(tags=value))

    assert event is not None and event.tags == expected


def test_absent_tags_become_an_empty_set(raw_event: RawEvent) -> None:
    event = parse_event(raw_event())

    assert event is not None and event.tags == frozenset()


@pytest.mark.parametrize("value", ["a", 5, {"a": 1}, [1], ["a", None], ["a", ["b"]], [True]],
                         ids=["string", "int", "object", "int-element", "null-element", "nested", "bool-element"])
def test_tags_reject_anything_but_an_array_of_strings(raw_event: RawEvent, value: object) -> None:
    errors = rejected(raw_event(tags=value))

    assert "tags" in text_of(errors)


def test_every_field_failure_is_reported_together(raw_event: RawEvent) -> None:
    errors = rejected(raw_event(type="host", state="down", time="soon", summary=5, tags="x", duration=1.5,
                                acknowledgement_id=[1]))

    text = text_of(errors)
    for field in ("type", "state", "time", "summary", "tags", "duration", "acknowledgement_id"):
        assert field in text


# --- 1.3 normalisation ---------------------------------------------------------------


def test_type_state_and_entity_are_lower_cased_and_check_kept(raw_event: RawEvent) -> None:
    event = parse_event(raw_event(type="SERVICE", state="WARNING", entity="Web-01.Example.COM", check="Disk / Util"))

    assert event is not None
    assert (event.type, event.state, event.entity, event.check) == ("service", "warning", "web-01.example.com",
                                                                    "Disk / Util")


def test_check_may_contain_spaces_and_colons(raw_event: RawEvent) -> None:
    event = parse_event(raw_event(check="HTTP Port 80: /health"))

    assert event is not None and event.check == "HTTP Port 80: /health"
    assert event.id == "web-01.example.com:HTTP Port 80: /health"


@pytest.mark.parametrize("field", TEXT_FIELDS)
@pytest.mark.parametrize(("value", "expected"), [("  all good \n", "all good"), ("x", "x"), ("   ", None), ("", None),
                                                  ("\t\n", None), ("a  b", "a  b")])
def test_text_fields_are_stripped_and_empty_becomes_absent(raw_event: RawEvent, field: str, value: str,
                                                           expected: str | None) -> None:
    event = parse_event(raw_event(**{field: value}))

    assert event is not None and getattr(event, field) == expected


def test_invalid_utf8_is_rejected_with_its_place() -> None:
    """Issue 17 (wins over engine.md 1.3, which replaced such bytes by `?`): non-UTF-8 input is refused."""
    raw = b'{"type": "service", "state": "ok", "entity": "e", "check": "c", "summary": "caf\xff \xfe!"}'

    assert rejected(raw) == ["not UTF-8: byte 0xff at offset 79"]


def test_valid_utf8_and_replacement_character_survive(raw_event: RawEvent) -> None:
    event = parse_event(raw_event(summary="caf\u00e9 \ufffd \u2603").encode("utf-8"))

    assert event is not None and event.summary == "caf\u00e9 \ufffd \u2603"


def test_event_time_is_kept_as_sent(raw_event: RawEvent) -> None:
    event = parse_event(raw_event(time="1234"))

    assert event is not None and event.time == 1234


def test_event_properties(raw_event: RawEvent) -> None:
    ack = parse_event(raw_event(type="action", state="acknowledgement"))
    test = parse_event(raw_event(type="action", state="test_notifications"))
    ok = parse_event(raw_event(state="ok"))
    unknown = parse_event(raw_event(state="unknown"))
    assert ack is not None and test is not None and ok is not None and unknown is not None

    assert (ack.is_acknowledgement, ack.is_test, ack.is_failure, ack.is_ok) == (True, False, False, False)
    assert (test.is_acknowledgement, test.is_test, test.is_failure, test.is_ok) == (False, True, False, False)
    assert (ok.is_failure, ok.is_ok) == (False, True)
    assert (unknown.is_failure, unknown.is_ok) == (True, False)


def test_json_round_trip_of_builder_is_stable(raw_event: RawEvent) -> None:
    assert json.loads(raw_event(drop=("check",))) == {"type": "service", "state": "critical",
                                                      "entity": "web-01.example.com"}


# --- derived tags (2.1 step 3) and perfdata (2.3) ------------------------------------


@pytest.mark.parametrize(("entity", "check", "expected"), [
    ("foo-app-01.example.com", "Disk / Util", {"foo-app-01", "example.com", "disk", "/", "util"}),
    ("db", "HTTP", {"db", "http"}),
    ("a.b.c", "Ping  Check\tNow", {"a", "b.c", "ping", "check", "now"}),
])
def test_derived_tags_split_entity_once_and_check_on_whitespace(entity: str, check: str, expected: set[str]) -> None:
    assert derived_tags(entity, check) == expected


@pytest.mark.parametrize(("perfdata", "expected"), [
    ("time=0.48s;;;0 size=909B;;;0", [{"key": "time", "value": "0.48s"}, {"key": "size", "value": "909B"}]),
    ("load1=0.1;5;10;0", [{"key": "load1", "value": "0.1"}]),
    ("a=b=c", [{"key": "a", "value": "b"}]),
    ("novalue", [{"key": "novalue", "value": ""}]),
    ("x=", [{"key": "x", "value": ""}]),
])
def test_perfdata_is_split_into_key_value_pairs(perfdata: str, expected: list[dict[str, str]]) -> None:
    assert parse_perfdata(perfdata) == expected


# --- input that cannot hurt (issue 17) ---------------------------------------------


def test_event_over_the_size_limit_is_refused_unparsed(raw_event: RawEvent) -> None:
    raw = raw_event(summary="x" * 10_000_000).encode()

    assert rejected(raw) == [f"event too large: {len(raw)} bytes, more than the 65536 allowed (executive.max_event_bytes)"]
    with pytest.raises(InvalidEvent):
        parse_event(raw_event(summary="x" * 2000), max_bytes=1024)
    assert parse_event(raw_event(summary="x" * 2000), max_bytes=4096) is not None


@pytest.mark.parametrize("nesting", ["[" * 30_000 + "]" * 30_000, '{"a":' * 17 + "1" + "}" * 17])
def test_json_nested_too_deep_is_refused(nesting: str) -> None:
    raw = '{"type": "service", "state": "ok", "entity": "e", "check": "c", "details": ' + nesting + "}"

    assert rejected(raw) == ["JSON nested deeper than 16 levels"]


def test_brackets_inside_strings_do_not_count_as_nesting(raw_event: RawEvent) -> None:
    event = parse_event(raw_event(summary='[{"' * 1000, tags=["[[[[", '\\"{{{{']))

    assert event is not None and event.summary == '[{"' * 1000


@pytest.mark.parametrize("field", INTEGER_FIELDS)
@pytest.mark.parametrize("value", ["9" * 5000, "9" * 21, 10**15, -(10**15)],
                         ids=["5000-digit-string", "21-digit-string", "huge", "huge-negative"])
def test_integers_out_of_range_are_refused(raw_event: RawEvent, field: str, value: object) -> None:
    [error] = rejected(raw_event(**{field: value}))

    assert error.startswith(f"{field} must be between -") and len(error) < 200


def test_five_thousand_digit_json_number_is_refused() -> None:
    raw = '{"type": "service", "state": "ok", "entity": "e", "check": "c", "time": ' + "9" * 5000 + "}"

    assert "not valid JSON" in text_of(rejected(raw))


@pytest.mark.parametrize(("field", "value"), [("time", 32_503_680_000), ("duration", 1000 * 31_557_600),
                                              ("initial_failure_delay", "31557600000"), ("time", -1)])
def test_integers_at_their_limits_are_accepted(raw_event: RawEvent, field: str, value: object) -> None:
    event = parse_event(raw_event(**{field: value}))

    assert event is not None and getattr(event, field) == int(str(value))


@pytest.mark.parametrize("value", ["a" * 257, 2**63])
def test_acknowledgement_id_has_a_size(raw_event: RawEvent, value: object) -> None:
    errors = rejected(raw_event(type="action", state="acknowledgement", acknowledgement_id=value))

    assert "acknowledgement_id" in text_of(errors)


def test_action_event_is_an_acknowledgement_the_executive_accepts() -> None:
    raw = action_event("acknowledgement", "web-1", "HTTP", summary="on it", duration=600, time=1_700_000_000,
                       ack_id="abc123")
    event = parse_event(json.dumps(raw))
    assert event is not None and event.is_acknowledgement
    assert (event.entity, event.check, event.summary, event.duration, event.time, event.acknowledgement_id) == (
        "web-1", "HTTP", "on it", 600, 1_700_000_000, "abc123")


def test_action_event_leaves_out_what_is_not_given() -> None:
    raw = action_event("test_notifications", "web-1", "HTTP")
    assert raw == {"type": "action", "state": "test_notifications", "entity": "web-1", "check": "HTTP"}
    event = parse_event(json.dumps(raw))
    assert event is not None and event.time is None and event.duration is None


# --- 1.2 deviation (issue 35): names that fit the ENTITY:CHECK layout ------------------


def test_an_entity_with_a_colon_is_rejected_with_the_reason(raw_event: RawEvent) -> None:
    assert rejected(raw_event(entity="web:01")) == [
        "entity name must not contain a colon (':' separates entity and check in check ids)"]


@pytest.mark.parametrize(("field", "value", "reason"), [
    ("entity", "web\x0001", "entity name has a control character (U+0000 at offset 3)"),
    ("entity", "web-01\n", "entity name has a control character (U+000A at offset 6)"),
    ("check", "HT\tTP", "check name has a control character (U+0009 at offset 2)"),
    ("check", "HTTP\x7f", "check name has a control character (U+007F at offset 4)"),
])
def test_control_characters_in_names_are_rejected_with_the_reason(raw_event: RawEvent, field: str, value: str,
                                                                   reason: str) -> None:
    assert rejected(raw_event(**{field: value})) == [reason]


def test_name_problems_are_reported_with_the_other_field_errors(raw_event: RawEvent) -> None:
    errors = rejected(raw_event(entity="a:b", check="c\x01", time="soon"))

    assert [e.split(" ", 2)[:2] for e in errors] == [["entity", "name"], ["check", "name"], ["time", "must"]]


def test_names_that_fit_stay_valid(raw_event: RawEvent) -> None:
    event = parse_event(raw_event(entity="web-01.example.com", check="node/Disk: /var 90%"))

    assert event is not None and event.check == "node/Disk: /var 90%"
