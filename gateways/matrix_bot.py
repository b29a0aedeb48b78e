"""The Matrix bot: a command in an alert's thread, or a reaction on the alert, turned into an action and a reply.

No Matrix here (gateways/matrix.py runs the client): `MatrixBot.command()` and `.reaction()` find the alert the
message is about (flapjack_py.store.chat: the event ids the gateway posted), refuse users not in `allowed_users`
(nothing queued, logged with the user id), and act through flapjack_py.actions as `matrix:@user:server`.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from flapjack_py import actions
from flapjack_py.chat.matrix import HELP, Command, code_command
from flapjack_py.durations import words
from flapjack_py.model.actors import Actor
from flapjack_py.model.teams import Acting, NotOwned
from flapjack_py.store import ack_codes as code_store
from flapjack_py.store import chat
from flapjack_py.store import checks as check_store
from flapjack_py.store.plumbing.client import StrRedis
from flapjack_py.timeparse import TimeParseError, parse_duration

log = logging.getLogger(__name__)

MEDIUM = "matrix"
REFUSAL = "sorry, you are not allowed to act on alerts (ask for your user id in gateways.matrix.allowed_users)"
DEFAULT_MAINT_MESSAGE = "Set via Matrix"


@dataclass(frozen=True)
class MatrixBot:
    """Acts on alerts for the users in `allowed`; `queue` is the executive's event queue."""

    client: StrRedis
    allowed: frozenset[str]
    queue: str = "events"
    unowned: str = "everyone"  # config web.unowned_checks

    def command(self, room: str, sender: str, about: str, command: Command, now: int) -> str | None:
        """The thread's answer to `command` sent by `sender` about event `about`; None when that event is no
        alert of ours (the message is not for the bot)."""
        posted = chat.find(self.client, MEDIUM, room, about)
        if posted is None:
            return None
        if command.verb == "help":
            return HELP
        refused = self._refusal(sender, command.verb)
        if refused:
            return refused
        entity, _, check = posted.check.partition(":")
        if command.verb == "status":
            return self._status(entity, check)
        actor = Actor(f"matrix:{sender}", MEDIUM)
        if command.verb == "ack":
            return self._ack(posted.check, command.duration, command.message, actor, now)
        return self._maint(posted.check, command, actor, now)

    def outside(self, sender: str, command: Command, now: int) -> str | None:
        """The room's answer to a command written outside any alert's thread: `ack CODE ...`,
        `status ENTITY:CHECK`, `help`; None for anything else (not for the bot)."""
        coded = code_command(command)
        if command.verb == "help":
            return HELP
        if not (coded or (command.verb == "status" and ":" in command.message)):
            return None
        refused = self._refusal(sender, command.verb)
        if refused:
            return refused
        if coded is None:
            entity, _, check = command.message.split()[0].partition(":")
            return self._status(entity, check)
        code, duration, message = coded
        found = code_store.resolve(self.client, code)
        if found is None:
            return f"no open alert has the ack code {code[:20]!r} (it expires when its check recovers)"
        return self._ack(found.check_id, duration, message, Actor(f"matrix:{sender}", MEDIUM), now)

    def reaction(self, room: str, sender: str, target: str, now: int) -> str | None:
        """The thread's answer to an acknowledging reaction on event `target`; None when it is no alert of ours."""
        posted = chat.find(self.client, MEDIUM, room, target)
        if posted is None:
            return None
        return self._refusal(sender, "reaction") or self._ack(posted.check, "", "", Actor(f"matrix:{sender}", MEDIUM),
                                                              now)

    def _acting(self, actor: Actor) -> Acting:
        """Team ownership: the sender acts for the teams listing the contact whose matrix address they are."""
        return actions.address_acting(self.client, MEDIUM, actor.name.removeprefix("matrix:"), actor, self.unowned)

    def _refusal(self, sender: str, what: str) -> str | None:
        if sender in self.allowed:
            return None
        log.warning("matrix: %s from %s refused (not in gateways.matrix.allowed_users)", what, sender)
        return REFUSAL

    def _ack(self, check_id: str, typed: str, message: str, actor: Actor, now: int) -> str:
        try:
            seconds = actions.ack_seconds(typed)
        except TimeParseError as exc:
            return f"cannot read the duration {typed!r}: {exc}"
        entity, _, check = check_id.partition(":")
        try:
            actions.acknowledge(self.client, self.queue, [(entity, check)], duration=seconds,
                                message=message or f"acknowledged by {actor.name}", actor=actor, now=now,
                                acting=self._acting(actor))
        except NotOwned as exc:
            return str(exc)
        return f"acknowledging {check_id} for {words(seconds)}"

    def _maint(self, check_id: str, command: Command, actor: Actor, now: int) -> str:
        try:
            seconds = parse_duration(command.duration) if command.duration else 0
        except TimeParseError as exc:
            return f"cannot read the duration {command.duration!r}: {exc}"
        if not seconds:
            return "maint needs a duration: maint DURATION [MESSAGE], e.g. maint 2h deploying"
        entity, _, check = check_id.partition(":")
        try:
            actions.create_scheduled(self.client, entity, check, now, seconds,
                                     command.message or DEFAULT_MAINT_MESSAGE, actor=actor, now=now,
                                     acting=self._acting(actor))
        except NotOwned as exc:
            return str(exc)
        return f"scheduled maintenance of {check_id} for {words(seconds)}"

    def _status(self, entity: str, check: str) -> str:
        found = check_store.load_check(self.client, entity, check)
        if not found:
            return f"{entity}:{check}: not known"
        return f"{entity}:{check} is {found.get('state') or 'unknown'}: {found.get('summary') or ''}".rstrip(": ")
