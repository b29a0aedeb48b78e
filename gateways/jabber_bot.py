"""The Jabber chat bot: turn a chat line into an action and a reply (engine.md section 6.3).

No XMPP here: `command_in_room` / `command_in_chat` pick the command out of a
message body, `Bot.reply(command, sender)` interprets it against Redis (acks and
tests are queued as events for the executive; maintenance is written through
flapjack_py.store.maintenance) and returns the reply text.
"""

from __future__ import annotations

import html.parser
import logging
import os
import resource
import socket
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

from flapjack_py import __version__, actions, timeparse
from flapjack_py.access import Role
from flapjack_py.durations import HOUR, words
from flapjack_py.errors import InvalidDuration
from flapjack_py.model.actors import Actor
from flapjack_py.model.events import FAILURE_STATES
from flapjack_py.model.patterns import InvalidPattern, Match, Pattern, escape
from flapjack_py.model.patterns import compile_pattern as compile_re2
from flapjack_py.model.teams import Acting, NotOwned
from flapjack_py.notify.render import local_time
from flapjack_py.store import checks as check_store
from flapjack_py.store import entities as entity_store
from flapjack_py.store import maintenance as maint_store
from flapjack_py.store import teams as team_store
from flapjack_py.store.plumbing.client import StrRedis

log = logging.getLogger(__name__)

ACK_DURATION = 4 * HOUR
"""Length of the unscheduled maintenance of an ACKID without (valid) duration."""
BULK_DURATION = HOUR
"""Default duration of `ack entities`, `ack checks` and `maint entities`."""
MAX_SHOWN = 30
"""Most entity names listed by `find entities`."""
DEFAULT_COMMENT = "Set via chatbot"
ENTITY_NAME = r"([a-z0-9.-]+)"
MAX_COMMAND_LENGTH = 2000
"""Longest chat command interpreted, in characters."""

HELP = "\n".join([
    "commands:",
    "  ACKID <id> <comment> [duration: <time spec>]",
    "  help",
    "  identify",
    "  test notifications for <entity>[:<check>]",
    "  tell me about <entity>[:<check>]",
    "  find checks[ matching /pattern/] on (<entity>|entities matching /pattern/)",
    "  find entities matching /pattern/",
    "  ack entities /pattern/ [<comment>] [duration: <time spec>]",
    "  maint entities /pattern/ [<comment>] [start-in: <time spec>] [start-at: <time>] [duration: <time spec>]",
    "  status entities /pattern/",
    "  ack checks /pattern/ on /pattern/ [<comment>] [duration: <time spec>]",
    "  status checks /pattern/ [on /pattern/]",
])


@dataclass(frozen=True)
class BotSettings:
    """What the bot needs from the gateway's config."""

    alias: str = "flapjack"
    identifiers: tuple[str, ...] = ("flapjack",)
    events_queue: str = "events"
    boot_time: int = 0
    unowned_checks: str = "everyone"
    """config web.unowned_checks: who may act on a check no team owns."""


class BadPattern(ValueError):
    """Raised when a /pattern/ typed in chat is not a valid regular expression."""

    def __init__(self, pattern: str) -> None:
        super().__init__(pattern)
        self.pattern = pattern


# --- picking the command out of a message ----------------------------------


def strip_html(body: str) -> str:
    """The text of `body` with HTML markup removed (text chunks joined by one space)."""
    if "<" not in body:
        return body.strip()
    parser = _TextChunks()
    parser.feed(body)
    parser.close()
    return " ".join(chunk.strip() for chunk in parser.chunks if chunk.strip())


def command_in_room(body: str, identifiers: Iterable[str]) -> str | None:
    """The command of a room message addressed to the bot (`<identifier>[:] command`), else None."""
    text = strip_html(body)
    for identifier in sorted(set(identifiers), key=len, reverse=True):
        match = _command(rf"{escape(identifier)}(?::|\s)\s*(.*)").match(text)
        if match:
            return str(match.group(1)).strip()
    return None


def command_in_chat(body: str) -> str:
    """The command of a direct message: the body without a leading `flapjack:`."""
    text = strip_html(body)
    match = _command(r"flapjack:\s+(.*)").match(text)
    return (match.group(1) if match else text).strip()


# --- interpreting it ----------------------------------------------------------


class Bot:
    """Interprets chat commands against Redis; one instance per gateway process."""

    def __init__(self, client: StrRedis, settings: BotSettings,
                 clock: Callable[[], float] = time.time) -> None:
        self.client = client
        self.settings = settings
        self.clock = clock
        self.commands: list[tuple[Pattern, Callable[[Match, str, int], str]]] = [
            (_command(r"ACKID\s+([0-9a-f]+)(?:\s+(.*))?"), self._ackid),
            (_command(r"help"), lambda m, s, n: HELP),
            (_command(r"identify"), self._identify),
            (_command(rf"test notifications for\s+{ENTITY_NAME}(?::(.+))?"), self._test),
            (_command(rf"tell me about\s+{ENTITY_NAME}(?::(.+))?"), self._tell),
            (_command(rf"(?:find\s+)?checks(?:\s+matching\s+/(.+?)/)?\s+on\s+"
                      rf"(?:entities\s+matching\s+/(.+)/|{ENTITY_NAME})(?:\s.*)?"), self._find_checks),
            (_command(r"(?:find\s+)?entities\s+matching\s+/(.+)/.*"), self._find_entities),
            (_command(r"(?:ack\s+)?entities\s+/(.+?)/(?:\s+(.*))?"), self._ack_entities),
            (_command(r"maint\s+entities\s+/(.+?)/(?:\s+(.*))?"), self._maint_entities),
            (_command(r"status\s+entities\s+/(.+?)/"), self._status_entities),
            (_command(r"(?:ack\s+)?checks\s+/(.+?)/\s+on\s+/(.+?)/(?:\s+(.*))?"), self._ack_checks),
            (_command(r"status\s+checks\s+/(.+?)/(?:\s+on\s+/(.+?)/)?"), self._status_checks),
        ]

    def reply(self, command: str, sender: str) -> str:
        """Interpret `command` from `sender` (FROM: room JID or resource); return the reply text."""
        command = command.strip()
        if len(command) > MAX_COMMAND_LENGTH:
            return f"that command is longer than {MAX_COMMAND_LENGTH} characters; not read"
        now = int(self.clock())
        try:
            for pattern, handler in self.commands:
                match = pattern.fullmatch(command)
                if match:
                    return handler(match, sender, now).rstrip("\n")
            return f"what do you mean, '{command}'? Type 'help' for a list of acceptable commands."
        except BadPattern as exc:
            return f"that doesn't seem to be a valid pattern - /{exc.pattern}/"
        except NotOwned as exc:
            return f"refused: {exc}"
        except Exception as exc:  # noqa: BLE001 -- one chat command is a loop boundary
            log.exception("jabber bot: command %r from %s failed", command, sender)
            return f"Oops, something went wrong processing that command ({type(exc).__name__}, {exc})"

    def _acting(self, sender: str) -> Acting:
        """Who acts as team ownership sees it: a responder, the member of the teams listing the contact whose
        jabber address `sender` is (none: only checks no team owns, per web.unowned_checks)."""
        contact = team_store.contact_for_address(self.client, "jabber", sender.split("/")[0])
        return Acting(jabber_actor(sender).name, Role.RESPONDER, self.settings.unowned_checks, contact)

    # --- commands ------------------------------------------------------------

    def _ackid(self, match: Match, sender: str, now: int) -> str:
        ack_id = match.group(1)
        comment, options = split_options(match.group(2) or "", ("duration",))
        if not comment:
            return (f"ERROR - couldn't ACK {ack_id} - please provide a comment, "
                    f'eg "{self.settings.alias}: ACKID {ack_id} AL looking"')
        check_id = check_store.check_id_for_hash(self.client, ack_id)
        if check_id is None:
            return f"ERROR - couldn't ACK {ack_id} - not found"
        entity, _, check = check_id.partition(":")
        acked = maint_store.in_force(self.client, entity, check, maint_store.UNSCHEDULED) is not None
        duration = human_duration(options.get("duration"), ACK_DURATION)
        self._queue_ack([(entity, check)], sender, comment, duration, now)
        verb = "Changing ACK for" if acked else "ACKing"
        return f"{verb} {check} on {entity} ({ack_id})"

    def _identify(self, match: Match, sender: str, now: int) -> str:
        usage = resource.getrusage(resource.RUSAGE_SELF)
        return "\n".join([
            f"Flapjack {__version__} process {os.getpid()} on {socket.getfqdn()}",
            f"Identifiers: {', '.join(self.settings.identifiers)}",
            f"Boot time: {local_time(self.settings.boot_time or now)}",
            f"User CPU Time: {usage.ru_utime}",
            f"System CPU Time: {usage.ru_stime}",
            " ".join(os.uname()),
        ])

    def _test(self, match: Match, sender: str, now: int) -> str:
        entity, check = match.group(1).lower(), (match.group(2) or "test").strip()
        if entity_store.entity_id(self.client, entity) is None:
            return f"yeah, no I can't see {entity} in my systems"
        summary = f"Testing notifications to all contacts interested in entity: {entity}, check: {check}"
        actions.test_notifications(self.client, self.settings.events_queue, [(entity, check)],
                                   actor=jabber_actor(sender), now=now, summary=summary,
                                   acting=self._acting(sender))
        log.info("jabber bot: %s asked for test notifications for %s:%s", sender, entity, check)
        return f"so you want me to test notifications for entity: {entity}, check: {check} eh? ... well OK!"

    def _tell(self, match: Match, sender: str, now: int) -> str:
        entity, check = match.group(1).lower(), match.group(2)
        if entity_store.entity_id(self.client, entity) is None:
            return f"hmmm, I can't see {entity} in my systems"
        check = check.strip() if check else None
        lines = [f"so you'd like details on entity: {entity}{f', check: {check}' if check else ''} hmm? ... OK!"]
        names = [check] if check else check_store.current_check_names(self.client, entity)
        if not names:
            lines.append(f"I couldn't find any checks for entity: {entity}")
        for name in names:
            if not check:
                lines += ["---", f"{entity}:{name}"]
            lines += self._maintenance_lines(entity, name, now)
        return "\n".join(lines)

    def _find_checks(self, match: Match, sender: str, now: int) -> str:
        check_re = compile_pattern(match.group(1)) if match.group(1) else None
        entity_pattern, entity = match.group(2), match.group(3)
        names = self._matching_entities(entity_pattern) if entity_pattern else [entity.lower()]
        names = [n for n in names if entity_store.entity_id(self.client, n) is not None]
        if not names:
            return (f"found no entities matching /{entity_pattern}/" if entity_pattern
                    else f"found no entity for '{entity}'")
        lines = [f"found {len(names)} entities matching /{entity_pattern}/ ... "] if entity_pattern else []
        for name in names:
            checks = [c for c in check_store.current_check_names(self.client, name)
                      if check_re is None or check_re.search(c)]
            lines += [f"Entity: {name}", f"Checks: {', '.join(checks)}"] if checks else [f"Entity: {name} has no checks"]
            lines.append("----")
        return "\n".join(lines)

    def _find_entities(self, match: Match, sender: str, now: int) -> str:
        pattern = match.group(1).strip()
        names = self._matching_entities(pattern)
        count = len(names)
        if count == 0:
            return f"found no entities matching /{pattern}/"
        if count == 1:
            header = f"found 1 entity matching /{pattern}/ ... "
        elif count > MAX_SHOWN:
            header = f"showing first {MAX_SHOWN} of {count} entities found matching /{pattern}/"
        else:
            header = f"found {count} entities matching /{pattern}/ ... "
        return header + "\n" + ", ".join(names[:MAX_SHOWN])

    def _ack_entities(self, match: Match, sender: str, now: int) -> str:
        pattern = match.group(1).strip()
        comment, options = split_options(match.group(2) or "", ("duration",))
        names = self._matching_entities(pattern)
        if not names:
            return f"found no entities matching /{pattern}/"
        failing = [(e, c) for e, c in self._current_checks(names) if self._failing(e, c)]
        if not failing:
            return "found no matching entities with failing checks"
        return self._ack_all(failing, sender, comment, options, now)

    def _maint_entities(self, match: Match, sender: str, now: int) -> str:
        comment, options = split_options(match.group(2) or "", ("start-in", "start-at", "duration"))
        checks = self._checks_of_entities(match.group(1).strip())
        if isinstance(checks, str):
            return checks
        start = maintenance_start(options, now)
        duration = human_duration(options.get("duration"), BULK_DURATION)
        summary = f"{sender}: {comment or DEFAULT_COMMENT}"
        actions.authorise(self.client, "create_scheduled_maintenance", checks, jabber_actor(sender),
                          self._acting(sender), now)
        for entity, check in checks:
            actions.create_scheduled(self.client, entity, check, start, duration, summary, actor=jabber_actor(sender),
                                     now=now)
        log.info("jabber bot: %s put %d checks in scheduled maintenance", sender, len(checks))
        return "\n".join(["Maint list:"] + [f"{e}:{c}" for e, c in checks])

    def _status_entities(self, match: Match, sender: str, now: int) -> str:
        checks = self._checks_of_entities(match.group(1).strip())
        return checks if isinstance(checks, str) else self._status_list(checks)

    def _checks_of_entities(self, pattern: str) -> list[tuple[str, str]] | str:
        """Current checks of the entities matching /pattern/, or the reply saying there are none."""
        names = self._matching_entities(pattern)
        if not names:
            return f"found no entities matching /{pattern}/"
        checks = self._current_checks(names)
        return checks or f"found no checks on entities matching /{pattern}/"

    def _ack_checks(self, match: Match, sender: str, now: int) -> str:
        check_re = compile_pattern(match.group(1).strip())
        names = self._matching_entities(match.group(2).strip())
        comment, options = split_options(match.group(3) or "", ("duration",))
        failing = [(e, c) for e, c in self._current_checks(names) if check_re.search(c) and self._failing(e, c)]
        if not failing:
            return "found no matching failing checks"
        return self._ack_all(failing, sender, comment, options, now)

    def _status_checks(self, match: Match, sender: str, now: int) -> str:
        check_re = compile_pattern(match.group(1).strip())
        names = self._matching_entities(match.group(2).strip() if match.group(2) else ".*")
        checks = [(e, c) for e, c in self._current_checks(names) if check_re.search(c)]
        if not checks:
            return "found no matching checks"
        return self._status_list(checks)

    # --- helpers ---------------------------------------------------------------

    def _matching_entities(self, pattern: str) -> list[str]:
        """Sorted names of every known entity matching `pattern` (searched, case-insensitive)."""
        regex = compile_pattern(pattern)
        names = set(entity_store.all_entity_names(self.client).values())
        return sorted(n for n in names if n and regex.search(n))

    def _current_checks(self, entities: Sequence[str]) -> list[tuple[str, str]]:
        return [(e, c) for e in entities for c in check_store.current_check_names(self.client, e)]

    def _failing(self, entity: str, check: str) -> bool:
        return check_store.check_state(self.client, entity, check) in FAILURE_STATES

    def _status_list(self, checks: Sequence[tuple[str, str]]) -> str:
        lines = [f"{e}:{c}: {check_store.check_state(self.client, e, c) or ''}" for e, c in checks]
        return "\n".join(["Status list:"] + lines)

    def _ack_all(self, checks: Sequence[tuple[str, str]], sender: str, comment: str,
                 options: dict[str, str], now: int) -> str:
        duration = human_duration(options.get("duration"), BULK_DURATION)
        summary = f"{sender}: {comment or DEFAULT_COMMENT}"
        self._queue_ack(checks, sender, summary, duration, now)
        return "\n".join(["Ack list:"] + [f"{e}:{c}" for e, c in checks])

    def _queue_ack(self, checks: Sequence[tuple[str, str]], sender: str, summary: str, duration: int,
                   now: int) -> None:
        actions.acknowledge(self.client, self.settings.events_queue, checks, duration=duration, message=summary,
                            actor=jabber_actor(sender), now=now, acting=self._acting(sender))
        log.info("jabber bot: acknowledgement of %d check(s) by %s queued for %ss", len(checks), sender, duration)

    def _maintenance_lines(self, entity: str, check: str, now: int) -> list[str]:
        found = {kind: self._current_window(entity, check, kind)
                 for kind in (maint_store.SCHEDULED, maint_store.UNSCHEDULED)}
        if not any(found.values()):
            return ["Not in scheduled or unscheduled maintenance."]
        lines = []
        for kind, window in found.items():
            if window is None:
                lines.append(f"Not in {kind} maintenance.")
            else:
                start, end = window
                lines.append(f"In {kind} maintenance: {local_time(start)} -> {local_time(end)} "
                             f"({words(end - now)} remaining)")
        return lines

    def _current_window(self, entity: str, check: str, kind: str) -> tuple[int, int] | None:
        start = maint_store.in_force(self.client, entity, check, kind)
        if start is None:
            return None
        duration = maint_store.load_windows(self.client, entity, check, kind).get(start, 0)
        return start, start + duration


# --- parsing helpers ------------------------------------------------------------


def compile_pattern(pattern: str) -> Pattern:
    """Compile a /pattern/ from chat (case-insensitive, RE2: linear time); BadPattern when invalid."""
    try:
        return compile_re2(pattern, ignore_case=True)
    except InvalidPattern:
        raise BadPattern(pattern) from None


def _command(source: str) -> Pattern:
    """One of the bot's own patterns: case-insensitive, `.` matching newlines too, RE2."""
    return compile_re2(f"(?s){source}", ignore_case=True)


def jabber_actor(sender: str) -> Actor:
    """The actor of a command from `sender` (a JID, or a room occupant's nickname)."""
    return Actor(f"jabber:{sender}", "jabber")


def split_options(text: str, names: Sequence[str]) -> tuple[str, dict[str, str]]:
    """Split `comment name: value ...` into the comment and {name: value} (names matched case-insensitively)."""
    alternatives = "|".join(escape(n) for n in names)
    parts = _command(rf"(?:^|\s+)({alternatives}):\s*").split(text.strip())
    options = {parts[i].lower(): parts[i + 1].strip() for i in range(1, len(parts) - 1, 2)}
    return parts[0].strip(), options


def human_duration(text: str | None, default: int) -> int:
    """Seconds of a human duration ("2 hours", "30 minutes"); `default` when missing, invalid or <= 0."""
    if not text:
        return default
    try:
        seconds = timeparse.parse_duration(text)
    except timeparse.TimeParseError:
        log.warning("jabber bot: cannot parse duration %r; using %ss", text, default)
        return default
    return seconds if seconds > 0 else default


def maintenance_start(options: dict[str, str], now: int) -> int:
    """Start of a `maint entities` window: start-at (a time for humans), else now + start-in, else now."""
    if options.get("start-at"):
        return parse_time(options["start-at"], now)
    return now + human_duration(options.get("start-in"), 0)


def parse_time(text: str, now: int) -> int:
    """Unix time of a time for humans ("tomorrow 9am", "in 2 hours", "2024-01-02 10:00"), in the host's zone.

    Uses flapjack_py.timeparse (as `flapjack maintenance create` does);
    raises InvalidDuration when it cannot be read.
    """
    base = datetime.fromtimestamp(now).astimezone()
    try:
        return int(timeparse.parse_time(text, base).timestamp())
    except timeparse.TimeParseError as exc:
        raise InvalidDuration(f"cannot understand the time {text!r}: {exc}") from None


class _TextChunks(html.parser.HTMLParser):
    """Collects the text chunks of an HTML fragment."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.chunks: list[str] = []

    def handle_data(self, data: str) -> None:
        self.chunks.append(data)
