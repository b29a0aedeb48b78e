"""Suggestions for the noisiest checks, each proved by two backtest replays of its archived events (issue 32).

analysis/suggestions.py proposes and words; this module reads the archived events of the period
(executive.archive_events, kept executive.events_archive_maxage) and replays them with
flapjack_py/tools/backtest.py's engine (the real executive in a scratch Redis) without and with the change.
A check with no archived events in the period gets no suggestion (nothing proves it).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from flapjack_py.analysis import analytics
from flapjack_py.analysis import suggestions as pure
from flapjack_py.analysis.incidents import Facts, Incident
from flapjack_py.config.settings import Config
from flapjack_py.store.plumbing.client import Clients
from flapjack_py.tools import backtest


def suggestions(live: Clients, config: Config, facts: Facts, settings: analytics.Settings,
                found: Sequence[Incident]) -> list[dict[str, Any]]:
    """`{"check", "change", "reason", "pages_before", "pages_after", "missed_problems", "backtest"}` per proposal."""
    rows = analytics.checks(facts, settings, found)
    proposals = pure.propose(rows, found, settings.self_resolved_within, config.analytics.noisy_checks,
                             config.executive.initial_failure_delay)
    if not proposals:
        return []
    events = [e for e in backtest.archived(live, facts.since) if e[0] <= facts.until]
    made = []
    for proposal in proposals:
        mine = pure.of_check(events, proposal.check)
        if not mine:
            continue
        before = backtest.replay(live, mine, config, lambda scratch: None)
        changed = pure.with_check_changes(mine, {proposal.check: proposal.change})
        after = backtest.replay(live, changed, config, lambda scratch: None)
        made.append(pure.outcome(proposal, found, before, after))
    return made

