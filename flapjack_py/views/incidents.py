"""What the API and the UI show of an incident (issue 33): its JSON, its timeline in words, and a Markdown
postmortem draft. Pure: the stored incident (store/incidents.py) and timeline entries (model/incidents.py
entry) in, text out.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

ENTRY_WORDS = {
    "opened": "incident opened", "joined": "{check} joined", "problem": "{check} {state}: {summary}",
    "recovery": "{check} recovered: {summary}", "acknowledgement": "{check} acknowledged by {actor} ({channel}): {summary}",
    "page": "paged {contact} on {medium} ({type}, alert {alert})", "note": "note by {actor} ({channel}): {text}",
    "escalation": "{check}: escalation paged {contacts}", "resolved": "incident resolved",
}


class Shown(Protocol):
    """What is shown of a stored incident (store/incidents.py Incident)."""

    @property
    def id(self) -> str: ...
    @property
    def title(self) -> str: ...
    @property
    def state(self) -> str: ...
    @property
    def opened_at(self) -> int: ...
    @property
    def resolved_at(self) -> int | None: ...
    @property
    def acknowledged_at(self) -> int | None: ...
    @property
    def acknowledged_by(self) -> str | None: ...
    @property
    def acknowledged_channel(self) -> str | None: ...
    @property
    def checks(self) -> dict[str, int]: ...


def as_json(incident: Shown, states: Mapping[str, str]) -> dict[str, Any]:
    """The API form of an incident; `states`: each check's current state."""
    return {"id": incident.id, "title": incident.title, "state": incident.state, "opened_at": incident.opened_at,
            "resolved_at": incident.resolved_at, "acknowledged_at": incident.acknowledged_at,
            "acknowledged_by": incident.acknowledged_by, "acknowledged_channel": incident.acknowledged_channel,
            "checks": [{"id": c, "state": states.get(c) or "unknown", "joined_at": at}
                       for c, at in sorted(incident.checks.items(), key=lambda item: (item[1], item[0]))]}


def in_order(entries: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Timeline entries in time order (stable: a batch's entries keep their order), each with its words."""
    ordered = sorted(enumerate(entries), key=lambda item: (int(item[1].get("at", 0)), item[0]))
    return [{**e, "text": words(e)} for _, e in ordered]


def words(e: Mapping[str, Any]) -> str:
    template = ENTRY_WORDS.get(str(e.get("kind")), "{kind}")
    values = {k: ", ".join(map(str, v)) if isinstance(v, list) else v for k, v in e.items()}
    values = {"actor": "someone", "channel": "?", "summary": "", "state": "", **values}
    try:
        return template.format(**values).rstrip(": ")
    except (KeyError, IndexError, ValueError):
        return str(e.get("kind"))


def stamp(at: int | None) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(at)) if at else "-"


def span(seconds: int | None) -> str:
    if seconds is None:
        return "-"
    hours, rest = divmod(max(0, seconds), 3600)
    return f"{hours}h {rest // 60}m {rest % 60}s" if hours else f"{rest // 60}m {rest % 60}s"


def postmortem(incident: Shown, entries: Sequence[Mapping[str, Any]], states: Mapping[str, str]) -> str:
    """A Markdown postmortem draft: summary, impact window, timeline, who was paged and when, time to
    acknowledge and to resolve."""
    timeline = in_order(entries)
    end = incident.resolved_at
    lines = [f"# Postmortem: {incident.title} (incident {incident.id})", "", "## Summary", "",
             f"{len(incident.checks)} checks failed; the incident is {incident.state}.", "",
             "## Impact window", "", f"- Opened: {stamp(incident.opened_at)}", f"- Resolved: {stamp(end)}",
             f"- Duration: {span(end - incident.opened_at) if end else 'ongoing'}", "",
             "## Checks", ""]
    lines += [f"- {c} (now {states.get(c) or 'unknown'})" for c in sorted(incident.checks)]
    lines += ["", "## Timeline", ""]
    lines += [f"- {stamp(int(e.get('at', 0)))} {e['text']}" for e in timeline]
    lines += ["", "## Who was paged and when", ""]
    pages = [e for e in timeline if e.get("kind") == "page"]
    lines += [f"- {stamp(int(e.get('at', 0)))} {e.get('contact')} on {e.get('medium')} ({e.get('type')})"
              for e in pages] or ["- nobody"]
    acked = incident.acknowledged_at
    lines += ["", "## Response", "",
              f"- Time to acknowledge: {span(acked - incident.opened_at) if acked else 'not acknowledged'}"
              + (f" (by {incident.acknowledged_by} via {incident.acknowledged_channel})" if acked else ""),
              f"- Time to resolve: {span(end - incident.opened_at) if end else 'not resolved'}", "",
              "## What went wrong, what we change", "", "_To be written._", ""]
    return "\n".join(lines)
