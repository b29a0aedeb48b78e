"""The events archive as `flapjack receiver mirror` reads it: the events_archive:YYYYMMDDHH lists
(new events on the left, so the oldest of a list is at index -1; docs/spec/engine.md 8).

Events are copied as they were archived, byte for byte: these take the bytes client."""

from __future__ import annotations

from flapjack_py import keys
from flapjack_py.store.plumbing.client import BytesRedis, text


def archive_names(client: BytesRedis) -> list[str]:
    """events_archive:* lists, oldest hour first."""
    return sorted(text(k) for k in client.scan_iter(match=keys.events_archive_pattern(), count=1000))


def archive_length(client: BytesRedis, name: str) -> int:
    """Events in archive list `name`."""
    return int(client.llen(name))


def archived_event(client: BytesRedis, name: str, index: int) -> bytes | None:
    """The raw event at `index` of archive list `name` (None past its end)."""
    raw: bytes | None = client.lindex(name, index)
    return raw


def queue_raw_event(client: BytesRedis, raw: bytes, queue: str = "events") -> None:
    """LPUSH a raw event, as it was archived, onto the queue."""
    client.lpush(keys.events(queue), raw)
