"""`flapjack receiver mirror`: replay the archived events of another Flapjack's Redis (engine.md 8).

Archive lists (events_archive:YYYYMMDDHH) get new events on the left, so the oldest
event of a list is at index -1 and a cursor walking -1, -2, ... reads them in order.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from flapjack_py.store.archive import archive_length, archive_names, archived_event, queue_raw_event
from flapjack_py.store.plumbing.client import BytesRedis

log = logging.getLogger(__name__)


@dataclass
class Position:
    """Where the mirror reads next: an archive list and a negative index into it."""

    archive: str
    cursor: int


def start_position(source: BytesRedis, archives: list[str], from_oldest: bool) -> Position:
    """--all: the oldest event of the oldest archive; else just past the newest event of the newest."""
    if from_oldest:
        return Position(archives[0], -1)
    newest = archives[-1]
    return Position(newest, -1 - archive_length(source, newest))


def wanted(raw: bytes | str, include: re.Pattern[str] | None) -> bool:
    """True when there is no include regex or it matches the event's `E:C`."""
    if include is None:
        return True
    try:
        data = json.loads(raw)
        check_id = f"{data['entity']}:{data['check']}"
    except (ValueError, TypeError, KeyError):
        return False
    return include.search(check_id) is not None


def step(source: BytesRedis, dest: BytesRedis, pos: Position, include: re.Pattern[str] | None) -> bool:
    """Copy the event at `pos` if there is one and move on; False when the archive has nothing more."""
    raw = archived_event(source, pos.archive, pos.cursor)
    if raw is None:
        return False
    if wanted(raw, include):
        queue_raw_event(dest, raw)
    pos.cursor -= 1
    return True


def next_archive(source: BytesRedis, pos: Position) -> bool:
    """Move to the archive after the current one, if the source has one."""
    later = [name for name in archive_names(source) if name > pos.archive]
    if not later:
        return False
    pos.archive, pos.cursor = later[0], -1
    return True


def mirror(source: BytesRedis, dest: BytesRedis, pos: Position, include: re.Pattern[str] | None, follow: bool,
           sleep: Callable[[float], Any], say: Callable[[str], None]) -> int:
    """Copy events until the archives run out (or forever with follow); return how many were read."""
    read = 0
    say(pos.archive)
    while True:
        if step(source, dest, pos, include):
            read += 1
            continue
        if next_archive(source, pos):
            say(pos.archive)
            continue
        if not follow:
            return read
        sleep(1)


