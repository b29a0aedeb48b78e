"""Matrix message shapes for the matrix gateway and its bot (gateways/matrix.py, gateways/matrix_bot.py). Pure.

An alert is one `m.text` message (plain body and `org.matrix.custom.html`); what follows it (acknowledged,
recovered, the bot's answers) goes in its thread (`m.thread` relation). A command is read from a reply to an
alert message or a message in its thread: `ack [DURATION] [MESSAGE]`, `maint DURATION [MESSAGE]`, `status`,
`help`; a ✅ or 👍 reaction on the alert message acknowledges it. Outside a thread, `ack CODE [DURATION]
[MESSAGE]` (the alert's ack code) and `status ENTITY:CHECK` work as the Jabber bot's commands do.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from typing import Any

ACK_REACTIONS = frozenset({"✅", "👍", "✔️", "☑️"})
"""Reaction keys (variation selectors removed) that acknowledge the alert reacted to."""
MAX_BODY = 2000
"""Longest command read, in characters."""
HELP = ("in an alert's thread (or replying to it): `ack [DURATION] [MESSAGE]` acknowledges its check "
        "(default 4 hours), `maint DURATION [MESSAGE]` schedules maintenance from now, `status` tells its state; "
        "a ✅ or 👍 reaction on the alert acknowledges it. Anywhere: `ack CODE [DURATION] [MESSAGE]` with an "
        "alert's ack code, `status ENTITY:CHECK`")
_STATE_COLOURS = {"critical": "#d00000", "warning": "#e8a317", "unknown": "#7f7f7f", "ok": "#2eb886"}
_DURATION = re.compile(r"^\d+(\.\d+)?\s*[a-z]*$|^\d+$", re.IGNORECASE)


@dataclass(frozen=True)
class Command:
    """A command read from a message: `verb` (ack, maint, status, help) and the rest."""

    verb: str
    duration: str = ""
    message: str = ""


def alert_content(alert: dict[str, Any]) -> dict[str, Any]:
    """The `m.text` content of an alert: its rendered body, and HTML naming the check, state, summary, ack code."""
    check, state = str(alert.get("check") or ""), str(alert.get("state") or "")
    body = str(alert.get("body") or alert.get("subject") or f"{alert.get('type')}: {check} is {state}")
    summary = str(alert.get("summary") or "")
    code = str(alert.get("ack_code") or "")
    colour = _STATE_COLOURS.get(state, "#7f7f7f")
    formatted = (f'<p><strong>{html.escape(str(alert.get("type") or "").capitalize())}</strong> '
                 f"<code>{html.escape(check)}</code> is "
                 f'<font color="{colour}"><strong>{html.escape(state.upper())}</strong></font></p>')
    if summary:
        formatted += f"<p>{html.escape(summary)}</p>"
    if code:
        formatted += f"<p>ack code <code>{html.escape(code)}</code></p>"
        if code not in body:
            body += f"\nack code: {code}"
    return {"msgtype": "m.text", "body": body, "format": "org.matrix.custom.html", "formatted_body": formatted}


def thread_content(root: str, text: str, notice: bool = True) -> dict[str, Any]:
    """A message in the thread of event `root` (replying to it for clients without threads)."""
    return {"msgtype": "m.notice" if notice else "m.text", "body": text,
            "m.relates_to": {"rel_type": "m.thread", "event_id": root, "is_falling_back": True,
                             "m.in_reply_to": {"event_id": root}}}


def related_event(content: dict[str, Any]) -> str | None:
    """The event a message is about: its thread's root, else the event it replies to; None for neither."""
    relation = content.get("m.relates_to")
    if not isinstance(relation, dict):
        return None
    if relation.get("rel_type") == "m.thread" and isinstance(relation.get("event_id"), str):
        return str(relation["event_id"])
    reply = relation.get("m.in_reply_to")
    if isinstance(reply, dict) and isinstance(reply.get("event_id"), str):
        return str(reply["event_id"])
    return None


def reaction_target(content: dict[str, Any]) -> str | None:
    """The event an acknowledging reaction (✅, 👍) is on, or None for any other reaction."""
    relation = content.get("m.relates_to")
    if not isinstance(relation, dict) or relation.get("rel_type") != "m.annotation":
        return None
    key = str(relation.get("key") or "").replace("\ufe0f", "")
    if key not in {k.replace("\ufe0f", "") for k in ACK_REACTIONS}:
        return None
    target = relation.get("event_id")
    return target if isinstance(target, str) else None


def command_of(body: str) -> Command | None:
    """The command a message body holds (a reply's quoted fallback lines skipped), or None when it holds none."""
    lines = [line for line in body[:MAX_BODY].splitlines() if not line.startswith(">")]
    words = " ".join(lines).split()
    if not words:
        return None
    verb, rest = words[0].lower(), words[1:]
    if verb == "ack":
        if rest and _DURATION.match(rest[0]):
            return Command("ack", rest[0], " ".join(rest[1:]))
        return Command("ack", "", " ".join(rest))
    if verb == "maint":
        return Command("maint", rest[0] if rest else "", " ".join(rest[1:]))
    if verb == "status":
        return Command(verb, "", " ".join(rest))
    if verb == "help":
        return Command(verb)
    return None


def code_command(command: Command) -> tuple[str, str, str] | None:
    """(code, duration, message) of `ack CODE [DURATION] [MESSAGE]` written outside a thread, or None."""
    words = command.message.split()
    if command.verb != "ack" or command.duration or not words:
        return None
    rest = words[1:]
    if rest and _DURATION.match(rest[0]):
        return words[0], rest[0], " ".join(rest[1:])
    return words[0], "", " ".join(rest)


def who(actor: str | None) -> str:
    """How the actor of an acknowledgement is named in a thread: `@alice:example.org` for a Matrix user."""
    if not actor:
        return "someone"
    return actor.removeprefix("matrix:")
