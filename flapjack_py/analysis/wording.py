"""The on-call figures in words: the terminal's `flapjack report` and the digest's text part (issue 32). Pure."""

from __future__ import annotations

from typing import Any

from flapjack_py.analysis.analytics import day_label


def describe(figures: dict[str, Any], top: int = 10) -> list[str]:
    """Lines for the terminal (and the digest's text part)."""
    s = figures["summary"]
    media = ", ".join(f"{m} {n}" for m, n in s["pages"]["by_medium"].items()) or "none"
    lines = [f"{day_label(s['since'])} .. {day_label(s['until'])}",
             f"pages: {s['pages']['total']} ({media}); problems {s['problems']}, recoveries {s['recoveries']}",
             f"MTTA: {_spread(s['mtta_seconds'])}", f"MTTR: {_spread(s['mttr_seconds'])}",
             f"never acknowledged: {s['never_acknowledged']}; self-resolved: {s['self_resolved']}",
             f"off-hours pages: {s['off_hours_pages']}; sleep-hours pages: {s['sleep_hours_pages']}"]
    if figures["checks"]:
        lines += ["", "noisiest checks (pages, problems, self-resolved, acted on):"]
        lines += [f"  {r['check']}: {r['pages']}, {r['problems']}, {r['self_resolved']}, {r['acted_on']}"
                  for r in figures["checks"][:top]]
    if figures["people"]:
        lines += ["", "people (pages, off hours, sleep hours):"]
        lines += [f"  {r['contact']}: {r['pages']}, {r['off_hours_pages']}, {r['sleep_hours_pages']}"
                  for r in figures["people"][:top]]
    for suggestion in figures.get("suggestions", []):
        lines += ["", f"suggestion: {suggestion['reason']}"]
    return lines


def _spread(spread: dict[str, Any]) -> str:
    if not spread["count"]:
        return "no incidents"
    return f"median {spread['median']} s, p90 {spread['p90']} s over {spread['count']}"
