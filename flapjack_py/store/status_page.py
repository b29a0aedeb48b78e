"""Read model of the status page: event counters, executive instances, queue lengths, receivers (the rq
delivery queues are counted by flapjack_py.notify.enqueue.delivery_queues)."""

from __future__ import annotations

from dataclasses import dataclass

from flapjack_py import keys
from flapjack_py.store.events import COUNTER_FIELDS, utc_hour
from flapjack_py.store.plumbing.client import StrRedis, to_int
from flapjack_py.store.receivers import load_receiver_counters, rejected_reasons


@dataclass
class Instance:
    """One executive_instance:HOST:PID with its own counters."""

    host: str
    pid: str
    boot_time: int | None
    alive: bool
    counters: dict[str, int]


@dataclass
class DeliveryQueue:
    """The rq queue of one medium."""

    medium: str
    enabled: bool
    queued: int
    failed: int


@dataclass
class ReceiverCounts:
    """What one receiver read, pushed and rejected (by reason), and when it last reported."""

    name: str
    read: int
    pushed: int
    rejected: int
    reasons: dict[str, int]
    updated_at: int | None


@dataclass
class Status:
    """Everything the status page shows."""

    counters: dict[str, int]
    instances: list[Instance]
    queue: str
    queue_length: int
    rejected_this_hour: int
    failing: int
    checks: int
    delivery: list[DeliveryQueue]
    receivers: list[ReceiverCounts]


def load_status(client: StrRedis, queue: str, now: int, delivery: list[DeliveryQueue]) -> Status:
    """Read the status page's data (`queue`: the executive's event queue; `delivery`: the rq queues)."""
    p = client.pipeline(transaction=False)
    p.hgetall(keys.event_counters())
    p.llen(keys.events(queue))
    p.llen(keys.events_rejected(utc_hour(now)))
    p.zcard(keys.failed_checks())
    p.zcard(keys.all_checks())
    counters, length, rejected, failing, checks = p.execute()
    return Status(_counters(counters), load_instances(client), queue, length, rejected, failing, checks,
                  delivery, load_receivers(client))


def load_instances(client: StrRedis) -> list[Instance]:
    """Every executive instance still on record (12-day TTL), newest boot first."""
    prefix = keys.executive_instance("", 0)[:-len(":0")]
    found = []
    for key in client.scan_iter(match=keys.executive_instance_pattern(), count=500):
        host, _, pid = key[len(prefix):].rpartition(":")
        if not pid.isdigit():
            continue
        p = client.pipeline(transaction=False)
        p.hget(key, "boot_time")
        p.hgetall(keys.instance_event_counters(host, int(pid)))
        p.exists(keys.executive_heartbeat(host, int(pid)))
        boot, counters, beat = p.execute()
        found.append(Instance(host, pid, to_int(boot), bool(beat), _counters(counters)))
    return sorted(found, key=lambda i: -(i.boot_time or 0))


def load_receivers(client: StrRedis) -> list[ReceiverCounts]:
    """Counters of every receiver that has reported, by name."""
    return [ReceiverCounts(name, c["read"], c["pushed"], c["rejected"], rejected_reasons(c), c.get("updated_at"))
            for name, c in load_receiver_counters(client).items()]


def _counters(data: dict[str, str]) -> dict[str, int]:
    return {name: to_int(data.get(name)) or 0 for name in COUNTER_FIELDS}
