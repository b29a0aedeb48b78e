"""Template filters of the web UI: times for people at 3 a.m., state titles, rule summaries.

Every time shown is a `<time datetime>` element with an ISO 8601 value (a duration: `PT…S`);
its words come from humanize (`5 minutes ago`, `2 hours and 1 minute`), never built by hand.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from typing import Any

import humanize
from flask import Blueprint
from markupsafe import Markup

from flapjack_py.model.rules import NotificationRule
from flapjack_py.views.weekly import from_restriction


def age_text(seconds: int | None) -> str:
    """A period in words, exact to the second (humanize): `2 hours and 1 minute`; None -> ''."""
    if seconds is None:
        return ""
    return str(humanize.precisedelta(timedelta(seconds=max(seconds, 0)), minimum_unit="seconds", format="%0.0f"))


def duration_text(seconds: int) -> str:
    """A duration as an edit field shows it and flapjack_py.timeparse reads it back: `0`, `45s`, `15m`, `1h30m`."""
    if seconds <= 0:
        return "0"
    parts = [(seconds // 3600, "h"), (seconds % 3600 // 60, "m"), (seconds % 60, "s")]
    return "".join(f"{n}{unit}" for n, unit in parts if n)


def ago_text(ts: int, now: int | None = None) -> str:
    """How long ago (or how far ahead) a unix time is, roughly, in words (humanize): `5 minutes ago`."""
    now = int(time.time()) if now is None else now
    return str(humanize.naturaltime(timedelta(seconds=now - ts)))


def age(seconds: int | None) -> Markup:
    """A period as `<time datetime="PT7260S">2 hours and 1 minute</time>` (an ISO 8601 duration); '' for None."""
    if seconds is None:
        return Markup("")
    return Markup('<time datetime="PT{}S">{}</time>').format(max(seconds, 0), age_text(seconds))


def since(ts: int | None) -> Markup:
    """How long since a unix time, roughly, as `<time datetime="ISO" title="since …">2 hours</time>`; '' for None."""
    if ts is None:
        return Markup("")
    text = str(humanize.naturaldelta(timedelta(seconds=max(int(time.time()) - ts, 0))))
    return Markup('<time datetime="{}" title="since {}">{}</time>').format(iso_time(ts), when_text(ts), text)


def ago(ts: int | None) -> Markup:
    """`<time datetime="ISO" title="UTC">5 minutes ago</time>` (or `… from now`); `never` for None."""
    if ts is None:
        return Markup("never")
    return Markup('<time datetime="{}" title="{}">{}</time>').format(iso_time(ts), when_text(ts), ago_text(ts))


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
