"""Acting on a reply from the phone in someone's hand (issue 30): an SMS, an email reply, a key pressed on a call.

Each channel parses what arrives where it arrives (web/api/replies.py, gateways/email_replies.py) and hands
the sender's address and text here; this finds the contact the address belongs to and the open ack code
the text names (flapjack_py.store.ack_codes), and acknowledges through the one action path
(flapjack_py.actions) with the actor `CHANNEL:ADDRESS`. Nothing is done for an unknown sender, a STOP-style
word, or a code that is not open; the answer says so in a line short enough for an SMS.
"""

from __future__ import annotations

import logging
import time
from typing import NamedTuple

from flapjack_py import actions
from flapjack_py.config.settings import Config
from flapjack_py.model import ack_codes
from flapjack_py.model.actors import Actor
from flapjack_py.model.teams import NotOwned
from flapjack_py.store import ack_codes as code_store
from flapjack_py.store.plumbing.client import StrRedis
from flapjack_py.timeparse import TimeParseError

log = logging.getLogger(__name__)

SENDER_MEDIA = {"sms": ("sms*",), "voice": ("voice*", "sms*"), "email": ("email",)}
"""The contact media whose address a reply's sender must have, per channel."""
CONTACT_MEDIA = {"sms": ("sms", "sms_twilio", "sms_nexmo"), "voice": ("voice_twilio", "sms", "sms_twilio", "sms_nexmo"),
                 "email": ("email",)}
"""The contact media whose address a reply through each channel comes from (team ownership)."""
MAX_TEXT = 2000
"""Characters of a reply read (the rest is ignored)."""


class Outcome(NamedTuple):
    """What a reply did: whether it acknowledged, the answer to send back, the check acknowledged."""

    acted: bool
    answer: str
    check_id: str | None = None


def sender_known(client: StrRedis, channel: str, address: str) -> bool:
    """Whether `address` is the address of a contact's medium of `channel` (SENDER_MEDIA)."""
    return bool(address) and bool(code_store.contacts_with_address(client, SENDER_MEDIA[channel], address))


def reply(client: StrRedis, config: Config, *, channel: str, address: str, text: str,
          now: int | None = None) -> Outcome:
    """Act on a short reply (`ACK CODE [DURATION [MESSAGE]]`, or just the code) from `address`."""
    text = text[:MAX_TEXT]
    if ack_codes.is_stop(text):
        log.info("%s reply from %s: %r, no action", channel, address, text.strip()[:20])
        return Outcome(False, "Flapjack: no action taken. Reply ACK CODE to acknowledge an alert.")
    if not sender_known(client, channel, address):
        log.warning("%s reply from unknown sender %s: ignored", channel, address)
        return Outcome(False, "Flapjack: this number is not a contact's; nothing was done.")
    found = ack_codes.parse_reply(text)
    if found is None:
        log.info("%s reply from %s names no code: no action", channel, address)
        return Outcome(False, "Flapjack: not understood. Reply ACK CODE to acknowledge an alert.")
    return acknowledge_code(client, config, found, channel=channel, address=address, now=now)


def email_reply(client: StrRedis, config: Config, *, address: str, subject: str, text: str,
                answered: list[str], now: int | None = None) -> Outcome:
    """Act on an email from `address`: `ACK CODE ...` in the subject or the first lines above the quote, or a
    first line starting `ack` in a reply to an alert email (`answered`: the alert ids its In-Reply-To and
    References name)."""
    if not sender_known(client, "email", address):
        log.warning("email reply from unknown sender %s: ignored", address)
        return Outcome(False, "unknown sender")
    lines = ack_codes.first_lines(text)
    found = ack_codes.find_code(subject) or next(filter(None, map(ack_codes.find_code, lines)), None)
    if found is not None:
        return acknowledge_code(client, config, found, channel="email", address=address, now=now)
    rest = ack_codes.ack_line(lines[0]) if lines else None
    for alert_id in answered if rest is not None else []:
        code = (code_store.alert_code(client, alert_id) or "")
        if code:
            return acknowledge_code(client, config, ack_codes.Reply(code, rest or ""), channel="email",
                                    address=address, now=now)
    log.info("email from %s names no open code: no action", address)
    return Outcome(False, "no code")


def acknowledge_code(client: StrRedis, config: Config, found: ack_codes.Reply, *, channel: str, address: str,
                     now: int | None = None) -> Outcome:
    """Acknowledge the check of the open code `found` names (its rest: an optional duration, then a message)."""
    opened = code_store.resolve(client, found.code)
    if opened is None:
        log.info("%s reply from %s: code %s is not open, no action", channel, address, found.code)
        return Outcome(False, f"Flapjack: code {found.code} is not open (recovered or expired); nothing was done.")
    typed, message = ack_codes.split_rest(found.rest)
    try:
        seconds = actions.ack_seconds(typed)
    except TimeParseError:
        seconds, message = actions.ack_seconds(""), found.rest
    return acknowledge_check(client, config, opened.check_id, channel=channel, address=address,
                             duration=seconds, message=message, now=now)


def acknowledge_check(client: StrRedis, config: Config, check_id: str, *, channel: str, address: str,
                      duration: int = 0, message: str = "", now: int | None = None) -> Outcome:
    """Acknowledge `check_id` on behalf of `CHANNEL:ADDRESS` (the one action path)."""
    entity, _, check = check_id.partition(":")
    actor = Actor(f"{channel}:{address}", channel, address)
    acting = actions.address_acting(client, CONTACT_MEDIA.get(channel, channel), address, actor,
                                    config.web.unowned_checks)
    try:
        seconds = actions.acknowledge(client, config.executive.queue, [(entity, check)], duration=duration,
                                      message=message or f"acknowledged by {channel} reply", actor=actor,
                                      now=int(time.time()) if now is None else now, acting=acting)
    except NotOwned:
        log.warning("%s: %s may not acknowledge it (no team of theirs owns it)", check_id, actor.name)
        return Outcome(False, f"Flapjack: {check_id[:80]} is not your team's; nothing was done.")
    log.info("%s: acknowledged by %s for %ss", check_id, actor.name, seconds)
    return Outcome(True, f"Flapjack: acknowledged {check_id[:80]} for {_hours(seconds)}.", check_id)


def _hours(seconds: int) -> str:
    if seconds % 3600 == 0:
        return f"{seconds // 3600} h"
    return f"{max(1, seconds // 60)} min"
