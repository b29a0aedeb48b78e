"""The `analytics` settings (issue 32): working and sleep hours, what counts as self-resolved, who gets the digest.

`working_hours` and `sleep_hours` are read in each contact's time zone (executive.default_contact_timezone when
the contact has none). Hours are written `Mon-Fri 09:00-18:00` (days optional: every day), an end before the start
wraps past midnight (`22:00-07:00`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Annotated

from pydantic import AfterValidator, Field

from flapjack_py.config.types import Seconds, Section, Text, Texts

DAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
_HOURS = re.compile(r"^\s*(?:(?P<days>[A-Za-z,\- ]+?)\s+)?(?P<start>\d{1,2}:\d{2})\s*-\s*(?P<end>\d{1,2}:\d{2})\s*$")


@dataclass(frozen=True)
class Hours:
    """Days of the week (0 = Monday) and a local time span in minutes; end <= start wraps past midnight."""

    days: frozenset[int]
    start: int
    end: int

    def contains(self, weekday: int, minute: int) -> bool:
        """True when local `weekday` (0 = Monday) and `minute` of the day fall in these hours (a span that wraps
        belongs to the day it starts on)."""
        if self.start < self.end:
            return weekday in self.days and self.start <= minute < self.end
        if minute >= self.start:
            return weekday in self.days
        return minute < self.end and (weekday - 1) % 7 in self.days


    def week_mask(self) -> bytes:
        """1 for each minute of the week (Monday 00:00 first) inside these hours, else 0."""
        return bytes(self.contains(m // 1440, m % 1440) for m in range(7 * 1440))


def parse_hours(text: str) -> Hours:
    """`Mon-Fri 09:00-18:00`, `Mon,Wed 08:00-12:00` or `22:00-07:00` (every day); ValueError naming the problem."""
    found = _HOURS.match(text)
    if found is None:
        raise ValueError(f"expected hours such as 'Mon-Fri 09:00-18:00', got {text[:60]!r}")
    start, end = _minute(found["start"]), _minute(found["end"])
    if start == end:
        raise ValueError(f"the hours {text[:60]!r} are empty (start = end)")
    return Hours(_days(found["days"]) if found["days"] else frozenset(range(7)), start, end)


def _minute(text: str) -> int:
    hour, minute = (int(part) for part in text.split(":"))
    if hour > 24 or minute > 59 or hour * 60 + minute > 1440:
        raise ValueError(f"{text} is not a time of day")
    return hour * 60 + minute


def _days(text: str) -> frozenset[int]:
    found: set[int] = set()
    for part in text.replace(" ", "").lower().split(","):
        first, _, last = part.partition("-")
        if first[:3] not in DAYS or (last and last[:3] not in DAYS):
            raise ValueError(f"unknown day in {text!r}: use Mon, Tue, Wed, Thu, Fri, Sat, Sun")
        a, b = DAYS.index(first[:3]), DAYS.index((last or first)[:3])
        found.update(range(a, b + 1) if a <= b else [*range(a, 7), *range(0, b + 1)])
    return frozenset(found)


def _checked_hours(text: str) -> str:
    parse_hours(text)
    return text


HoursText = Annotated[Text, AfterValidator(_checked_hours)]


class AnalyticsConfig(Section):
    """On-call analytics (GET /api/analytics/*, `flapjack report`, the analytics page, the weekly digest)."""

    working_hours: HoursText = "Mon-Fri 09:00-18:00"
    """A contact's working hours in their time zone; pages outside them are off-hours pages."""
    sleep_hours: HoursText = "22:00-07:00"
    """Sleep hours in the contact's time zone (every day unless days are given)."""
    self_resolved_within: Annotated[Seconds, Field(ge=1, le=86400)] = 300
    """A paged problem that recovered within this many seconds of failing, with nobody acknowledging it, is
    self-resolved (noise)."""
    digest_contacts: Texts = ()
    """Contact ids sent the weekly digest by email (`flapjack report --email`)."""
    noisy_checks: Annotated[int, Field(ge=1, le=100, strict=True)] = 5
    """How many of the noisiest checks get a suggestion (each one replayed by the backtest engine)."""
