"""flapjack_py.model.delivery (pure): retried until retry_max_age, the breaker's backoff and its health warning."""

from __future__ import annotations

import pytest

from flapjack_py.config.settings import load_config
from flapjack_py.errors import ConfigError
from flapjack_py.model.delivery import (
    MAX_STEP,
    RETRY_MAX_AGE,
    BreakerState,
    RetryPolicy,
    next_step,
    parse_breaker,
    probe_delay,
    refusing_text,
)
from flapjack_py.model.heartbeat import Heartbeat
from flapjack_py.runtime.health import assess
from flapjack_py.store.health import HealthInputs

NOW = 1_700_000_000


def gateway_beat(medium: str) -> Heartbeat:
    return Heartbeat(role="gateway", host="h", pid=1, started=NOW - 100, medium=medium, at=NOW - 3)


def test_an_alert_is_retried_until_retry_max_age_whatever_its_count_of_tries() -> None:
    policy = RetryPolicy.of({"retries": 3, "retry_max_age": 600})
    assert policy.keep_trying(NOW - 599, NOW) and not policy.expired(NOW - 599, NOW)
    assert not policy.keep_trying(NOW - 600, NOW) and policy.expired(NOW - 600, NOW)
    assert policy.keep_trying(None, NOW) and not policy.expired(None, NOW)  # queue time unknown: young


def test_retries_zero_never_retries_and_the_default_age_is_an_hour() -> None:
    assert RetryPolicy.of({}) == RetryPolicy(True, RETRY_MAX_AGE) and RETRY_MAX_AGE == 3600
    off = RetryPolicy.of({"retries": 0, "retry_max_age": 600})
    assert not off.keep_trying(NOW, NOW) and not off.expired(NOW - 10_000, NOW)


@pytest.mark.parametrize(("value", "error"), [(0, "greater than or equal to 1"), ("soon", "cannot parse duration"),
                                              (8 * 86400, "less than or equal to 604800"), (True, "valid integer")])
def test_retry_max_age_is_a_checked_duration(value: object, error: str) -> None:
    assert load_config({"gateways": {"email": {"retry_max_age": "2 hours"}}}).gateway("email")["retry_max_age"] == 7200
    with pytest.raises(ConfigError, match=rf"gateways\.email\.retry_max_age: .*{error}"):
        load_config({"gateways": {"email": {"retry_max_age": value}}})


def test_probes_back_off_doubling_up_to_a_minute_and_honour_retry_after() -> None:
    steps = [1.0]
    while len(steps) < 9:
        steps.append(next_step(steps[-1]))
    assert steps == [1, 2, 4, 8, 16, 32, 60, 60, 60] and MAX_STEP == 60
    assert probe_delay(2, None) == 2 and probe_delay(2, 30) == 30 and probe_delay(8, 3) == 8


def test_a_breaker_hash_reads_back_and_a_broken_one_counts_as_closed() -> None:
    fields = {"since": "1700000000.5", "step": "4", "next_probe": "1700000010", "server": "SMTP", "error": "refused"}
    assert parse_breaker(fields) == BreakerState(1_700_000_000.5, 4.0, 1_700_000_010.0, "SMTP", "refused")
    assert parse_breaker({}) is None and parse_breaker({"since": "x", "step": "1", "next_probe": "1"}) is None


def test_the_warning_names_the_server_the_time_and_the_alerts_waiting() -> None:
    state = BreakerState(NOW - 600, 8, NOW + 8, "SMTP", "SMTP 10.0.0.1:25: ConnectionRefusedError")
    at = "22:03 UTC"  # NOW - 600 is 2023-11-14 22:03:20 UTC
    assert refusing_text("email", state, 412, NOW) == f"email: SMTP refusing since {at}, 412 alerts waiting"
    assert refusing_text("email", state, 1, NOW).endswith(", 1 alert waiting")
    assert "2023-11-13 22:13 UTC" in refusing_text("email", BreakerState(NOW - 86400, 60, NOW, "SMTP"), 0, NOW)


def test_health_shows_an_open_breaker_as_a_warning_with_its_figures() -> None:
    cfg = load_config({"gateways": {"email": {"enabled": True}, "pagerduty": {"enabled": True}}})
    state = BreakerState(NOW - 600, 8, NOW + 8, "SMTP", "SMTP 10.0.0.1:25: ConnectionRefusedError")
    found = HealthInputs(executives=[Heartbeat(role="executive", host="h", pid=1, started=NOW - 100, at=NOW - 3)],
                         last_executive_beat=NOW - 3, gateways={m: [gateway_beat(m)] for m in ("email", "pagerduty")},
                         breakers={"email": state}, waiting={"email": 412})
    health = assess(found, cfg, NOW)
    assert health.ok and health.reasons == ()  # degraded, not failing: the alerts wait, held
    assert health.warnings == ("email: SMTP refusing since 22:03 UTC, 412 alerts waiting",)
    assert health.gateways == {"email": {"workers": 1, "recent_failures": 0, "refusing_since": NOW - 600,
                                         "waiting": 412},
                               "pagerduty": {"workers": 1, "recent_failures": 0}}
    assert "10.0.0.1" not in str(health.to_json())  # no address in the health answer
