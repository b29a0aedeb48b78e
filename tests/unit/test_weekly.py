"""Weekly windows: form values -> ice_cube restriction -> window again, described in words; checked by the
same code the notifier uses (flapjack_py.model.time_restrictions)."""

from __future__ import annotations

from datetime import datetime, time
from zoneinfo import ZoneInfo

import pytest

from flapjack_py.model.rules import validate_rule_fields
from flapjack_py.model.time_restrictions import restrictions_occurring
from flapjack_py.views.weekly import (
    InvalidWindow,
    WeeklyWindow,
    describe_days,
    from_restriction,
    parse_window,
    to_restriction,
)

BERLIN = ZoneInfo("Europe/Berlin")


def at(text: str) -> int:
    return int(datetime.fromisoformat(text).replace(tzinfo=BERLIN).timestamp())


def test_a_window_round_trips_and_is_valid_for_the_api() -> None:
    window = parse_window(["5", "1", "2", "3", "4"], "09:00", "17:00")
    assert window == WeeklyWindow((1, 2, 3, 4, 5), time(9), time(17))
    entry = to_restriction(window)
    assert validate_rule_fields({"time_restrictions": [entry]}) == []
    assert from_restriction(entry) == window
    assert window.describe() == "Mon–Fri 09:00–17:00"


def test_the_notifier_reads_a_window_in_the_contacts_zone() -> None:
    entry = [to_restriction(parse_window(["1", "2", "3", "4", "5"], "09:00", "17:00"))]
    assert restrictions_occurring(entry, at("2026-11-23T09:30:00"), BERLIN)  # a Monday
    assert not restrictions_occurring(entry, at("2026-11-23T08:59:00"), BERLIN)
    assert not restrictions_occurring(entry, at("2026-11-28T10:00:00"), BERLIN)  # a Saturday


def test_an_overnight_window_ends_the_next_day() -> None:
    window = parse_window(["6"], "22:00", "06:00")
    assert window.describe() == "Sat 22:00–06:00 (next day)"
    entry = [to_restriction(window)]
    assert restrictions_occurring(entry, at("2026-11-29T05:00:00"), BERLIN)  # Sunday morning
    assert not restrictions_occurring(entry, at("2026-11-29T07:00:00"), BERLIN)
    assert parse_window(["0"], "00:00", "24:00").describe() == "Sun 00:00–24:00"


@pytest.mark.parametrize(("days", "start", "end", "field"), [
    ([], "09:00", "10:00", "days"), (["8"], "09:00", "10:00", "days"), (["x"], "09:00", "10:00", "days"),
    (["1"], "9 am", "10:00", "start"), (["1"], "09:00", "", "end"),
])
def test_refused_windows_name_the_field(days: list[str], start: str, end: str, field: str) -> None:
    with pytest.raises(InvalidWindow) as refused:
        parse_window(days, start, end)
    assert refused.value.field == field


def test_restrictions_of_other_shapes_are_not_windows() -> None:
    entry = to_restriction(parse_window(["1"], "09:00", "10:00"))
    assert from_restriction({**entry, "rtimes": ["2024-01-02 09:00:00"]}) is None
    assert from_restriction({**entry, "rrules": [{"rule_type": "Daily", "validations": {}, "interval": 1}]}) is None
    assert from_restriction({**entry, "end_time": "2024-01-03 09:00:00"}) is None  # two days long
    assert from_restriction({"start_time": "2013-02-01 08:00:00"}) is None


def test_days_in_words() -> None:
    assert describe_days([0, 1, 2, 3, 4, 5, 6]) == "every day"
    assert describe_days([1, 3]) == "Mon, Wed"
    assert describe_days([6, 0]) == "Sat, Sun"
    assert describe_days([5, 6, 0, 1]) == "Mon, Fri–Sun"
