"""Template filters of the web UI: times for people at 3 a.m., state titles, rule summaries."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import Any

from flask import Blueprint
from markupsafe import Markup

from flapjack_py.rules import NotificationRule
from flapjack_py.weekly import from_restriction

_UNITS = (("year", 31_557_600), ("day", 86400), ("hour", 3600), ("minute", 60), ("second", 1))


def age(seconds: int | None, parts: int = 2) -> str:
    """A period in words, biggest `parts` units: `2 hours, 5 minutes`; None -> ''."""
    if seconds is None:
        return ""
    if seconds < 1:
        return "0 seconds"
    said = []
    for name, size in _UNITS:
        n, seconds = divmod(seconds, size)
        if n:
            said.append(f"{n} {name}{'' if n == 1 else 's'}")
        if len(said) == parts or (said and not n):
            break
    return ", ".join(said)


def since(ts: int | None) -> str:
    """How long ago a unix time was, in words; '' for None."""
    if ts is None:
        return ""
    return age(int(time.time()) - ts)


def ago(ts: int | None) -> str:
    """`5 minutes ago` / `in 3 hours` / `never`."""
    if ts is None:
        return "never"
    delta = int(time.time()) - ts
    if abs(delta) < 1:
        return "just now"
    return f"{age(delta)} ago" if delta > 0 else f"in {age(-delta)}"


def when_text(ts: int | None) -> str:
    """A unix time as `2023-11-14 22:13:20 UTC`; '' for None (for attributes and plain text)."""
    if ts is None:
        return ""
    return datetime.fromtimestamp(ts, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def iso_time(ts: int | None) -> str:
    """A unix time in ISO 8601 (`2023-11-14T22:13:20Z`), as every `<time datetime>` carries; '' for None."""
    if ts is None:
        return ""
    return datetime.fromtimestamp(ts, UTC).isoformat().replace("+00:00", "Z")


def when(ts: int | None) -> Markup:
    """A unix time as a `<time class="local">` element: UTC in the page and on hover; the browser's
    static/localtime.js shows it in the viewer's time zone. Empty for None."""
    if ts is None:
        return Markup("")
    text = when_text(ts)
    return Markup('<time class="local" datetime="{}" title="{}">{}</time>').format(iso_time(ts), text, text)


def state_title(state: str | None) -> str:
    """`OK`, `Critical`, `Test Notifications`; a check with no state yet reads `No data`."""
    if not state:
        return "No data"
    if state == "ok":
        return "OK"
    return " ".join(word.capitalize() for word in state.split("_"))


def rule_summary(rule: NotificationRule) -> list[str]:
    """A notification rule in a few plain sentences."""
    lines = [_rule_scope(rule)]
    for severity in ("critical", "warning", "unknown"):
        if getattr(rule, f"{severity}_blackhole"):
            lines.append(f"{severity.capitalize()}: never alert (blackhole)")
        else:
            media = getattr(rule, f"{severity}_media") or []
            lines.append(f"{severity.capitalize()}: {', '.join(media) if media else 'no media'}")
    lines.append(restrictions_text(rule.time_restrictions))
    return lines


def restrictions_text(restrictions: list[Any] | None) -> str:
    """`At any time`, or the weekly windows in words: `Only Mon–Fri 09:00–17:00; Sat 10:00–12:00`."""
    if not restrictions:
        return "At any time"
    windows = [from_restriction(entry) for entry in restrictions]
    return "Only " + "; ".join(w.describe() if w else "within a custom time restriction" for w in windows)


def register(bp: Blueprint) -> None:
    """Make these functions available as Jinja filters of every template."""
    for func in (age, since, ago, when, when_text, iso_time, state_title, rule_summary):
        bp.add_app_template_filter(func)


def _rule_scope(rule: NotificationRule) -> str:
    parts = []
    if rule.entities:
        parts.append("entities " + ", ".join(rule.entities))
    if rule.regex_entities:
        parts.append("entities matching " + ", ".join(f"/{r}/" for r in rule.regex_entities))
    if rule.tags:
        parts.append("tags " + ", ".join(rule.tags))
    if rule.regex_tags:
        parts.append("tags matching " + ", ".join(f"/{r}/" for r in rule.regex_tags))
    return "Applies to " + ("; ".join(parts) if parts else "every check (general rule)")
