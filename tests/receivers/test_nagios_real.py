"""A real Nagios 4 feeding `flapjack receiver nagios` through its perfdata pipe: nothing is lost.

One Nagios configuration (300 services every 2 s) and one receiver serve the whole module, in order:
restarts, a reload with a state flip, then Redis killed under the stream. Every run of Nagios is
tagged; its debug log says how many service results it handled, and exactly that many must arrive.
"""

from __future__ import annotations

import stat
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from flapjack_py.executive import Executive
from flapjack_py.store.history import state_changes
from flapjack_py.store.plumbing.client import StrRedis, as_str_redis
from flapjack_py.store.receivers import load_receiver_counters

from .conftest import KillableRedis, Receiver, queued_events, wait_for, wait_for_fifo
from .nagios_rig import NAGIOS, NagiosRig

pytestmark = [pytest.mark.real, pytest.mark.slow,
              pytest.mark.skipif(not Path(NAGIOS).exists(), reason="needs Debian's nagios4-core")]

RUN_SECONDS = 4.0
"""Seconds a run goes on once Nagios is checking (it has handled a first round of results)."""


@pytest.fixture(scope="module")
def pipe(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("pipe") / "event_stream.fifo"


@pytest.fixture(scope="module")
def receiver(own_redis: KillableRedis, pipe: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Receiver]:
    """The receiver, started before Nagios: it creates the pipe."""
    started = Receiver(["nagios", "start", "--fifo", str(pipe), "--fifo-mode", "0660"], own_redis.url,
                       tmp_path_factory.mktemp("receiver"))
    try:
        wait_for_fifo(pipe)
        yield started
    finally:
        started.stop()


@pytest.fixture(scope="module")
def nagios(receiver: Receiver, pipe: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[NagiosRig]:
    rig = NagiosRig(tmp_path_factory.mktemp("nagios"), pipe, hosts=10, services=30, interval=2)
    try:
        yield rig
    finally:
        rig.stop()


@pytest.fixture
def r(own_redis: KillableRedis) -> Iterator[redis.Redis]:
    client = own_redis.client()
    client.flushall()
    yield client
    client.close()


@pytest.fixture
def s(own_redis: KillableRedis, r: redis.Redis) -> Iterator[StrRedis]:
    """The str client (what store/ takes) of the same server."""
    client = as_str_redis(own_redis.client(decode_responses=True, encoding_errors="replace"))
    yield client
    client.close()


def received(client: redis.Redis) -> Counter[str]:
    """Service results on the queue per run tag (the first word after `OK: `/`CRITICAL: `)."""
    return Counter(e["summary"].split()[1] for e in queued_events(client) if e["check"] != "HOST")


def start_checking(nagios: NagiosRig, tag: str) -> None:
    """Start Nagios and wait until it is checking (a slow machine takes a while to start it)."""
    nagios.start(tag)
    wait_for(lambda: nagios.handled(tag) >= 100, 30, f"Nagios run {tag} to handle 100 results")


def run(nagios: NagiosRig, tag: str, seconds: float = RUN_SECONDS) -> None:
    start_checking(nagios, tag)
    time.sleep(seconds)
    nagios.stop()


def wait_all_arrived(client: redis.Redis, nagios: NagiosRig, tags: list[str]) -> dict[str, tuple[int, int]]:
    """Wait (up to 20 s) until every tag's handled results are queued; return tag -> (handled, received)."""
    handled = {tag: nagios.handled(tag) for tag in tags}
    try:
        wait_for(lambda: all(received(client)[t] >= n for t, n in handled.items()), 20, "every result")
    except AssertionError:
        pass
    got = received(client)
    return {tag: (handled[tag], got[tag]) for tag in tags}


def test_pipe_created_and_nagios_restarted_twice_loses_nothing(nagios, receiver, pipe, r, s):
    assert stat.S_IMODE(pipe.stat().st_mode) == 0o660
    tags = ["first", "second", "third"]
    for tag in tags:  # start, stop + start, stop + start, stop: each restart is immediate
        run(nagios, tag)
    counts = wait_all_arrived(r, nagios, tags)
    print("handled/received per run:", counts)
    assert all(handled > 100 for handled, _ in counts.values()), counts
    assert {t: got for t, (_, got) in counts.items()} == {t: n for t, (n, _) in counts.items()}
    counters = load_receiver_counters(s)["nagios"]
    assert counters["pushed"] == len(r.lrange("events", 0, -1))
    assert counters["rejected"] == 0
    assert "Whoops" not in receiver.output()


def test_reload_is_harmless_and_a_flip_is_a_state_change(nagios, r, s):
    start_checking(nagios, "flip")
    nagios.critical = {"host-00;svc-000"}
    nagios.reload()
    wait_for(lambda: any(e["entity"] == "host-00" and e["check"] == "svc-000" and e["state"] == "CRITICAL"
                         for e in queued_events(r)), 15, "the CRITICAL result after the reload")
    time.sleep(1)
    nagios.stop()
    handled, got = wait_all_arrived(r, nagios, ["flip"])["flip"]
    print("reload run handled/received:", handled, got)
    assert got == handled
    flipped = [e["state"] for e in queued_events(r) if (e["entity"], e["check"]) == ("host-00", "svc-000")]
    assert flipped[0] == "OK" and flipped[-1] == "CRITICAL"
    Executive(r, {"executive": {"new_check_scheduled_maintenance_duration": 0}}).drain()
    changes = state_changes(s, "host-00", "svc-000", None, None)
    assert [c.state for c in changes][-1:] == ["critical"]
    assert changes[-1].summary.startswith("CRITICAL: flip")
    assert "critical" not in [c.state for c in state_changes(s, "host-00", "svc-001", None, None)]


def test_redis_killed_and_restarted_under_the_stream(nagios, receiver, own_redis, r):
    nagios.critical = set()
    start_checking(nagios, "outage")
    own_redis.kill()
    time.sleep(3)  # Nagios keeps writing: the receiver holds the results
    own_redis.start()
    time.sleep(2)
    nagios.stop()
    client = own_redis.client()
    handled, got = wait_all_arrived(client, nagios, ["outage"])["outage"]
    print("Redis outage run handled/received:", handled, got)
    assert got >= handled > 100  # a batch whose reply was lost is sent again: never fewer
    log = receiver.output()
    assert log.count("Redis unreachable") == 1, log[-3000:]
    assert log.count("Redis reachable again") == 1
