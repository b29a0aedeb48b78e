"""Suggestions for the noisiest checks, each proved by two backtest replays of its archived events (issue 32).

analysis/suggestions.py proposes and words; this module reads the archived events of the period
(executive.archive_events, kept executive.events_archive_maxage) and replays them with
flapjack_py/tools/backtest.py's engine (the real executive in a scratch Redis) without and with the change.
A check with no archived events in the period gets no suggestion (nothing proves it).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from flapjack_py.analysis import analytics
from flapjack_py.analysis import backtest as backtest_model
from flapjack_py.analysis import suggestions as pure
from flapjack_py.analysis.backtest import Alert
from flapjack_py.analysis.incidents import Facts, Incident
from flapjack_py.analysis.parents import propose_parents
from flapjack_py.analysis.suggestions import Proposal
from flapjack_py.config.settings import Config
from flapjack_py.model.dependencies import to_json
from flapjack_py.store import dependencies as dependency_store
from flapjack_py.store.plumbing.client import Clients
from flapjack_py.tools import backtest


def suggestions(live: Clients, config: Config, facts: Facts, settings: analytics.Settings,
                found: Sequence[Incident]) -> list[dict[str, Any]]:
    """`{"check", "change", "reason", "pages_before", "pages_after", "missed_problems", "backtest"}` per proposal:
    a longer initial_failure_delay for checks whose problems went away by themselves, a dependency for checks
    that fail while another does."""
    rows = analytics.checks(facts, settings, found)
    limit = config.analytics.noisy_checks
    stored = dependency_store.load_all(live.text)
    parents_now: dict[str, set[str]] = {}
    for dep in stored:
        if dep.kind == "check":
            parents_now.setdefault(dep.value, set()).add(dep.parent)
    proposals = pure.propose(rows, found, settings.self_resolved_within, limit, config.executive.initial_failure_delay)
    proposals += propose_parents(rows, facts, found, limit, [to_json(d) for d in stored], parents_now)
    if not proposals:
        return []
    events = [e for e in backtest.archived(live, facts.since) if e[0] <= facts.until]
    made = []
    for proposal in proposals:
        mine = pure.of_checks(events, proposal.replayed)
        if not pure.of_checks(mine, [proposal.check]):
            continue  # nothing archived to prove it with
        before = backtest.replay(live, mine, config, lambda scratch: None)
        after = _replay_changed(live, config, mine, proposal)
        made.append(pure.outcome(proposal, found, before, after))
    return made


def _replay_changed(live: Clients, config: Config, events: list[tuple[int, bytes]], proposal: Proposal) -> list[Alert]:
    rules = proposal.rules_file()
    if "dependencies" in rules:
        proposed = backtest_model.read_dependencies(json.dumps(rules))
        return backtest.replay(live, events, config, lambda scratch: backtest.apply_proposal(scratch, [], proposed))
    changed = pure.with_check_changes(events, pure.read_check_changes(rules))
    return backtest.replay(live, changed, config, lambda scratch: None)
