"""Secrets out of log lines: URL passwords, the config's secret values, credential addresses."""

from __future__ import annotations

import logging

from flapjack_py.config.redaction import SecretFilter, config_secrets, mask_address, mask_url
from flapjack_py.config.settings import load_config


def test_url_passwords_are_masked() -> None:
    assert mask_url("at redis://:pw1234@db:6379/0 and redis://u:pw5678@x/1") == (
        "at redis://:***@db:6379/0 and redis://u:***@x/1")
    assert mask_url("unix:///run/redis.sock?db=0&password=pw9999") == "unix:///run/redis.sock?db=0&password=***"
    assert mask_url("http://example.com/a:b@c") == "http://example.com/a:b@c"  # no userinfo, nothing to hide


def test_credential_addresses_keep_only_their_end() -> None:
    assert mask_address("pagerduty", "0123456789abcdef") == "***cdef"
    assert mask_address("email", "ada@example.com") == "ada@example.com"


def test_config_secrets_are_every_secret_setting() -> None:
    config = load_config({
        "redis": {"url": "redis://:redis-pw@db/0"}, "web": {"api_token": ["tok-1234", "tok-5678"]},
        "gateways": {"email": {"smtp_config": {"auth": {"username": "fj", "password": "smtp-pw"}}},
                     "slack": {"endpoint": "https://hooks.slack.com/services/T0/B0/xyz"},
                     "sms_twilio": {"account_sid": "AC123", "auth_token": "twilio-tok"}}})

    assert config_secrets(config) == {"redis-pw", "tok-1234", "tok-5678", "smtp-pw", "AC123", "twilio-tok",
                                      "https://hooks.slack.com/services/T0/B0/xyz", "/services/T0/B0/xyz"}


def test_the_filter_cleans_message_arguments_and_traceback() -> None:
    secret_filter = SecretFilter({"hunter22"})
    try:
        raise ValueError("login with hunter22 failed")
    except ValueError:
        import sys
        record = logging.LogRecord("x", logging.ERROR, __file__, 1, "as %s to %s", ("hunter22", "redis://:pw12@h"),
                                   sys.exc_info())

    assert secret_filter.filter(record)
    assert record.getMessage() == "as *** to redis://:***@h"
    assert record.exc_text is not None and "hunter22" not in record.exc_text and "login with *** failed" in record.exc_text
