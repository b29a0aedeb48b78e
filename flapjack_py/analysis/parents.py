"""Suggestions of a parent (issue 32 point 2, "add a dependency on its failing parent"). Pure.

A noisy check whose paged failures nearly all began while another paged check was already failing (at least
SHARE of them, and at least MIN_COVERED) gets the proposal to depend on that check: its problems would not
page while the parent fails (dependencies, issue 33). The proposal is replayed like any (tools/suggestions.py)
with the stored dependencies and the new one in their place, as `flapjack backtest` takes them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from flapjack_py.analysis.incidents import Facts, Incident, failures
from flapjack_py.analysis.suggestions import Proposal

SHARE = 0.8
MIN_COVERED = 2


def propose_parents(rows: Sequence[Mapping[str, Any]], facts: Facts, found: Sequence[Incident], limit: int,
                    stored: Sequence[Mapping[str, Any]], parents_now: Mapping[str, set[str]]) -> list[Proposal]:
    """Proposals for at most `limit` of the noisiest checks of `rows` (by pages) with a parent candidate; `stored` are the
    stored dependencies as the API gives them, `parents_now` each check's current parents (left alone)."""
    spans = {check: failures(changes) for check, changes in facts.changes.items()}
    by_check: dict[str, list[Incident]] = {}
    for incident in found:
        by_check.setdefault(incident.check, []).append(incident)
    proposals = []
    for row in rows[:limit * 4]:  # the noisiest only: each is compared with every check that paged
        mine = by_check.get(row["check"], [])
        best = _best_parent(row["check"], mine, spans, parents_now.get(row["check"], set()))
        if best is None:
            continue
        parent, covered = best
        rules = {"dependencies": [*({"parent": d["parent"], "child": d["child"]} for d in stored),
                                  {"parent": parent, "child": {"check": row["check"]}}]}
        why = f"{len(covered)} of its {len(mine)} paged problems began while {parent} was failing"
        proposals.append(Proposal(row["check"], {"depends_on": parent}, why, rules, (parent, row["check"]),
                                  frozenset(covered)))
        if len(proposals) == limit:
            break
    return proposals


def _best_parent(check: str, mine: Sequence[Incident], spans: Mapping[str, list[tuple[int, int | None]]],
                 already: set[str]) -> tuple[str, list[int]] | None:
    if len(mine) < MIN_COVERED:
        return None
    best: tuple[str, list[int]] | None = None
    for parent, failing in spans.items():
        if parent == check or parent in already:
            continue
        covered = [i.start for i in mine if any(s <= i.start and (e is None or i.start < e) for s, e in failing)]
        if len(covered) >= max(MIN_COVERED, SHARE * len(mine)) and (best is None or len(covered) > len(best[1])):
            best = (parent, covered)
    return best
