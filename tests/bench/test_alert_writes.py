"""The reference raw_alert_writes_per_s (flapjack_py/bench/alert_writes.py): it encodes exactly the commands of
a real storm alert's commit that the contract requires, MULTI by MULTI, under the reference's own keys."""

from __future__ import annotations

import re
import time
import zlib
from collections import Counter
from collections.abc import Iterable
from typing import Any

import fakeredis
import pytest
from hiredis import Reader

from flapjack_py.bench import alert_writes
from flapjack_py.bench.alert_writes import Command, Target, encode_chunks, notification_commands, reference_alerts
from flapjack_py.bench.workload import GATEWAYS, MEDIA, add_contacts, address_of, executive_config, make_event
from flapjack_py.config.settings import load_config
from flapjack_py.executive import Executive
from flapjack_py.model.contacts import Contact, Medium
from flapjack_py.runtime.embedded_redis import EmbeddedRedis
from flapjack_py.store import bench as bench_store
from flapjack_py.store.plumbing import multi
from flapjack_py.store.plumbing.client import Clients

NOW = 1_700_000_000
CHECK = ("bench-0000.example.com", "check-00")
ALERT_ID = re.compile(r"[0-9a-f]{32}")
CONTRACT_KEYS = ("alert:", "alerts", "rq:job:", "rq:queue:", "drop_alerts_for_contact:")
"""Key families of an alert's contract writes; with the check's `last_*_notification` and `*_notifications`."""


@pytest.fixture
def raw() -> fakeredis.FakeRedis:
    return fakeredis.FakeRedis()


def text(value: Any) -> str:
    return value.decode("latin-1") if isinstance(value, bytes) else str(value.encode().decode()) \
        if isinstance(value, str) else str(value)


def parsed(packed: bytes) -> list[list[bytes]]:
    """The commands of a protocol stream, as Redis reads them."""
    reader = Reader()
    reader.feed(packed)
    commands = []
    while (command := reader.gets()) is not False:
        commands.append(command)
    return commands


def as_sent(command: Command) -> list[bytes]:
    """The command's arguments as the protocol carries them (a str enum as its value)."""
    return [a if isinstance(a, bytes) else a.encode() if isinstance(a, str) else str(a).encode() for a in command]


def test_each_multi_holds_50_alerts_commands_as_redis_reads_them(raw: fakeredis.FakeRedis) -> None:
    alerts = list(reference_alerts(raw, 120, now=NOW))
    chunks = encode_chunks(alerts)
    assert [c.alerts for c in chunks] == [50, 50, 20]
    for chunk, part in zip(chunks, (alerts[:50], alerts[50:100], alerts[100:]), strict=True):
        sent = parsed(chunk.packed)
        assert sent[0] == [b"MULTI"] and sent[-1] == [b"EXEC"]
        assert sent[1:-1] == [as_sent(command) for alert in part for command in alert]
        assert chunk.commands == len(sent) - 2


def test_every_command_writes_under_the_references_prefix(raw: fakeredis.FakeRedis) -> None:
    prefix = bench_store.reference_key("")
    commands = [command for alert in reference_alerts(raw, 12, now=NOW) for command in alert]
    assert prefix == "bench:reference:" and all(text(c[1]).startswith(prefix) for c in commands)


def test_an_alert_costs_nine_commands_and_its_check_four_more_once(raw: fakeredis.FakeRedis) -> None:
    alerts = list(reference_alerts(raw, 12, now=NOW))  # two checks x 3 contacts x (email, sms)
    names = [[c[0] for c in alert] for alert in alerts]
    one = ["SET", "HSET", "ZADD", "ZADD", "ZADD", "ZADD", "ZADD", "HSET", "RPUSH"]
    assert names[0] == names[6] == [*one, "SET", "RPUSH", "SET", "RPUSH"]
    assert all(n == one for i, n in enumerate(names) if i not in (0, 6))
    history = [text(c[1]) for c in alerts[0][9:]]
    assert history == [bench_store.reference_key(f"{CHECK[0]}:{CHECK[1]}:{k}") for k in (
        "last_problem_notification", "problem_notifications", "last_critical_notification", "critical_notifications")]
    job = dict(zip(alerts[0][7][2::2], alerts[0][7][3::2], strict=True))
    assert job["status"] == "queued" and b"CHECK-00 CRITICAL: bench event" in zlib.decompress(job["data"])


def test_sending_them_writes_and_clear_reference_deletes_them(redis_server: EmbeddedRedis,
                                                             real_clients: Clients) -> None:
    chunks = alert_writes.prepare(real_clients.raw, 60)
    bench_store.send_multis(real_clients.raw, [(c.packed, c.commands) for c in chunks])
    assert real_clients.raw.llen(bench_store.reference_key("rq:queue:email")) == 30
    assert real_clients.raw.zcard(bench_store.reference_key("alerts")) == 60
    assert not real_clients.raw.exists("alerts", "rq:queue:email")  # the scenarios' own keys are untouched
    bench_store.clear_reference(real_clients.raw)
    assert real_clients.raw.dbsize() == 0


def test_a_refused_command_fails_the_reference(real_clients: Clients) -> None:
    from hiredis import pack_command

    from flapjack_py.errors import BenchError

    bad = b"".join(pack_command(c) for c in (("MULTI",), ("SET", "bench:reference:x", "1"), ("HSET", "bench:reference:x",
                                                                                           "f", "v"), ("EXEC",)))
    with pytest.raises(BenchError, match="refused"):
        bench_store.send_multis(real_clients.raw, [(bad, 2)])


# --- the same as a real storm alert's commit ------------------------------------------------------


def single_writes(commands: Iterable[Command]) -> list[Command]:
    """The commands with each MSET split into the SETs it stands for (the commit merges a batch's strings)."""
    found: list[Command] = []
    for command in commands:
        if text(command[0]).upper() == "MSET":
            found += [("SET", key, value) for key, value in zip(command[1::2], command[2::2], strict=True)]
        else:
            found.append(command)
    return found


def atoms(commands: Iterable[Command]) -> tuple[Counter[tuple[str, ...]], dict[tuple[str, str], list[int]]]:
    """Each command split into what it writes (a hash field, a zset member, a list value, a string), alert ids
    made alike; and the sizes of the hashes' values by key family and field."""
    found: Counter[tuple[str, ...]] = Counter()
    sizes: dict[tuple[str, str], list[int]] = {}
    for command in commands:
        name, key, args = text(command[0]).upper(), ALERT_ID.sub("ID", text(command[1])), command[2:]
        if name == "HSET":
            for field, value in zip(args[::2], args[1::2], strict=True):
                found[(name, key, text(field))] += 1
                size = len(value) if isinstance(value, bytes) else len(str(value).encode())
                sizes.setdefault((key.split(":")[0], text(field)), []).append(size)
        elif name == "SET":
            found[(name, key, *map(text, args[1:]))] += 1
        elif name == "ZADD":
            found.update((name, key, ALERT_ID.sub("ID", text(member))) for member in args[1::2])
        elif name == "RPUSH":
            found.update((name, key, ALERT_ID.sub("ID", text(value))) for value in args)
        else:
            found[(name, key)] += 1
    return found, sizes


def is_contract_write(command: Command) -> bool:
    key = text(command[1])
    return text(command[0]) in ("HSET", "ZADD", "SET", "RPUSH") and (
        key.startswith(CONTRACT_KEYS) or key.endswith(("_notification", "_notifications")))


def test_they_are_what_a_real_storm_alerts_commit_writes_of_the_contract(
        redis_server: EmbeddedRedis, real_clients: Clients, monkeypatch: pytest.MonkeyPatch) -> None:
    """One check of the storm fails with the storm's 3 contacts x (email, sms): the commands of the real commit
    that write the contract's keys (the MSET holding the check's history split into its strings) are the
    reference's for that notification, field by field; their values within a few bytes (the event counter
    and the state's duration differ)."""
    contact_ids = add_contacts(real_clients.text)
    config = executive_config(redis_server.url)
    now = int(time.time())
    bench_store.fill_queue(real_clients.text, [make_event(*CHECK, "ok", now)])
    Executive(real_clients, config).drain()
    sent: list[Command] = []
    execute = multi.execute
    monkeypatch.setattr(multi, "execute", lambda pipe: sent.extend(a for a, _ in pipe.command_stack) or execute(pipe))
    bench_store.fill_queue(real_clients.text, [make_event(*CHECK, "critical", now)])
    Executive(real_clients, config).drain()
    stamp = next(int(c[2]) for c in sent if text(c[0]) == "ZADD" and text(c[1]) == "alerts")

    targets = [Target(Contact(cid, f"Bench{n}", "Oncall", address_of("email", n)),
                      Medium(cid, medium, address_of(medium, n), interval=0))
               for n, cid in enumerate(contact_ids) for medium in MEDIA]
    reference = notification_commands(real_clients.raw, load_config({"gateways": GATEWAYS}),
                                      alert_writes.notification_for(0, stamp), targets, stamp)
    real_atoms, real_sizes = atoms(c for c in single_writes(sent) if is_contract_write(c))
    ref_atoms, ref_sizes = atoms(c for alert in reference for c in alert)
    assert ref_atoms == real_atoms
    # per alert: the record's 14 fields (ack code and incident id included), the job's 19, 5 index entries, the
    # queue push, the interval key; the history
    assert sum(ref_atoms.values()) == 6 * (14 + 19 + 5 + 1 + 1) + 4
    assert ref_sizes.keys() == real_sizes.keys()
    for family, lengths in ref_sizes.items():
        assert sorted(lengths) == pytest.approx(sorted(real_sizes[family]), abs=8), family
