"""flapjack purge check_history (deviation D14: the states list is trimmed, :details deleted)."""

from __future__ import annotations

import time

import pytest

from flapjack_py import keys
from flapjack_py.config.settings import load_config
from tests.alerting import enqueue_like_notifier

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


# --- flapjack purge alerts --------------------------------------------------------


def queue_alert(client, at: int, **over):
    """An alert recorded and queued at `at` as the notifier does it; returns its id."""
    alert = {"id": f"alert-{at}-{over.get('contact', 'c1')}", "timestamp": at, "contact": "c1", "media": "email",
             "address": "ada@example.com", "check": "foo:ping", "type": "problem", "rollup": "", "state": "critical",
             "contact_id": "c1", "event_id": "foo:ping", "summary": "down", "time": at, "tags": [], **over}
    enqueue_like_notifier(client, load_config({"gateways": {"email": {"enabled": True}}}), alert)
    return alert["id"]


@pytest.fixture
def alert_history(real_r, clock):
    """Alerts 40 days old (one already delivered: its job finished) and 1 day old."""
    old = [queue_alert(real_r, START - 40 * DAY), queue_alert(real_r, START - 40 * DAY, contact="c2")]
    real_r.hset(f"rq:job:{old[1]}", "status", "finished")
    real_r.lrem("rq:queue:email", 1, old[1])  # a worker took it
    new = queue_alert(real_r, START - DAY)
    return old, new


def test_purge_alerts_older_than_the_retention_with_their_queued_jobs(flapjack, real_r, alert_history, clock):
    old, new = alert_history
    result = flapjack("purge", "alerts")  # executive.alert_retention: 30 days
    assert result.exit_code == 0, result.output
    assert result.stdout == "Purged 2 alert records and 1 queued jobs.\n"
    assert not real_r.exists(*(keys.alert(i) for i in old)) and real_r.exists(keys.alert(new))
    assert real_r.lrange("rq:queue:email", 0, -1) == [new.encode()]
    assert not real_r.exists(f"rq:job:{old[0]}") and real_r.exists(f"rq:job:{new}")
    assert real_r.exists(f"rq:job:{old[1]}")  # finished: rq's result_ttl removes it
    for index in ("alerts", "alerts_by_contact:c1", "alerts_by_contact:c1:email", "alerts_by_check:foo:ping"):
        assert real_r.zrange(index, 0, -1) == [new.encode()], index
    by_time = [k for k in real_r.scan_iter(match="alerts_by_time:*") if real_r.zcard(k)]
    assert by_time == [b"alerts_by_time:" + time.strftime("%Y%m%d", time.gmtime(START - DAY)).encode()]


def test_purge_alerts_with_days_0_leaves_no_alert_and_no_queued_job(flapjack, real_r, alert_history, clock):
    result = flapjack("purge", "alerts", "--days", "0")
    assert result.stdout == "Purged 3 alert records and 2 queued jobs.\n"
    assert not list(real_r.scan_iter(match="alert:*")) and real_r.llen("rq:queue:email") == 0
    assert flapjack("purge", "alerts", "-d", "0").stdout == "Nothing to do\n"


# --- flapjack purge rejected_events -----------------------------------------------


@pytest.fixture
def rejected(real_r):
    """Rejected events (and their reasons) filed 8 days, 2 days and 1 hour before START, and in START's hour."""
    hours = [time.strftime("%Y%m%d%H", time.gmtime(START - ago)) for ago in (8 * DAY, 2 * DAY, 3600, 0)]
    for hour in hours:
        real_r.lpush(f"events_rejected:{hour}", "{not json")
        real_r.lpush(f"events_rejected_reasons:{hour}", '{"reason":"not JSON"}')
    return hours


def rejected_hours(client):
    return sorted(k.decode().rsplit(":", 1)[1] for k in client.scan_iter(match="events_rejected:*"))


def test_purge_rejected_events_older_than_a_week(flapjack, real_r, rejected, clock):
    result = flapjack("purge", "rejected_events")
    assert result.exit_code == 0, result.output
    assert result.stdout == "Purged 2 lists of rejected events.\n"
    assert rejected_hours(real_r) == rejected[1:]
    assert not real_r.exists(f"events_rejected_reasons:{rejected[0]}")


def test_purge_rejected_events_with_days_0_keeps_the_hour_not_over(flapjack, real_r, rejected, clock):
    assert flapjack("purge", "rejected_events", "-d", "0").stdout == "Purged 6 lists of rejected events.\n"
    assert rejected_hours(real_r) == rejected[3:] and real_r.exists(f"events_rejected_reasons:{rejected[3]}")
    assert flapjack("purge", "rejected_events", "-d", "0").stdout == "Nothing to do\n"
