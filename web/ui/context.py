"""What a UI view needs from the app: the Redis clients, the config and the clock.

`create_app` keeps them in `app.extensions["flapjack"]` (a web.FlapjackContext,
style.md section 6); this module is the one place that reads it, so views never
touch module globals.
"""

from __future__ import annotations

import time

from flask import current_app

from flapjack_py.config.settings import Config
from flapjack_py.store.plumbing.client import BytesRedis, StrRedis

EXTENSION = "flapjack"


def raw_redis() -> BytesRedis:
    """The bytes client (rq needs it that way)."""
    return current_app.extensions[EXTENSION].raw  # type: ignore[no-any-return]


def db() -> StrRedis:
    """The str client: the one every flapjack_py.store function takes."""
    return current_app.extensions[EXTENSION].client  # type: ignore[no-any-return]


def config() -> Config:
    """The app's Config (defaults filled in)."""
    return current_app.extensions[EXTENSION].config  # type: ignore[no-any-return]


def now() -> int:
    """Unix time in whole seconds, read through Python so tests can move it."""
    return int(time.time())
