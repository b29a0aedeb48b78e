"""Suggestions that prove themselves (issue 32 point 2). Pure.

For each of the noisiest checks whose pages were problems that went away by themselves, propose raising its
initial_failure_delay past the longest of those failures (the next step of LADDER); tools/suggestions.py replays
the check's archived events with the backtest engine with and without the change, and outcome() words what the
replays say: pages before and after, and the failures that lasted longer than the new delay which would no
longer have paged (missed problems).

A check change is also a backtest proposal (`flapjack backtest --rules FILE`): `{"checks": [{"check": "E:C",
"initial_failure_delay": N}]}`, replayed by setting the field on that check's events (with_check_changes).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from flapjack_py.analysis.backtest import Alert, BadProposal
from flapjack_py.analysis.incidents import Incident

LADDER = (60, 120, 180, 300, 600, 900, 1800)
"""initial_failure_delay values proposed, in seconds."""
CHECK_FIELDS = ("initial_failure_delay", "repeat_failure_delay")
MAX_CHECK_CHANGES = 10_000


@dataclass(frozen=True)
class Proposal:
    """A change to one check and why; `rules` is the proposal as `flapjack backtest --rules` takes it (None: the
    check's fields in `change`), `replayed` the checks whose events the replays need, `meant` the starts of the
    incidents the change means to silence (None: those no longer than the new delay)."""

    check: str
    change: dict[str, Any]
    why: str
    rules: dict[str, Any] | None = None
    replayed: tuple[str, ...] = ()
    meant: frozenset[int] | None = None

    def rules_file(self) -> dict[str, Any]:
        """The proposal as `flapjack backtest --rules` takes it."""
        return self.rules if self.rules is not None else {"checks": [{"check": self.check, **self.change}]}

    def missed(self, incident: Incident) -> bool:
        """Whether `incident`, had it lost its page, would be a problem missed (not one the change means to drop)."""
        if self.meant is not None:
            return incident.start not in self.meant
        return incident.mttr is None or incident.mttr > self.change["initial_failure_delay"]

    def wording(self, saved: int, before: int, missed: int) -> str:
        """The reason: the change, what the replay says, why it was proposed."""
        if "depends_on" in self.change:
            change, longer = f"make {self.check} depend on {self.change['depends_on']}", "that began outside its failures"
        else:
            delay = self.change["initial_failure_delay"]
            change, longer = f"raise initial_failure_delay of {self.check} to {delay} s", f"that lasted longer than {delay} s"
        return (f"{change}: {saved} of {before} pages would not have been sent; {missed} incidents {longer} would "
                f"have been missed ({self.why})")


def propose(rows: Sequence[Mapping[str, Any]], found: Iterable[Incident], within: int, limit: int,
            current_delay: int) -> list[Proposal]:
    """Proposals for the first `limit` checks of `rows` (sorted by pages) that have self-resolved problems."""
    lasted: dict[str, list[int]] = {}
    for incident in found:
        if incident.self_resolved(within) and incident.mttr is not None:
            lasted.setdefault(incident.check, []).append(incident.mttr)
    proposals = []
    for row in rows:
        durations = lasted.get(row["check"])
        delay = next((n for n in LADDER if durations and n > max(durations) and n > current_delay), None)
        if delay is None:
            continue
        why = (f"{len(durations or ())} of its {row['incidents']} paged problems recovered by themselves within "
               f"{max(durations or [0])} s, nobody acting")
        proposals.append(Proposal(row["check"], {"initial_failure_delay": delay}, why, replayed=(row["check"],)))
        if len(proposals) == limit:
            break
    return proposals


def outcome(proposal: Proposal, found: Iterable[Incident], before: Sequence[Alert],
            after: Sequence[Alert]) -> dict[str, Any]:
    """The suggestion as the API gives it: `{"check", "change", "reason", "pages_before", "pages_after",
    "missed_problems", "backtest"}` from the replays without (`before`) and with (`after`) the change."""
    mine_before = [a for a in before if a[2] == proposal.check]
    mine_after = [a for a in after if a[2] == proposal.check]
    missed = sum(1 for i in found if i.check == proposal.check and proposal.missed(i)
                 and _problem_in(mine_before, i) and not _problem_in(mine_after, i))
    saved = len(mine_before) - len(mine_after)
    return {"check": proposal.check, "change": dict(proposal.change),
            "reason": proposal.wording(saved, len(mine_before), missed),
            "pages_before": len(mine_before), "pages_after": len(mine_after), "missed_problems": missed,
            "backtest": proposal.rules_file()}


def _problem_in(alerts: Sequence[Alert], incident: Incident) -> bool:
    return any(a[3] == "problem" and incident.start <= a[5] and (incident.end is None or a[5] <= incident.end)
               for a in alerts)


def read_check_changes(data: Mapping[str, Any]) -> dict[str, dict[str, int]]:
    """`"checks": [{"check": "E:C", "initial_failure_delay": N, "repeat_failure_delay": N}]` of a proposal file,
    as check -> fields ({} when it has none); BadProposal naming the problem."""
    items = data.get("checks", [])
    if not isinstance(items, list) or len(items) > MAX_CHECK_CHANGES:
        raise BadProposal(f'"checks" must be a list of at most {MAX_CHECK_CHANGES} check changes')
    found: dict[str, dict[str, int]] = {}
    for n, item in enumerate(items):
        check = item.get("check") if isinstance(item, dict) else None
        if not isinstance(check, str) or ":" not in check:
            raise BadProposal(f'checks[{n}]: an object with "check": "ENTITY:CHECK" is needed')
        fields = {k: v for k, v in item.items() if k != "check"}
        if not fields or any(k not in CHECK_FIELDS or type(v) is not int or not 0 <= v <= 86400 * 7
                             for k, v in fields.items()):
            raise BadProposal(f"checks[{n}]: only {' and '.join(CHECK_FIELDS)} (whole seconds, 0 to 604800)")
        found[check] = fields
    return found


def with_check_changes(events: Sequence[tuple[int, bytes]],
                       changes: Mapping[str, Mapping[str, int]]) -> list[tuple[int, bytes]]:
    """The events with each changed check's fields set on its events (other events untouched)."""
    if not changes:
        return list(events)
    return [(at, _changed(raw, changes)) for at, raw in events]


def _changed(raw: bytes, changes: Mapping[str, Mapping[str, int]]) -> bytes:
    try:
        event = json.loads(raw)
    except ValueError:
        return raw
    if not isinstance(event, dict) or event.get("type", "service") != "service":
        return raw
    fields = changes.get(f"{event.get('entity')}:{event.get('check')}")
    return raw if fields is None else json.dumps({**event, **fields}).encode()


def of_checks(events: Sequence[tuple[int, bytes]], checks: Iterable[str]) -> list[tuple[int, bytes]]:
    """The events about `checks` (a suggestion is replayed with the events of the checks it is about only)."""
    wanted = {tuple(check.split(":", 1)) for check in checks}
    found = []
    for at, raw in events:
        try:
            event = json.loads(raw)
        except ValueError:
            continue
        if isinstance(event, dict) and (event.get("entity"), event.get("check")) in wanted:
            found.append((at, raw))
    return found
