"""Who is on call (pure): each schedule's current shift and the next one, each escalation policy's first-level
people, a person's own shifts, and which user a contact is. Schedules in (flapjack_py.oncall.schedules), rows
out; no Redis, no clock."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from flapjack_py.model.contacts import Contact
from flapjack_py.oncall.schedules import HORIZON, Schedule, Shift, contact_shifts, oncall_at

MY_SHIFTS_AHEAD = 28 * 86400
"""How far ahead (seconds) "my shifts" looks."""
MY_SHIFTS_SHOWN = 10
"""Most of a person's shifts listed."""


@dataclass(frozen=True)
class ScheduleNow:
    """Who is on call on one schedule now and until when, and who comes next (until when)."""

    id: str
    name: str
    now: tuple[str, ...]
    until: int
    next: tuple[str, ...]
    next_until: int

    @property
    def open_ended(self) -> bool:
        """True when the current shift runs past the horizon looked at (nobody hands over soon)."""
        return self.next_until == 0


@dataclass(frozen=True)
class MyShift:
    """One of a person's shifts on a schedule."""

    schedule: str
    start: int
    end: int


def schedule_now(schedule: Schedule, at: int, known: Mapping[str, str]) -> ScheduleNow:
    """The current shift of `schedule` at `at` and the one after it."""
    current = oncall_at(schedule, at, known)
    following: Shift | None = oncall_at(schedule, current.end, known) if current.end < at + HORIZON else None
    return ScheduleNow(schedule.id, schedule.name or schedule.id, current.contacts, current.end,
                       following.contacts if following else (), following.end if following else 0)


def my_shifts(schedules: Iterable[Schedule], contact: str, at: int, known: Mapping[str, str]) -> list[MyShift]:
    """`contact`'s shifts (the current one included) over the next MY_SHIFTS_AHEAD, soonest first."""
    found = [MyShift(s.name or s.id, shift.start, shift.end) for s in schedules
             for shift in contact_shifts(s, contact, at, at + MY_SHIFTS_AHEAD, known)]
    return sorted(found, key=lambda shift: (shift.start, shift.schedule))[:MY_SHIFTS_SHOWN]


def on_call_in(schedules: Iterable[Schedule], contact: str, at: int, known: Mapping[str, str]) -> list[ScheduleNow]:
    """The schedules on which `contact` is on call at `at` (their current shift)."""
    return [now for now in (schedule_now(s, at, known) for s in schedules) if contact in now.now]


def contact_of_user(user: str, contacts: Sequence[Contact]) -> Contact | None:
    """The contact a logged-in user is: the one whose id is the user name, else whose email's local part or
    first name is (case-insensitive); None when no contact matches."""
    name = user.strip().lower()
    if not name:
        return None
    keys: list[Callable[[Contact], str]] = [lambda c: c.id, lambda c: (c.email or "").split("@")[0],
                                            lambda c: c.first_name or ""]
    for key in keys:
        found = [c for c in contacts if key(c).lower() == name]
        if found:
            return found[0]
    return None
