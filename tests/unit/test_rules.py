"""Unit tests of flapjack_py.model.rules and flapjack_py.model.time_restrictions (pure: no Redis, no clock)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from flapjack_py.model.rules import (
    ALL_MEDIA,
    NotificationRule,
    general_rule,
    rule_from_hash,
    rule_to_hash,
    select_media,
    validate_rule_fields,
)
from flapjack_py.model.time_restrictions import InvalidTimeRestriction, restrictions_occurring, validate_restriction

BAGHDAD = ZoneInfo("Asia/Baghdad")
LONDON = ZoneInfo("Europe/London")
NOW = 1_700_000_000
WEEKDAYS = {"start_time": "2013-02-01 08:00:00", "end_time": "2013-02-01 18:00:00",
            "rrules": [{"rule_type": "Weekly", "interval": 1, "week_start": 0, "validations": {"day": [1, 2, 3, 4, 5]}}],
            "exrules": [], "rtimes": [], "extimes": []}


def make_rule(**over: Any) -> NotificationRule:
    fields: dict[str, Any] = {"id": "r1", "contact_id": "c1"}
    fields.update(over)
    return NotificationRule(**fields)


def at(zone: Any, *parts: int) -> int:
    return int(datetime(*parts, tzinfo=zone).timestamp())


# --- mapping ---------------------------------------------------------------


def test_rule_hash_round_trip_uses_json_lists_and_true_false() -> None:
    rule = make_rule(entities=["foo"], critical_media=["sms"], warning_blackhole=True)
    stored = rule_to_hash(rule)
    assert stored["entities"] == '["foo"]'
    assert stored["unknown_media"] == "null"
    assert stored["warning_blackhole"] == "true"
    assert stored["critical_blackhole"] == "false"
    assert rule_from_hash("r1", stored) == rule


def test_legacy_entity_tags_are_read_as_tags_only_without_tags() -> None:
    assert rule_from_hash("r", {"entity_tags": '["db"]'}).tags == ["db"]
    assert rule_from_hash("r", {"entity_tags": '["db"]', "tags": '["web"]'}).tags == ["web"]


def test_blackhole_flags_are_case_insensitive_and_anything_else_is_false() -> None:
    rule = rule_from_hash("r", {"warning_blackhole": "TRUE", "critical_blackhole": "yes"})
    assert (rule.warning_blackhole, rule.critical_blackhole) == (True, False)


def test_general_rule_has_all_media_for_warning_and_critical_and_none_for_unknown() -> None:
    rule = general_rule("c1")
    assert rule.warning_media == rule.critical_media == list(ALL_MEDIA)
    assert rule.unknown_media is None
    assert not rule.is_specific


# --- matching ----------------------------------------------------------------


def choose(rules: list[NotificationRule], entity: str = "foo", tags: tuple[str, ...] = (),
           severity: str = "critical", now: int = NOW, zone: Any = UTC) -> tuple[tuple[str, ...], bool]:
    choice = select_media(rules, entity, tags, severity, now, zone)
    return choice.media, choice.blackholed


def test_specific_rule_beats_general_and_matching_specific_rules_add_up() -> None:
    rules = [make_rule(id="g", critical_media=["email"]), make_rule(id="e", entities=["foo"], critical_media=["sms"]),
             make_rule(id="t", tags=["db"], critical_media=["jabber", "sms"])]
    assert choose(rules, tags=("db",)) == (("sms", "jabber"), False)
    assert choose(rules, entity="bar") == (("email",), False)


def test_every_criterion_must_match() -> None:
    rule = make_rule(entities=["foo"], tags=["db", "prod"], critical_media=["sms"])
    assert choose([rule], tags=("db",)) == ((), False)
    assert choose([rule], tags=("db", "prod", "x")) == (("sms",), False)


def test_regex_entities_all_must_match_and_regex_tags_each_some_tag() -> None:
    rule = make_rule(regex_entities=["^db", "example"], regex_tags=["^prod", "sql$"], critical_media=["sms"])
    assert choose([rule], entity="db-1.example.com", tags=("production", "mysql")) == (("sms",), False)
    assert choose([rule], entity="db-1.other.com", tags=("production", "mysql")) == ((), False)
    assert choose([rule], entity="db-1.example.com", tags=("production",)) == ((), False)


def test_invalid_regex_excludes_the_rule_without_raising() -> None:
    rules = [make_rule(id="bad", regex_tags=["(unclosed"], critical_media=["sms"]),
             make_rule(id="g", critical_media=["email"])]
    assert choose(rules, tags=("x",)) == (("email",), False)


def test_blackhole_of_the_severity_silences_everything_and_ok_never_blackholes() -> None:
    rules = [make_rule(entities=["foo"], warning_blackhole=True, warning_media=["sms"], critical_media=["sms"]),
             make_rule(id="t", tags=["db"], warning_media=["email"])]
    assert choose(rules, tags=("db",), severity="warning") == ((), True)
    assert choose(rules, tags=("db",), severity="critical") == (("sms",), False)
    assert choose(rules, severity="ok") == ((), False)


def test_rule_outside_its_time_restriction_does_not_match() -> None:
    rules = [make_rule(id="g", critical_media=["email"]),
             make_rule(id="e", entities=["foo"], critical_media=["sms"], time_restrictions=[WEEKDAYS])]
    assert choose(rules, now=at(BAGHDAD, 2023, 11, 15, 9, 0), zone=BAGHDAD) == (("sms",), False)
    assert choose(rules, now=at(BAGHDAD, 2023, 11, 15, 19, 0), zone=BAGHDAD) == (("email",), False)


# --- time restrictions -------------------------------------------------------


@pytest.mark.parametrize(("clock", "expected"), [
    ((2023, 11, 15, 7, 59, 59), False), ((2023, 11, 15, 8, 0, 0), True), ((2023, 11, 15, 17, 59, 59), True),
    ((2023, 11, 15, 18, 0, 0), False), ((2023, 11, 18, 12, 0, 0), False), ((2023, 11, 19, 12, 0, 0), False),
    ((2023, 11, 20, 8, 1, 0), True),
])
def test_weekday_office_hours_in_the_contact_zone(clock: tuple[int, ...], expected: bool) -> None:
    assert restrictions_occurring([WEEKDAYS], at(BAGHDAD, *clock), BAGHDAD) is expected


@pytest.mark.parametrize("day", [24, 27])  # London's clocks go forward on 2023-03-26
def test_wall_clock_hours_survive_daylight_saving(day: int) -> None:
    assert restrictions_occurring([WEEKDAYS], at(LONDON, 2023, 3, day, 8, 0), LONDON)
    assert not restrictions_occurring([WEEKDAYS], at(LONDON, 2023, 3, day, 7, 59), LONDON)
    assert not restrictions_occurring([WEEKDAYS], at(LONDON, 2023, 3, day, 18, 0), LONDON)


def test_empty_restrictions_always_occur_and_invalid_entries_never() -> None:
    assert restrictions_occurring([], NOW, UTC)
    assert restrictions_occurring(None, NOW, UTC)
    assert not restrictions_occurring([{"start_time": "nonsense", "end_time": "x", "rrules": []}], NOW, UTC)


def test_no_rrules_is_a_single_occurrence_and_rtimes_extimes_add_and_remove() -> None:
    once = {"start_time": "2023-11-14 22:00:00", "end_time": "2023-11-14 23:00:00", "rrules": []}
    assert restrictions_occurring([once], NOW, UTC)  # 22:13:20
    assert not restrictions_occurring([once], NOW + 86400, UTC)
    daily = {"start_time": "2023-11-01 22:00:00", "end_time": "2023-11-01 23:00:00",
             "rrules": [{"rule_type": "Daily"}], "extimes": ["2023-11-14 22:00:00"],
             "rtimes": ["2023-11-15 10:00:00"]}
    assert not restrictions_occurring([daily], NOW, UTC)
    assert restrictions_occurring([daily], NOW + 86400, UTC)
    assert restrictions_occurring([daily], at(UTC, 2023, 11, 15, 10, 30), UTC)


def test_object_form_times_and_long_rule_names_are_read() -> None:
    entry = {"start_time": {"time": "2013-02-01 08:00:00", "zone": "ignored"},
             "end_time": {"time": "2013-02-01 18:00:00"},
             "rrules": [{"rule_type": "IceCube::DailyRule", "validations": {"day": ["monday", "wednesday"]}}]}
    assert restrictions_occurring([entry], at(UTC, 2023, 11, 15, 9, 0), UTC)
    assert not restrictions_occurring([entry], at(UTC, 2023, 11, 14, 9, 0), UTC)


def test_nth_weekday_and_month_validations() -> None:
    first_monday = {"start_time": "2023-01-02 00:00:00", "end_time": "2023-01-03 00:00:00",
                    "rrules": [{"rule_type": "Monthly", "validations": {"day_of_week": {"1": [1]}}}]}
    assert restrictions_occurring([first_monday], at(UTC, 2023, 11, 6, 12, 0), UTC)
    assert not restrictions_occurring([first_monday], at(UTC, 2023, 11, 13, 12, 0), UTC)


@pytest.mark.parametrize("entry", [
    "not an object", {"end_time": "2013-02-01 18:00:00", "rrules": []},
    {"start_time": "2013-02-01 08:00:00", "end_time": "2013-02-01 18:00:00", "rrules": {}},
    {"start_time": "2013-02-01 08:00:00", "end_time": "2013-02-01 18:00:00", "rrules": [{"rule_type": "Often"}]},
    {"start_time": "2013-02-01 08:00:00", "end_time": "2013-02-01 18:00:00",
     "rrules": [{"rule_type": "Weekly", "validations": {"day": [1, 7]}}]},
    {"start_time": "2013-02-01 08:00:00", "end_time": "2013-02-01 18:00:00",
     "rrules": [{"rule_type": "IceCube::WeeklyRule"}]},
])
def test_api_validation_rejects_bad_restrictions(entry: Any) -> None:
    with pytest.raises(InvalidTimeRestriction):
        validate_restriction(entry)
    assert validate_rule_fields({"time_restrictions": [entry]}) == ["Rule time restrictions are invalid"]


def test_validate_rule_fields_reports_each_failure_in_order() -> None:
    errors = validate_rule_fields({"entities": "foo", "tags": [1], "warning_media": ["email"],
                                   "critical_blackhole": "yes", "unknown_blackhole": None})
    assert errors == ["Rule entities must be a list of strings", "Rule tags must be a tag_set of strings",
                      "Rule critical_blackhole must be true or false"]
    assert validate_rule_fields({"time_restrictions": [WEEKDAYS]}) == []
    assert json.loads(rule_to_hash(make_rule(time_restrictions=[WEEKDAYS]))["time_restrictions"]) == [WEEKDAYS]


def test_fixed_period_rules_give_the_same_answer_without_walking_from_their_start() -> None:
    """A Secondly rule from years ago answers fast, and as it does when walked from its start."""
    import time as _time
    from datetime import datetime, timedelta
    from zoneinfo import ZoneInfo

    from flapjack_py.model.time_restrictions import build_schedule, restrictions_occurring

    zone = ZoneInfo("America/New_York")
    recent = {"start_time": "2024-03-10 00:59:55", "end_time": "2024-03-10 00:59:58",  # 3 s every 7 s
              "rrules": [{"rule_type": "Secondly", "interval": 7, "validations": {"hour_of_day": [1, 3]}}]}
    start = datetime(2024, 3, 10, 3, 10, tzinfo=zone)  # after the 02:00 -> 03:00 jump of 2024-03-10
    for offset in range(0, 90):
        moment = start + timedelta(seconds=offset)
        walked, length = build_schedule(recent, zone)  # no `near`: walks from start_time
        expected = bool(walked.between(moment - length + timedelta(seconds=1), moment, inc=True))
        assert restrictions_occurring([recent], int(moment.timestamp()), zone) is expected, moment
    old = dict(recent, start_time="2013-02-01 07:59:55", end_time="2013-02-01 07:59:58")
    began = _time.perf_counter()
    restrictions_occurring([old], int(start.timestamp()) + 3600, zone)
    assert _time.perf_counter() - began < 1.0


def test_catastrophic_regex_matches_in_linear_time() -> None:
    """`(a+)+$` against 40 a's and a `!` would backtrack for days with Python's re (the per-test timeout fails it)."""
    rules = [make_rule(id="redos", regex_entities=["(a+)+$"], critical_media=["sms"]),
             make_rule(id="nested", regex_entities=["^(([a-z0-9]+)+[-.]?)+X$"], critical_media=["sms"]),
             make_rule(id="g", critical_media=["email"])]

    assert choose(rules, entity="a" * 40 + "!") == (("email",), False)
    assert choose(rules, entity="web-01-frontend.eu-west.prod.example.com") == (("email",), False)


@pytest.mark.parametrize(("pattern", "problem"), [("(a)\\1", "invalid escape sequence"), ("(?=x)", "(?="),
                                                 ("a{1000}{1000}", "bad repetition"), ("x" * 1001, "longer than")])
def test_patterns_re2_cannot_run_are_invalid(pattern: str, problem: str) -> None:
    [message] = validate_rule_fields({"regex_entities": ["^ok$", pattern]})
    assert message.startswith("Rule regex_entities: /") and problem in message
    assert choose([make_rule(regex_tags=[pattern], critical_media=["sms"])], tags=("x",)) == ((), False)


# --- why a rule did (not) apply (the decision trace) ---------------------------


def test_select_media_gives_every_rule_its_verdict() -> None:
    rules = [make_rule(id="general", critical_media=["sms"]),
             make_rule(id="by-entity", entities=["foo"], critical_media=["email"]),
             make_rule(id="other-entity", entities=["bar"]),
             make_rule(id="by-tag", tags=["db"]), make_rule(id="by-regex-tag", regex_tags=["^web"]),
             make_rule(id="by-regex-entity", regex_entities=["^x"]),
             make_rule(id="office-hours", entities=["foo"], time_restrictions=[WEEKDAYS]),
             make_rule(id="bad-regex", regex_entities=["(unclosed"])]
    choice = select_media(rules, "foo", ("app",), "critical", at(UTC, 2023, 11, 18, 12, 0), UTC)  # a Saturday
    assert dict(choice.verdicts) == {
        "general": "overridden", "by-entity": None, "other-entity": "entities", "by-tag": "tags",
        "by-regex-tag": "regex_tags", "by-regex-entity": "regex_entities", "office-hours": "time_restrictions",
        "bad-regex": "invalid_regex"}
    assert choice.media == ("email",)
