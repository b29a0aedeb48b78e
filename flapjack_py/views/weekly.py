"""Weekly windows ("Mon–Fri 09:00–17:00"): the readable form of a time restriction the UI edits. Pure.

A window maps to one ice_cube-style restriction (api-v1.md 7.2): a first occurrence
on a fixed Monday with zone-less local times (read in the contact's time zone) and
one Weekly rule listing the days. Restrictions of any other shape are not weekly
windows (`from_restriction` returns None) and the UI keeps them as they are.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from typing import Any

log = logging.getLogger(__name__)

DAYS = ((1, "Mon"), (2, "Tue"), (3, "Wed"), (4, "Thu"), (5, "Fri"), (6, "Sat"), (0, "Sun"))
"""ice_cube day numbers (0 = Sunday) with their short names, in the order people read a week."""
ANCHOR = date(2024, 1, 1)
"""The Monday a window's first occurrence is put on (any Monday would do)."""
_FORMAT = "%Y-%m-%d %H:%M:%S"


class InvalidWindow(ValueError):
    """Raised when the fields of a weekly window can't make one; the message says which part."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


@dataclass(frozen=True)
class WeeklyWindow:
    """On `days` (ice_cube numbers) from `start` to `end` local time; an `end` not after `start` ends next day."""

    days: tuple[int, ...]
    start: time
    end: time

    @property
    def crosses_midnight(self) -> bool:
        return self.end <= self.start

    def describe(self) -> str:
        """`Mon–Fri 09:00–17:00`, `Sat, Sun 22:00–06:00 (next day)`, `every day 00:00–24:00`."""
        overnight = " (next day)" if self.crosses_midnight and self.end != time(0) else ""
        end = "24:00" if self.end == time(0) else self.end.strftime("%H:%M")
        return f"{describe_days(self.days)} {self.start.strftime('%H:%M')}–{end}{overnight}"


def describe_days(days: Sequence[int]) -> str:
    """Days in week order, runs of three or more joined: `Mon–Fri`, `Mon, Wed`, `every day`."""
    ordered = [n for n, _ in DAYS if n in days]
    if len(ordered) == 7:
        return "every day"
    names = dict(DAYS)
    positions = [i for i, (n, _) in enumerate(DAYS) if n in days]
    runs: list[list[int]] = []
    for pos in positions:
        if runs and runs[-1][-1] == pos - 1:
            runs[-1].append(pos)
        else:
            runs.append([pos])
    said = []
    for run in runs:
        first, last = names[DAYS[run[0]][0]], names[DAYS[run[-1]][0]]
        said.append(f"{first}–{last}" if len(run) >= 3 else ", ".join(names[DAYS[p][0]] for p in run))
    return ", ".join(said)


def parse_window(days: Sequence[str], start: str, end: str) -> WeeklyWindow:
    """A window from form values (day numbers as text, `HH:MM` times); InvalidWindow naming the bad part."""
    try:
        numbers = tuple(sorted({int(d) for d in days}))
    except ValueError:
        raise InvalidWindow("days", "Days must be among Mon–Sun") from None
    if not numbers:
        raise InvalidWindow("days", "Choose at least one day")
    if any(n not in dict(DAYS) for n in numbers):
        raise InvalidWindow("days", "Days must be among Mon–Sun")
    return WeeklyWindow(numbers, _clock(start, "start"), _clock(end, "end"))


def to_restriction(window: WeeklyWindow) -> dict[str, Any]:
    """The ice_cube-style restriction of a window (zone-less local times: the contact's zone applies)."""
    first = datetime.combine(ANCHOR, window.start)
    last = datetime.combine(ANCHOR + timedelta(days=1 if window.crosses_midnight else 0), window.end)
    return {"start_time": first.strftime(_FORMAT), "end_time": last.strftime(_FORMAT),
            "rrules": [{"validations": {"day": list(window.days)}, "rule_type": "Weekly", "interval": 1}],
            "exrules": [], "rtimes": [], "extimes": []}


def from_restriction(entry: Any) -> WeeklyWindow | None:
    """The window a restriction describes, or None when it is not exactly a weekly window of under a day."""
    if not isinstance(entry, Mapping) or any(entry.get(name) for name in ("exrules", "rtimes", "extimes")):
        return None
    rules = entry.get("rrules")
    if not isinstance(rules, list) or len(rules) != 1 or not isinstance(rules[0], Mapping):
        return None
    rule = rules[0]
    validations = rule.get("validations")
    if (rule.get("rule_type") not in ("Weekly", "IceCube::WeeklyRule") or rule.get("interval", 1) not in (1, "1")
            or not isinstance(validations, Mapping) or set(validations) != {"day"}
            or set(rule) - {"validations", "rule_type", "interval", "week_start"}):
        return None
    return _window(validations["day"], entry.get("start_time"), entry.get("end_time"))


def _window(days: Any, start: Any, end: Any) -> WeeklyWindow | None:
    if not isinstance(days, list) or not days or not all(isinstance(d, int) and 0 <= d <= 6 for d in days):
        return None
    try:
        first, last = datetime.strptime(str(start), _FORMAT), datetime.strptime(str(end), _FORMAT)
    except ValueError:
        return None
    if not timedelta(0) < last - first <= timedelta(days=1):
        return None
    # the stored first occurrence may fall on any day: only its times matter for a weekly window
    return WeeklyWindow(tuple(sorted(set(days))), first.time(), last.time())


def _clock(value: str, field: str) -> time:
    text = (value or "").strip()
    if text == "24:00" and field == "end":
        return time(0)
    try:
        return time.fromisoformat(text)
    except ValueError:
        raise InvalidWindow(field, f"'{text}' is not a time of day (HH:MM)") from None
