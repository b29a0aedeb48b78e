"""Logging setup for the command line tools (library code never adds handlers).

`logging.format: json` writes one JSON object per line (python-json-logger):
time, level, logger, message, and whatever a call site passes in `extra`
(`check`, `event_id`, `alert_id`, ...), exceptions as `exc_info`. Any other
value is a %-style format string for plain text lines.
"""

from __future__ import annotations

import logging.config
from collections.abc import Iterable

from flapjack_py.config.settings import LoggingConfig

JSON = "json"
JSON_FIELDS = "%(asctime)s %(levelname)s %(name)s %(message)s %(process)d"


def setup_logging(cfg: LoggingConfig, verbose: bool = False, secrets: Iterable[str] = ()) -> None:
    """Apply the `logging` config section once, via dictConfig; `secrets` never reach the output.

    Every record goes through redaction.SecretFilter: the given secret values and URL passwords are
    replaced by *** in the message and the traceback.
    """
    handler: dict[str, object] = {"class": "logging.StreamHandler", "formatter": "main", "stream": "ext://sys.stderr"}
    if cfg.file:
        handler = {"class": "logging.FileHandler", "formatter": "main", "filename": cfg.file}
    handler["filters"] = ["secrets"]
    logging.config.dictConfig({
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {"secrets": {"()": "flapjack_py.config.redaction.SecretFilter", "secrets": sorted(secrets)}},
        "formatters": {"main": formatter(cfg.format)},
        "handlers": {"main": handler},
        "root": {"level": "DEBUG" if verbose else cfg.level.upper(), "handlers": ["main"]},
        "loggers": {"rq.worker": {"level": "WARNING"}, "slixmpp": {"level": "WARNING"}},
    })


def formatter(fmt: str) -> dict[str, object]:
    """The dictConfig formatter of a `logging.format` value."""
    if fmt.strip().lower() == JSON:
        return {"()": "pythonjsonlogger.json.JsonFormatter", "format": JSON_FIELDS,
                "rename_fields": {"levelname": "level", "name": "logger", "asctime": "time", "process": "pid"},
                "timestamp": False}
    return {"format": fmt}
