"""Chat messages the gateways posted for alerts (Slack, Mattermost, Matrix), in Redis.

A message posted for an alert is remembered twice, with a TTL: by its id (`chat_message:M:ROOM:ID` -> the check
and alert it is about, so a button press, a reply or a reaction on it finds its check) and as its check's thread
in that room (`chat_thread:M:CHECK` room -> the last problem message, so an acknowledgement or recovery updates
it or answers in its thread). Keys: flapjack_py.keys.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from flapjack_py import keys
from flapjack_py.store import contacts, media
from flapjack_py.store.plumbing.client import StrRedis

MESSAGE_TTL = 30 * 86400
"""Seconds a posted message stays known (buttons pressed later find nothing)."""


@dataclass(frozen=True)
class ChatMessage:
    """A message a gateway posted: where (`room`: channel or room id), its id (Slack ts, Mattermost post id,
    Matrix event id), and the check and alert it is about."""

    medium: str
    room: str
    message_id: str
    check: str
    alert_id: str


def remember(client: StrRedis, message: ChatMessage, *, thread_of: str | None = None) -> None:
    """Store `message` by its id and, with `thread_of` (a problem alert's address: the channel or room as the
    contact's medium names it), as its check's thread there."""
    p = client.pipeline(transaction=True)
    p.set(keys.chat_message(message.medium, message.room, message.message_id),
          json.dumps({"check": message.check, "alert_id": message.alert_id}), ex=MESSAGE_TTL)
    if thread_of is not None:
        key = keys.chat_thread(message.medium, message.check)
        p.hset(key, thread_of, json.dumps({"room": message.room, "message_id": message.message_id,
                                           "alert_id": message.alert_id}))
        p.expire(key, MESSAGE_TTL)
    p.execute()


def find(client: StrRedis, medium: str, room: str, message_id: str) -> ChatMessage | None:
    """The message `message_id` posted in `room`, or None when unknown (not ours, or expired)."""
    raw = client.get(keys.chat_message(medium, room, message_id))
    if not raw:
        return None
    data = json.loads(raw)
    return ChatMessage(medium, room, message_id, str(data["check"]), str(data["alert_id"]))


def thread(client: StrRedis, medium: str, check: str, address: str) -> ChatMessage | None:
    """The last problem message about `check` posted to `address`, or None."""
    raw = client.hget(keys.chat_thread(medium, check), address)
    return _threaded(medium, check, raw) if raw else None


def threads(client: StrRedis, medium: str, check: str) -> list[ChatMessage]:
    """The last problem message about `check` posted to each address."""
    return [_threaded(medium, check, raw) for raw in client.hgetall(keys.chat_thread(medium, check)).values()]


def _threaded(medium: str, check: str, raw: str) -> ChatMessage:
    data = json.loads(raw)
    return ChatMessage(medium, str(data["room"]), str(data["message_id"]), check, str(data["alert_id"]))


def room_of(client: StrRedis, medium: str, address: str) -> str | None:
    """The room opened for `address` (a direct room), or None."""
    found = client.get(keys.chat_room(medium, address))
    return str(found) if found else None


def remember_room(client: StrRedis, medium: str, address: str, room: str) -> None:
    """Keep the room opened for `address`."""
    client.set(keys.chat_room(medium, address), room, ex=MESSAGE_TTL)


def contact_with_address(client: StrRedis, medium: str, address: str) -> str | None:
    """The id of a contact whose `medium` address is `address` (a chat user id), or None."""
    for contact_id in contacts.all_contact_ids(client):
        found = media.load_medium(client, contact_id, medium)
        if found is not None and found.address == address:
            return contact_id
    return None
