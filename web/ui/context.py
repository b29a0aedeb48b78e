"""What a UI view needs from the app: the Redis client, the config and the clock.

`create_app` keeps the client and config in `app.extensions["flapjack"]`
(style.md section 6); this module is the one place that reads them, so views
never touch module globals.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

import redis
from flask import current_app

from flapjack_py.config import Config, load_config
from flapjack_py.store.contacts import str_client

EXTENSION = "flapjack"


def raw_redis() -> redis.Redis:
    """The client handed to create_app (may reply with bytes; rq needs it that way)."""
    return _lookup("redis", "client", "r")


def db() -> redis.Redis:
    """A str-replying client on the same server (cached per client)."""
    return str_client(raw_redis())


def config() -> Config:
    """The app's Config (defaults when none was given)."""
    found = _lookup("config", "cfg", default=None)
    return load_config(found)


def now() -> int:
    """Unix time in whole seconds, read through Python so tests can move it."""
    return int(time.time())


def _lookup(*names: str, default: Any = LookupError) -> Any:
    ext = current_app.extensions[EXTENSION]
    for name in names:
        value = ext.get(name) if isinstance(ext, Mapping) else getattr(ext, name, None)
        if value is not None:
            return value
    if default is LookupError:
        raise LookupError(f"app.extensions[{EXTENSION!r}] has none of {names}")
    return default
