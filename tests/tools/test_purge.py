"""flapjack purge check_history (deviation D14: the states list is trimmed, :details deleted)."""

from __future__ import annotations

import pytest

from flapjack_py import keys

START = 1_700_000_000
DAY = 86400


def add_state(client, entity, check, ts, state="critical"):
    """One state record as the executive writes it (plus the seed's check_latency key)."""
    client.zadd(keys.all_checks(), {keys.check_id(entity, check): ts})
    client.rpush(keys.check_states(entity, check), ts)
    client.zadd(keys.sorted_state_timestamps(entity, check), {str(ts): ts})
    for key in (keys.check_state_at(entity, check, ts), keys.check_summary_at(entity, check, ts),
                keys.check_details_at(entity, check, ts), keys.check_count_at(entity, check, ts),
                keys.check_latency_at(entity, check, ts)):
        client.set(key, state)


def record_keys(entity, check, ts):
    return [keys.check_state_at(entity, check, ts), keys.check_summary_at(entity, check, ts),
            keys.check_details_at(entity, check, ts), keys.check_count_at(entity, check, ts),
            keys.check_latency_at(entity, check, ts)]


@pytest.fixture
def history(real_r):
    """web:HTTP has states 100, 95 and 10 days old; db:PING 120 and 1 days old; new:SSH 2 days old."""
    for ts in (START - 100 * DAY, START - 95 * DAY, START - 10 * DAY):
        add_state(real_r, "web", "HTTP", ts)
    for ts in (START - 120 * DAY, START - DAY):
        add_state(real_r, "db", "PING", ts)
    add_state(real_r, "new", "SSH", START - 2 * DAY)


def states(client, entity, check):
    return [int(t) for t in client.lrange(keys.check_states(entity, check), 0, -1)]


def test_purges_every_check_older_than_90_days(flapjack, real_r, history, clock):
    result = flapjack("purge", "check_history")
    assert result.exit_code == 0, result.output
    assert result.stdout == "Purged 3 historical check states over 2 checks.\n"
    assert states(real_r, "web", "HTTP") == [START - 10 * DAY]
    assert real_r.zrange(keys.sorted_state_timestamps("web", "HTTP"), 0, -1) == [str(START - 10 * DAY).encode()]
    assert real_r.exists(*record_keys("web", "HTTP", START - 100 * DAY)) == 0
    assert real_r.exists(*record_keys("web", "HTTP", START - 10 * DAY)) == 5
    assert states(real_r, "db", "PING") == [START - DAY]
    assert states(real_r, "new", "SSH") == [START - 2 * DAY]


def test_days_and_single_check(flapjack, real_r, history, clock):
    result = flapjack("purge", "check_history", "-d", "5", "-c", "web:HTTP")
    assert result.stdout == "Purged 3 historical check states over 1 checks.\n"
    assert states(real_r, "web", "HTTP") == []
    assert states(real_r, "db", "PING") == [START - 120 * DAY, START - DAY]


def test_nothing_to_do(flapjack, real_r, history, clock):
    result = flapjack("purge", "check_history", "-d", "200")
    assert result.exit_code == 0
    assert result.stdout == "Nothing to do\n"
    assert states(real_r, "web", "HTTP") == [START - 100 * DAY, START - 95 * DAY, START - 10 * DAY]


@pytest.mark.parametrize(("args", "message"), [
    (("-d", "1.5"), "days must be resolvable to an integer"),
    (("-d", "ten"), "days must be resolvable to an integer"),
    (("-c", "no-colon"), "expected ENTITY:CHECK"),
])
def test_bad_arguments(flapjack, real_r, history, args, message):
    result = flapjack("purge", "check_history", *args)
    assert result.exit_code == 2
    assert message in result.stderr
    assert len(states(real_r, "web", "HTTP")) == 3
