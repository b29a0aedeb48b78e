"""Logging setup for the command line tools (library code never adds handlers)."""

from __future__ import annotations

import logging.config

from .config import LoggingConfig


def setup_logging(cfg: LoggingConfig, verbose: bool = False) -> None:
    """Apply the `logging` config section once, via dictConfig."""
    handler: dict[str, object] = {"class": "logging.StreamHandler", "formatter": "plain", "stream": "ext://sys.stderr"}
    if cfg.file:
        handler = {"class": "logging.FileHandler", "formatter": "plain", "filename": cfg.file}
    logging.config.dictConfig({
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"plain": {"format": cfg.format}},
        "handlers": {"main": handler},
        "root": {"level": "DEBUG" if verbose else cfg.level.upper(), "handlers": ["main"]},
        "loggers": {"rq.worker": {"level": "WARNING"}, "slixmpp": {"level": "WARNING"}},
    })
