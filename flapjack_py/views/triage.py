"""Triage of checks for the overview (pure): the filters a responder combines (state, entity, check, tag,
summary text) and the sort orders of the lists (what makes a failing check handled: flapjack_py.views.rows).

Rows in (flapjack_py.views.rows.CheckRow, read by flapjack_py.store.triage), filtered and ordered lists out; no
Redis, no clock.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from flapjack_py.model.events import derived_tags
from flapjack_py.views.rows import CheckRow

MAX_TEXT = 200
"""Longest filter text used (entity, check, tag, summary), in characters."""

SEVERITY_RANK = {"critical": 0, "warning": 1, "unknown": 2, "ok": 3}
"""Worst first (critical > warning > unknown, engine.md section 0); a check without a state sorts last."""

STATE_FILTERS = {
    "failing": "failing", "unhandled": "failing, nobody on it", "handled": "failing, handled",
    "critical": "critical", "warning": "warning", "unknown": "unknown", "ok": "OK",
    "acknowledged": "acknowledged", "maintenance": "in scheduled maintenance", "disabled": "disabled",
}
"""Values of the `state` filter and how the UI names them."""

SORTS = ("severity", "entity", "check", "summary", "duration", "updated")
"""Columns a list sorts by; `severity` (worst first, then longest in that state) is the default."""


@dataclass(frozen=True)
class Filter:
    """A combination of filters, as kept in the overview's URL (empty = not filtering on it)."""

    state: str = ""
    entity: str = ""
    check: str = ""
    tag: str = ""
    text: str = ""
    sort: str = "severity"
    descending: bool = False
    mine: bool = False
    """Only the checks the teams of the user own (flapjack_py.model.teams)."""

    @property
    def active(self) -> bool:
        return bool(self.state or self.entity or self.check or self.tag or self.text or self.mine)

    @property
    def needs_facts(self) -> bool:
        """True when matching or ordering every check needs more than its name."""
        return bool(self.state or self.text) or self.sort not in ("entity", "check")

    def args(self, **override: Any) -> dict[str, str]:
        """The query arguments that rebuild this filter (defaults left out), with `override` applied."""
        values = {"state": self.state, "entity": self.entity, "check": self.check, "tag": self.tag,
                  "text": self.text, "sort": "" if self.sort == "severity" else self.sort,
                  "desc": "1" if self.descending else "", "mine": "1" if self.mine else ""}
        values.update({k: str(v) for k, v in override.items()})
        return {k: v for k, v in values.items() if v}


def parse_filter(args: Mapping[str, str]) -> Filter:
    """A Filter from query arguments; unknown states and sorts are ignored, texts cut to MAX_TEXT.

    `q` (the old entity search) still filters by entity; `show=failing` by failing state.
    """
    def text(name: str) -> str:
        return (args.get(name) or "").strip()[:MAX_TEXT]

    state = text("state") or ("failing" if args.get("show") == "failing" else "")
    sort = text("sort")
    return Filter(state=state if state in STATE_FILTERS else "", entity=text("entity") or text("q"),
                  check=text("check"), tag=text("tag"), text=text("text"),
                  sort=sort if sort in SORTS else "severity", descending=args.get("desc") == "1",
                  mine=args.get("mine") == "1")


def name_matcher(flt: Filter, tagged: Collection[str] = (), owned: Collection[str] = ()) -> Callable[[str], bool]:
    """A test of an E:C id against the filter's entity, check, tag and "my teams" parts (substring,
    case-insensitive).

    `tagged` holds the ids carrying the tag in Redis (check tags, entity tags); the tags every check
    shows (derived_tags) match too. `owned`: the ids the user's teams own (with `mine`).
    """
    entity, check, tag = flt.entity.lower(), flt.check.lower(), flt.tag.lower()

    def matches(check_id: str) -> bool:
        e, _, c = check_id.partition(":")
        if entity not in e.lower() or check not in c.lower() or (flt.mine and check_id not in owned):
            return False
        return not tag or check_id in tagged or tag in derived_tags(e, c)
    return matches


def facts_match(flt: Filter, facts: CheckRow) -> bool:
    """True when `facts` pass the filter's state and summary text parts."""
    if flt.text and flt.text.lower() not in facts.summary.lower():
        return False
    return _state_match(flt.state, facts) if flt.state else True


def _state_match(state: str, f: CheckRow) -> bool:
    tests: dict[str, Callable[[], bool]] = {
        "failing": lambda: f.failing, "unhandled": lambda: f.unhandled, "handled": lambda: f.handled,
        "acknowledged": lambda: f.acknowledged, "maintenance": lambda: f.scheduled,
        "disabled": lambda: not f.enabled,
    }
    return tests[state]() if state in tests else f.state == state


def sort_facts(rows: Iterable[CheckRow], sort: str = "severity", descending: bool = False) -> list[CheckRow]:
    """Rows in the order of column `sort` (SORTS), entity and check breaking ties."""
    keys: dict[str, Callable[[CheckRow], Any]] = {
        "severity": lambda f: (_rank(f), f.since or 0),
        "entity": lambda f: f.entity.lower(),
        "check": lambda f: f.check.lower(),
        "summary": lambda f: f.summary.lower(),
        "duration": lambda f: f.since or 0,
        "updated": lambda f: -(f.last_update or 0),
    }
    key = keys.get(sort, keys["severity"])
    ordered = sorted(rows, key=lambda f: (f.entity.lower(), f.check.lower()))
    return sorted(ordered, key=key, reverse=descending)


def sort_ids(ids: Iterable[str], sort: str, descending: bool = False) -> list[str]:
    """E:C ids ordered by entity or check name (the sorts that need no facts), the other name breaking ties."""
    def split(check_id: str) -> tuple[str, str]:
        e, _, c = check_id.partition(":")
        return (c.lower(), e.lower()) if sort == "check" else (e.lower(), c.lower())
    return sorted(ids, key=split, reverse=descending)


def split_problems(rows: Sequence[CheckRow]) -> tuple[list[CheckRow], list[CheckRow]]:
    """The failing rows split into (unhandled, handled), order kept."""
    return [r for r in rows if r.unhandled], [r for r in rows if r.handled]


def _rank(f: CheckRow) -> int:
    return SEVERITY_RANK.get(f.state or "", 4)
