"""The reference `raw_alert_writes_per_s`: per alert, the Redis commands the contract makes an alert cost,
made by the engine's own functions for a storm's alerts, then RESP-encoded in MULTIs of 50 before the timing.

Per alert (engine.md 5.5, contract.md 6): the rq job hash with every field rq's `enqueue_many` writes
(store/queues.py; its data the real alert's JSON, rendered texts included) and its queue push, the
`alert:ID` hash, its five `alerts*` index entries and the per-state interval key (SET ... EX). Per
notification, that is per check (engine.md 4.1), once for the storm's 3 contacts x 2 media: the check's
notification history (`last_problem_notification`, `problem_notifications`, `last_critical_notification`,
`critical_notifications`). What the project writes beyond the contract (metrics counters, the day index's
EXPIRE, rollup's alerting sets, rq's `rq:queues` set) is left out, and nothing is merged across alerts as
the commit merges it. Every key is under the reference's prefix (store.bench.reference_key).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from hiredis import pack_command

from flapjack_py.bench.workload import (
    CONTACTS,
    DETAILS,
    GATEWAYS,
    MEDIA,
    TAGS,
    address_of,
    check_of,
    event_summary,
)
from flapjack_py.config.settings import Config, load_config
from flapjack_py.model import ack_codes
from flapjack_py.model.checks import ack_hash
from flapjack_py.model.contacts import Contact, Medium
from flapjack_py.model.events import derived_tags
from flapjack_py.model.incidents import new_id as new_incident_id
from flapjack_py.model.notification import Notification, NotificationType
from flapjack_py.notify import enqueue as delivery
from flapjack_py.notify.notifier import build_alert, shared_fields
from flapjack_py.notify.render import SharedTexts
from flapjack_py.notify.rollup import RollupDecision
from flapjack_py.store import bench as bench_store
from flapjack_py.store import checks as check_store
from flapjack_py.store import rollup as rollup_store
from flapjack_py.store.plumbing.client import BytesRedis
from flapjack_py.store.plumbing.writes import WriteBuffer
from flapjack_py.store.queues import enqueue_jobs
from flapjack_py.store.rq_jobs import shared_members

log = logging.getLogger(__name__)

ALERTS_PER_MULTI = 50
CONTRACT_COMMANDS = frozenset({"HSET", "ZADD", "SET", "RPUSH"})
"""What the contract's writes of an alert are made of; the rest the functions record (EXPIRE, HINCRBY,
SADD) is the project's own bookkeeping."""
STATE_DURATION = 0  # seconds the storm's checks were ok before: they were seeded moments before it
COUNTED_BEFORE = 2_000  # events counted before the storm's: its seed events
_MULTI, _EXEC = pack_command(("MULTI",)), pack_command(("EXEC",))

Command = tuple[Any, ...]


@dataclass(frozen=True)
class Target:
    """A contact and one of its media."""

    contact: Contact
    medium: Medium


@dataclass(frozen=True)
class Chunk:
    """One MULTI of the reference in Redis's protocol: how many alerts and commands (MULTI/EXEC aside)."""

    packed: bytes
    alerts: int
    commands: int


def storm_targets(contacts: int = CONTACTS, media: Sequence[str] = MEDIA) -> list[Target]:
    """The storm's contacts x media, as workload.add_contacts makes them (ids as long as a contact's UUID)."""
    found = []
    for n in range(contacts):
        contact = Contact(f"{n:08d}-0000-4000-8000-{n:012d}", f"Bench{n}", "Oncall", address_of("email", n))
        found += [Target(contact, Medium(contact.id, name, address_of(name, n), interval=0)) for name in media]
    return found


def notification_for(index: int, now: int) -> Notification:
    """The problem notification of the storm's check number `index` going critical (as steps.py makes it)."""
    entity, check = check_of(index)
    event_id = f"{entity}:{check}"
    tags = tuple(sorted(frozenset(TAGS) | derived_tags(entity, check)))  # as steps.py tags an event
    return Notification(event_id=event_id, entity=entity, check=check, state="critical", type=NotificationType.PROBLEM,
                        severity="critical", count=COUNTED_BEFORE + index + 1, event_hash=ack_hash(event_id),
                        summary=event_summary(check, "critical"), details=DETAILS, time=now, last_state="ok",
                        last_summary=event_summary(check, "ok"), state_duration=STATE_DURATION, tags=tags)


def notification_commands(connection: BytesRedis, config: Config, notification: Notification,
                          targets: Sequence[Target], now: int) -> list[list[Command]]:
    """The contract's commands of each alert of `notification` (one per target), with real key names, the
    check's notification history with its first alert. Made as the notifier and the commit make them: the
    alert built and rendered, its interval key, record and indexes on a WriteBuffer replayed as the commit
    replays it, its rq job as store/queues.py writes it."""
    shared = shared_fields(notification)
    members = shared_members(shared)
    incident_id, code = new_incident_id(now), ack_codes.encode(notification.count)
    texts: SharedTexts = {}
    alerts: list[list[Command]] = []
    for target in targets:
        writes, recorder = WriteBuffer(), Recorder()
        alert = build_alert(notification, target.contact, target.medium,
                            RollupDecision(add=True, members=(notification.event_id,)), {}, now, shared)
        alert["incident_id"], alert["ack_code"] = incident_id, code  # the storm's: an incident per check, a code
        rollup_store.set_interval_drop(writes, target.contact.id, target.medium.type, notification.event_id,
                                       notification.state, target.medium.effective_interval)
        delivery.add_alert(writes, alert, config, texts, members)
        writes.replay(recorder)
        enqueue_jobs(connection, recorder, writes.jobs)
        alerts.append(recorder.contract_commands())
    history = Recorder()
    check_store.write_notification(history, notification.entity, notification.check,
                                   [notification.type.value, notification.state], now)
    if alerts:
        alerts[0] += history.contract_commands()
    return alerts


def reference_alerts(connection: BytesRedis, count: int, now: int | None = None,
                     targets: Sequence[Target] | None = None) -> Iterator[list[Command]]:
    """`count` alerts of a storm, check after check, each check notifying every target; their commands
    under the reference's prefix."""
    now = int(time.time()) if now is None else now
    targets = storm_targets() if targets is None else targets
    config = load_config({"gateways": GATEWAYS})  # the storm's: email and sms enabled
    made, index = 0, 0
    while made < count:
        for commands in notification_commands(connection, config, notification_for(index, now), targets, now):
            if made == count:
                return
            yield [in_reference(command) for command in commands]
            made += 1
        index += 1


def encode_chunks(alerts: Iterable[list[Command]], size: int = ALERTS_PER_MULTI) -> list[Chunk]:
    """The alerts' commands as MULTIs of `size` alerts, each in Redis's protocol, ready to send."""
    chunks: list[Chunk] = []
    parts, held, commands = [_MULTI], 0, 0
    for alert in alerts:
        parts += [pack_command(command) for command in alert]
        held, commands = held + 1, commands + len(alert)
        if held == size:
            chunks.append(Chunk(b"".join([*parts, _EXEC]), held, commands))
            parts, held, commands = [_MULTI], 0, 0
    if held:
        chunks.append(Chunk(b"".join([*parts, _EXEC]), held, commands))
    return chunks


def prepare(connection: BytesRedis, count: int) -> list[Chunk]:
    """The reference's `count` alerts, encoded (before the timing)."""
    return encode_chunks(reference_alerts(connection, count))


def in_reference(command: Command) -> Command:
    """`command` with its key moved under the reference's prefix (a plain tuple)."""
    return (command[0], bench_store.reference_key(command[1]), *command[2:])


class Recorder:
    """Stands for the commit's MULTI pipeline: records each command queued on it, as its arguments; rq jobs,
    queued packed on its command stack (store.plumbing.multi.queue_packed), too."""

    watching = False
    explicit_transaction = True

    def __init__(self) -> None:
        self.commands: list[Command] = []
        self.command_stack = _Stack(self.commands)

    def contract_commands(self) -> list[Command]:
        """The recorded commands the contract requires (CONTRACT_COMMANDS), as plain tuples."""
        return [tuple(command) for command in self.commands if command[0] in CONTRACT_COMMANDS]

    def execute_command(self, *args: Any) -> None:
        self.commands.append(args)

    def set(self, key: str, value: Any, ex: int | None = None) -> None:
        self.commands.append(("SET", key, value, *(("EX", ex) if ex is not None else ())))

    def __getattr__(self, name: str) -> Any:
        """Any other command method (rpush, sadd ...): recorded as its command with its arguments."""
        if name.startswith("_"):
            raise AttributeError(name)

        def record(*args: Any) -> None:
            self.commands.append((name.upper(), *args))
        return record


class _Stack(list):  # type: ignore[type-arg]
    """A pipeline's command stack whose (command, options) entries go to the recorder's commands."""

    def __init__(self, commands: list[Command]) -> None:
        super().__init__()
        self._commands = commands

    def append(self, item: Any) -> None:
        self._commands.append(item[0])
