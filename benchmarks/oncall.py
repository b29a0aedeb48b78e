"""Benchmark: what resolving who is on call costs (issue 12): `schedules.oncall_at` (who and until when, the
API's /oncall) and `schedules.oncall_now` (who, what an escalation level pages), per schedule shape.

Usage: python benchmarks/oncall.py [--calls 200]

Pure CPU, no Redis. Schedules: a weekly rotation (UTC); a daily 09:00 handoff in Europe/Berlin; the same
with a weekdays 09:00-17:00 restriction layer and overrides; a PT12H rotation; an iCalendar layer with a
weekly RRULE and an EXDATE. Each is asked at `--calls` moments spread over a year (DST changes included).
Prints one JSON line per schedule and function: median and mean milliseconds per call.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable
from typing import Any

from flapjack_py.oncall import schedules
from flapjack_py.oncall.schedule_data import schedule_from_json

START = 1_700_000_000
ICAL = """BEGIN:VCALENDAR
VERSION:2.0
PRODID:-//bench//EN
BEGIN:VEVENT
UID:week@bench
DTSTART:20231106T090000Z
DTEND:20231113T090000Z
RRULE:FREQ=WEEKLY;INTERVAL=2
EXDATE:20231120T090000Z
SUMMARY:ann
END:VEVENT
BEGIN:VEVENT
UID:other@bench
DTSTART:20231113T090000Z
DTEND:20231120T090000Z
RRULE:FREQ=WEEKLY;INTERVAL=2
SUMMARY:bob
END:VEVENT
END:VCALENDAR
"""
SHAPES: dict[str, dict[str, Any]] = {
    "weekly_utc": {"timezone": "UTC", "layers": [
        {"start": "2023-11-01T09:00Z", "rotation": "P1W", "contacts": ["ann", "bob", "cat"]}]},
    "daily_berlin": {"timezone": "Europe/Berlin", "layers": [
        {"start": "2023-11-01T09:00", "rotation": "P1D", "contacts": ["ann", "bob", "cat", "dan"]}]},
    "restricted_with_overrides": {"timezone": "Europe/Berlin", "layers": [
        {"start": "2023-11-01T09:00", "rotation": "P1D", "contacts": ["ann", "bob", "cat", "dan"]},
        {"start": "2023-11-01T09:00", "rotation": "P1W", "contacts": ["eve", "fay"],
         "restrictions": [{"weekdays": ["mon", "tue", "wed", "thu", "fri"], "start": "09:00", "end": "17:00"}]}],
        "overrides": [{"start": f"2024-0{m}-10T00:00Z", "end": f"2024-0{m}-11T00:00Z", "contact": "gus"}
                      for m in range(1, 10)]},
    "twelve_hours": {"timezone": "America/New_York", "layers": [
        {"start": "2023-11-01T08:00", "rotation": "PT12H", "contacts": ["ann", "bob"]}]},
    "ical": {"timezone": "UTC", "layers": [{"ical": ICAL}]},
}
KNOWN = {name: name for name in ("ann", "bob", "cat", "dan", "eve", "fay", "gus")}


def timed(call: Callable[[int], object], moments: list[int]) -> list[float]:
    found = []
    for at in moments:
        began = time.perf_counter()
        call(at)
        found.append((time.perf_counter() - began) * 1000)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--calls", type=int, default=200)
    args = parser.parse_args()
    moments = [START + i * (365 * 86400 // args.calls) + 137 for i in range(args.calls)]
    for name, data in SHAPES.items():
        schedule = schedule_from_json(data, START, name)
        functions: dict[str, Callable[[int], object]] = {
            "oncall_at": lambda at, s=schedule: schedules.oncall_at(s, at, KNOWN)}
        if hasattr(schedules, "oncall_now"):
            functions["oncall_now"] = lambda at, s=schedule: schedules.oncall_now(s, at, KNOWN)
        for function, call in functions.items():
            ms = timed(call, moments)
            print(json.dumps({"schedule": name, "function": function, "calls": len(ms),
                              "median_ms": round(statistics.median(ms), 3), "mean_ms": round(statistics.mean(ms), 3)}))


if __name__ == "__main__":
    main()
