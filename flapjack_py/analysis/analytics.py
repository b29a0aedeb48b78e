"""On-call analytics (issue 32): the figures of a period, from the facts store/analytics.py reads. Pure.

summary(), checks() and people() give exactly the JSON of GET /api/analytics/summary, /checks and /people (and
`flapjack report --json`); timeline() the analytics page's plots. Pages are the alert records of types problem,
recovery and acknowledgement (analysis/incidents.py PAGE_TYPES). MTTA is first page -> first acknowledgement and
MTTR first failure -> recovery, over the period's incidents (a failure that paged); median is the middle value
(the mean of the two middle ones), p90 the nearest-rank 90th percentile. Off-hours and sleep-hours pages are
read in the paged contact's time zone.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from functools import cached_property, lru_cache
from operator import itemgetter
from typing import Any
from zoneinfo import ZoneInfo

from flapjack_py.analysis.incidents import Facts, Incident, Page, incidents
from flapjack_py.config.analytics import Hours, parse_hours


@dataclass(frozen=True)
class Settings:
    """analytics.* and the zone of contacts that have none."""

    working: Hours
    sleep: Hours
    self_resolved_within: int = 300
    default_zone: str = "UTC"

    @classmethod
    def of(cls, working: str = "Mon-Fri 09:00-18:00", sleep: str = "22:00-07:00", within: int = 300,
           zone: str = "UTC") -> Settings:
        return cls(parse_hours(working), parse_hours(sleep), within, zone)

    @cached_property
    def masks(self) -> tuple[bytes, bytes]:
        """(working, sleep) minute-of-the-week masks."""
        return self.working.week_mask(), self.sleep.week_mask()


def spread(values: Sequence[int]) -> dict[str, Any]:
    """{"median", "p90", "count"} of `values` (None and None when there are none)."""
    count = len(values)
    if not count:
        return {"median": None, "p90": None, "count": 0}
    ordered = sorted(values)
    middle = count // 2
    median: float = ordered[middle] if count % 2 else (ordered[middle - 1] + ordered[middle]) / 2
    return {"median": int(median) if float(median).is_integer() else median,
            "p90": ordered[max(math.ceil(0.9 * count) - 1, 0)], "count": count}


def narrowed(facts: Facts, *, check: str | None = None, entity: str | None = None, contact: str | None = None,
             policy: str | None = None, checks: Collection[str] | None = None) -> Facts:
    """The facts of the pages about one check, one entity's checks, to one contact, sent by one escalation policy
    and/or about `checks` (those with a tag)."""
    if check is None and entity is None and contact is None and policy is None and checks is None:
        return facts
    pages = [p for p in facts.pages if (check is None or p.check == check) and (contact is None or p.contact == contact)
             and (entity is None or p.check.partition(":")[0] == entity) and (policy is None or p.policy == policy)
             and (checks is None or p.check in checks)]
    return replace(facts, pages=pages)


def settings_of(analytics: Any, default_zone: str) -> Settings:
    """Settings from the `analytics` config section (config/analytics.py AnalyticsConfig)."""
    return Settings(parse_hours(analytics.working_hours), parse_hours(analytics.sleep_hours),
                    analytics.self_resolved_within, default_zone)


def pages_of(facts: Facts) -> Sequence[Page]:
    """The facts' pages (store/analytics.py reads only those of PAGE_TYPES within [since, until])."""
    return facts.pages


@lru_cache(maxsize=4096)
def _hour_start(zone: str, hour: int) -> tuple[int, int]:
    """(weekday, minute of the day) in `zone` at unix hour `hour` (cached: many pages share an hour)."""
    local = datetime.fromtimestamp(hour * 3600, ZoneInfo(zone))
    return local.weekday(), local.hour * 60 + local.minute


def local_minute(ts: int, zone: str) -> tuple[int, int]:
    """(weekday, minute of the day) of unix time `ts` in `zone`."""
    return divmod(week_minute(ts, zone), 1440)


def week_minute(ts: int, zone: str) -> int:
    """The minute of the week (Monday 00:00 = 0) of unix time `ts` in `zone`."""
    weekday, minute = _hour_start(zone, ts // 3600)
    return (weekday * 1440 + minute + ts % 3600 // 60) % 10080


def summary(facts: Facts, settings: Settings, found: Sequence[Incident] | None = None,
            rows: Sequence[dict[str, Any]] | None = None) -> dict[str, Any]:
    """The period's figures (GET /api/analytics/summary); `rows` are people()'s when already computed."""
    pages = pages_of(facts)
    found = incidents(facts) if found is None else found
    types = Counter(map(itemgetter(4), pages))
    rows = people(facts, settings) if rows is None else rows
    return {
        "since": facts.since, "until": facts.until,
        "pages": {"total": len(pages), "by_medium": dict(sorted(Counter(map(itemgetter(2), pages)).items()))},
        "problems": types["problem"], "recoveries": types["recovery"], "acknowledgements": types["acknowledgement"],
        "incidents": len(found),
        "mtta_seconds": spread([m for i in found if (m := i.mtta) is not None]),
        "mttr_seconds": spread([m for i in found if (m := i.mttr) is not None]),
        "never_acknowledged": sum(1 for i in found if i.ack is None),
        "self_resolved": sum(1 for i in found if i.self_resolved(settings.self_resolved_within)),
        "flapping_checks": len({p.check for p in pages if p.check in facts.flapping}),
        "off_hours_pages": sum(r["off_hours_pages"] for r in rows),
        "sleep_hours_pages": sum(r["sleep_hours_pages"] for r in rows),
    }


def checks(facts: Facts, settings: Settings, found: Sequence[Incident] | None = None) -> list[dict[str, Any]]:
    """Per check, sorted by pages, most first (GET /api/analytics/checks); `not_acted_share` is the share of its
    problem pages whose incident nobody acknowledged."""
    found = incidents(facts) if found is None else found
    pages: dict[str, int] = {}
    problems: dict[str, int] = {}
    for page in pages_of(facts):
        if page.check:
            pages[page.check] = pages.get(page.check, 0) + 1
            if page.type == "problem":
                problems[page.check] = problems.get(page.check, 0) + 1
    by_check: dict[str, list[Incident]] = {}
    for incident in found:
        by_check.setdefault(incident.check, []).append(incident)
    rows = [_check_row(check, n, problems.get(check, 0), by_check.get(check, []), settings,
                       check in facts.flapping) for check, n in pages.items()]
    return sorted(rows, key=lambda r: (-r["pages"], r["check"]))


def _check_row(check: str, pages: int, problems: int, found: list[Incident], settings: Settings,
               flapping: bool) -> dict[str, Any]:
    unacted = self_resolved = acted = 0
    mtta, mttr = [], []
    for i in found:
        if i.ack is None:
            unacted += i.pages
            self_resolved += i.self_resolved(settings.self_resolved_within)
        else:
            acted += 1
            mtta.append(max(i.ack.ts - i.first_page, 0))
        if i.end is not None:
            mttr.append(i.end - i.start)
    return {"check": check, "pages": pages, "problems": problems, "incidents": len(found), "flapping": flapping,
            "self_resolved": self_resolved, "acted_on": acted,
            "not_acted_share": round(unacted / problems, 3) if problems else 0.0,
            "mtta_seconds": spread(mtta), "mttr_seconds": spread(mttr)}


def people(facts: Facts, settings: Settings) -> list[dict[str, Any]]:
    """Per contact paged, sorted by pages, most first (GET /api/analytics/people)."""
    working, sleep = settings.masks
    counts: dict[str, list[int]] = {}
    for page in pages_of(facts):
        at = week_minute(page.ts, facts.zones.get(page.contact) or settings.default_zone)
        row = counts.get(page.contact)
        if row is None:
            row = counts[page.contact] = [0, 0, 0]
        row[0] += 1
        row[1] += not working[at]
        row[2] += sleep[at]
    rows = [{"contact": c, "pages": n, "off_hours_pages": off, "sleep_hours_pages": asleep}
            for c, (n, off, asleep) in counts.items()]
    return sorted(rows, key=lambda r: (-r["pages"], r["contact"]))


def timeline(facts: Facts, settings: Settings, found: Sequence[Incident] | None = None) -> dict[str, Any]:
    """The analytics page's plots: pages per UTC day by medium, MTTA/MTTR medians per day (by first page), and
    pages by hour of the week (Monday 00:00 first) in the default time zone."""
    pages = pages_of(facts)
    found = incidents(facts) if found is None else found
    first_day = facts.since // 86400
    days = list(range(first_day, facts.until // 86400 + 1))
    media = sorted({p.medium for p in pages})
    per_day = {m: [0] * len(days) for m in media}
    heat = [0] * 168
    for page in pages:
        per_day[page.medium][page.ts // 86400 - first_day] += 1
        weekday, minute = local_minute(page.ts, settings.default_zone)
        heat[weekday * 24 + minute // 60] += 1
    return {"days": [d * 86400 for d in days], "pages_by_medium": per_day,
            "mtta_median": _daily(found, days, lambda i: i.mtta), "mttr_median": _daily(found, days, lambda i: i.mttr),
            "hour_of_week": heat, "zone": settings.default_zone}


def _daily(found: Iterable[Incident], days: list[int], value: Any) -> list[float | None]:
    values: dict[int, list[int]] = {}
    for incident in found:
        if (v := value(incident)) is not None:
            values.setdefault(incident.first_page // 86400, []).append(v)
    return [spread(values[d])["median"] if d in values else None for d in days]


def day_label(ts: int) -> str:
    """YYYY-MM-DD of a unix time in UTC."""
    return datetime.fromtimestamp(ts, UTC).strftime("%Y-%m-%d")
