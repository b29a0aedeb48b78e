"""Secrets out of every log line: URL passwords masked, the config's secret values replaced.

`config_secrets(config)` collects the values of secret settings (passwords, tokens,
keys, webhook URLs, the password in any URL); `SecretFilter`, installed on the log
handler by logs.setup_logging, replaces them in every record, its traceback included.
`mask_url` hides the password of URLs in a text; `mask_address` keeps only the end of
an address that is itself a credential (a PagerDuty routing key). Pure.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import urlsplit

MASK = "***"
SECRET_SETTING = re.compile(r"pass|token|secret|auth|key|sid|credential", re.IGNORECASE)
"""Setting names whose values are secrets."""
SECRET_URL_SETTINGS = frozenset({"gateways.slack.endpoint", "gateways.mattermost.url"})
"""Settings whose whole value is a credential although the name does not say so (webhook URLs)."""
NOT_SECRET_SETTINGS = frozenset({"gateways.slack.account_sid"})
"""Settings whose name looks secret but whose value is not (Slack's `account_sid` is the bot's user name)."""
SECRET_ADDRESS_MEDIA = frozenset({"pagerduty", "apprise"})
"""Media whose address is a credential: a PagerDuty routing key, an Apprise URL with tokens."""
MIN_SECRET_LENGTH = 4
"""Shorter values are not replaced (they would mangle ordinary words)."""
_URL_PASSWORD = re.compile(r"(://[^/:@\s]*:)([^/@\s]+)@")
_QUERY_PASSWORD = re.compile(r"([?&]password=)([^&\s]+)")


def mask_url(text: str) -> str:
    """`text` with the password of every `scheme://user:password@host` (or `?password=`) replaced by ***."""
    return _QUERY_PASSWORD.sub(rf"\g<1>{MASK}", _URL_PASSWORD.sub(rf"\g<1>{MASK}@", text))


def mask_address(medium: str, address: str) -> str:
    """The address as it may be logged: credentials (PagerDuty keys, Apprise URLs) cut to `***` + last 4."""
    if medium not in SECRET_ADDRESS_MEDIA or len(address) <= MIN_SECRET_LENGTH:
        return address
    return MASK + address[-4:]


def config_secrets(config: Any) -> set[str]:
    """Every secret value of a Config (a pydantic model): secret-named settings, webhook URLs, URL passwords."""
    return _secrets("", config.model_dump(by_alias=True))


def _secrets(prefix: str, value: Any) -> set[str]:
    if isinstance(value, Mapping):
        return {s for key, item in value.items() for s in _secrets(f"{prefix}.{key}".lstrip("."), item)}
    if isinstance(value, (list, tuple)):
        return {s for item in value for s in _secrets(prefix, item)}
    if not isinstance(value, str) or len(value) < MIN_SECRET_LENGTH or prefix in NOT_SECRET_SETTINGS:
        return set()
    name = prefix.rpartition(".")[2]
    if prefix in SECRET_URL_SETTINGS:  # HTTP libraries log the path alone: it holds the token
        path = urlsplit(value).path
        return {value, path} if len(path) >= MIN_SECRET_LENGTH else {value}
    if SECRET_SETTING.search(name):
        return {value}
    found = [m.group(2) for pattern in (_URL_PASSWORD, _QUERY_PASSWORD) for m in pattern.finditer(value)]
    return {secret for secret in found if len(secret) >= MIN_SECRET_LENGTH}


class SecretFilter(logging.Filter):
    """Replaces known secret values and URL passwords in every record it sees (message and traceback)."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        super().__init__()
        self.secrets = sorted(set(secrets), key=len, reverse=True)

    def redact(self, text: str) -> str:
        """`text` without the secrets."""
        for secret in self.secrets:
            text = text.replace(secret, MASK)
        return mask_url(text)

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        clean = self.redact(message)
        if clean != message:
            record.msg, record.args = clean, None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = self.redact(record.exc_text)
        return True
