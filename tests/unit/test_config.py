"""Configuration loading (contract.md section 3): defaults, durations, and errors naming the key."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from flapjack_py.config.settings import load_config, read_config_file
from flapjack_py.errors import ConfigError


@pytest.fixture
def write_config(tmp_path: Path) -> Callable[[str], Path]:
    """`write_config(yaml_text)` -> path of a config file holding it."""
    def write(text: str) -> Path:
        path = tmp_path / "flapjack.yml"
        path.write_text(text, encoding="utf-8")
        return path
    return write


def test_defaults() -> None:
    config = load_config(None)

    ex = config.executive
    assert ex.queue == "events"
    assert ex.archive_events is False
    assert ex.events_archive_maxage == 10800
    assert ex.new_check_scheduled_maintenance_duration == 3_155_760_000
    assert tuple(ex.new_check_scheduled_maintenance_ignore_tags) == ()
    assert ex.default_contact_timezone == "UTC"
    assert ex.initial_failure_delay == 30
    assert ex.repeat_failure_delay == 60
    assert config.redis.url is None
    assert (config.web.bind, config.web.port) == ("127.0.0.1", 3080)
    assert tuple(config.web.api_token) == ()
    assert config.schedules.allow_private_urls is False
    assert load_config({"schedules": {"allow_private_urls": True}}).schedules.allow_private_urls is True


def test_partial_config_keeps_other_defaults() -> None:
    config = load_config({"executive": {"repeat_failure_delay": 300}})

    assert config.executive.repeat_failure_delay == 300
    assert config.executive.initial_failure_delay == 30
    assert config.executive.queue == "events"


@pytest.mark.parametrize(("key", "value", "seconds"), [
    ("new_check_scheduled_maintenance_duration", "100 years", 3_155_760_000),
    ("new_check_scheduled_maintenance_duration", 0, 0),
    ("new_check_scheduled_maintenance_duration", "0", 0),
    ("initial_failure_delay", "2 minutes", 120),
    ("repeat_failure_delay", "1 hour", 3600),
    ("events_archive_maxage", "3 hours", 10800),
    ("events_archive_maxage", 600, 600),
])
def test_durations_accept_integers_and_human_strings(key: str, value: Any, seconds: int) -> None:
    assert getattr(load_config({"executive": {key: value}}).executive, key) == seconds


def test_executive_settings_are_honoured() -> None:
    config = load_config({"executive": {"queue": "my_events", "archive_events": True,
                                        "new_check_scheduled_maintenance_ignore_tags": ["a", "b"],
                                        "default_contact_timezone": "Europe/Paris"}})

    assert config.executive.queue == "my_events"
    assert config.executive.archive_events is True
    assert tuple(config.executive.new_check_scheduled_maintenance_ignore_tags) == ("a", "b")
    assert config.executive.default_contact_timezone == "Europe/Paris"


@pytest.mark.parametrize(("config", "key"), [
    ({"executive": {"bogus": 1}}, "executive.bogus"),
    ({"web": {"prot": 3080}}, "web.prot"),
    ({"redis": {"uri": "redis://x"}}, "redis.uri"),
    ({"executiv": {}}, "executiv"),
])
def test_unknown_key_names_the_key(config: dict[str, Any], key: str) -> None:
    with pytest.raises(ConfigError, match=key.replace(".", r"\.")):
        load_config(config)


@pytest.mark.parametrize(("config", "key"), [
    ({"executive": {"archive_events": "yes"}}, "executive.archive_events"),
    ({"executive": {"queue": 5}}, "executive.queue"),
    ({"executive": {"new_check_scheduled_maintenance_ignore_tags": "a"}},
     "executive.new_check_scheduled_maintenance_ignore_tags"),
    ({"executive": {"new_check_scheduled_maintenance_ignore_tags": [1]}},
     "executive.new_check_scheduled_maintenance_ignore_tags"),
    ({"web": {"port": "3080"}}, "web.port"),
    ({"web": {"port": True}}, "web.port"),
    ({"executive": ["queue"]}, "executive"),
    ({"schedules": {"allow_private_urls": "yes"}}, "schedules.allow_private_urls"),
    ({"schedules": {"allow_private_urls": 1}}, "schedules.allow_private_urls"),
])
def test_wrong_type_names_the_key(config: dict[str, Any], key: str) -> None:
    with pytest.raises(ConfigError, match=key.replace(".", r"\.")):
        load_config(config)


@pytest.mark.parametrize("key", ["new_check_scheduled_maintenance_duration", "initial_failure_delay",
                                 "repeat_failure_delay", "events_archive_maxage"])
@pytest.mark.parametrize("value", ["soon", "5 parsecs", "", -5])
def test_bad_duration_names_the_key(key: str, value: Any) -> None:
    with pytest.raises(ConfigError, match=rf"executive\.{key}"):
        load_config({"executive": {key: value}})


def test_config_file_is_read(write_config: Callable[[str], Path]) -> None:
    path = write_config("executive:\n  initial_failure_delay: 1 minute\n  archive_events: true\n")

    config = read_config_file(path)

    assert config.executive.initial_failure_delay == 60
    assert config.executive.archive_events is True


def test_config_file_named_by_environment(write_config: Callable[[str], Path], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FLAPJACK_CONFIG", str(write_config("executive:\n  queue: feed\n")))

    assert read_config_file(None).executive.queue == "feed"


@pytest.mark.parametrize(("text", "key"), [
    ("executive:\n  not_a_setting: 1\n", "executive.not_a_setting"),
    ("executive:\n  repeat_failure_delay: later\n", "executive.repeat_failure_delay"),
    ("web:\n  port: eighty\n", "web.port"),
])
def test_bad_config_file_names_the_key(write_config: Callable[[str], Path], text: str, key: str) -> None:
    with pytest.raises(ConfigError, match=key.replace(".", r"\.")):
        read_config_file(write_config(text))


@pytest.mark.parametrize(("gateways", "key"), [
    ({"email": {"smtp_config": {"port": "abc"}}}, "gateways.email.smtp_config.port"),
    ({"email": {"smtp_config": {"port": 70000}}}, "gateways.email.smtp_config.port"),
    ({"email": {"smtp_config": {"starttls": "yes"}}}, "gateways.email.smtp_config.starttls"),
    ({"email": {"smtp_config": {"auth": {"type": "magic"}}}}, "gateways.email.smtp_config.auth.type"),
    ({"email": {"smtp_config": {"hots": "mail"}}}, "gateways.email.smtp_config.hots"),
    ({"email": {"retries": -1}}, "gateways.email.retries"),
    ({"email": {"retry_intervals": ["soon"]}}, "gateways.email.retry_intervals.0"),
    ({"slack": {"timeout": 0}}, "gateways.slack.timeout"),
    ({"jabber": {"port": 0}}, "gateways.jabber.port"),
    ({"jabber": {"rooms": "ops@conference.example.com"}}, "gateways.jabber.rooms"),
    ({"pagerduty": {"events_api": "v3"}}, "gateways.pagerduty.events_api"),
    ({"sms_twilio": {"enabled": True, "account_sid": "AC1"}}, "gateways.sms_twilio.auth_token"),
    ({"slack": {"enabled": True}}, "gateways.slack.endpoint"),
    ({"telegraph": {}}, "gateways.telegraph"),
])
def test_bad_gateway_setting_names_the_key(gateways: dict[str, Any], key: str) -> None:
    with pytest.raises(ConfigError, match=key.replace(".", r"\.") + ":"):
        load_config({"gateways": gateways})


@pytest.mark.parametrize(("config", "key"), [
    ({"executive": {"batch_size": 0}}, "executive.batch_size"),
    ({"executive": {"initial_failure_delay": "5000 years"}}, "executive.initial_failure_delay"),
    ({"executive": {"default_contact_timezone": "Mars/Olympus"}}, "executive.default_contact_timezone"),
    ({"web": {"port": 0}}, "web.port"),
    ({"web": {"api_token": ""}}, "web.api_token"),
    ({"redis": {"url": "http://localhost:6379"}}, "redis.url"),
    ({"logging": {"level": "chatty"}}, "logging.level"),
])
def test_out_of_range_names_the_key(config: dict[str, Any], key: str) -> None:
    with pytest.raises(ConfigError, match=key.replace(".", r"\.")):
        load_config(config)


def test_secret_values_are_not_echoed_in_errors() -> None:
    with pytest.raises(ConfigError) as raised:
        load_config({"redis": {"url": "http://flapjack:hunter22@localhost"}})
    with pytest.raises(ConfigError) as raised_secret:
        load_config({"gateways": {"sms_twilio": {"auth_token": ["hunter22"]}}})

    assert "hunter22" not in str(raised.value) + str(raised_secret.value)


def test_gateway_settings_are_typed_mappings_with_defaults() -> None:
    config = load_config({"gateways": {"email": None, "sms_twilio": {"enabled": True, "account_sid": "AC1",
                                                                     "auth_token": "t0ken", "from": "+1555"}}})

    assert config.gateway("email")["smtp_config"]["port"] == 25
    assert config.gateway_enabled("email") is False
    assert config.gateway("sms_twilio")["from"] == "+1555"
    assert config.gateway_enabled("sms_twilio") is True
    assert config.gateway("slack") == {}
